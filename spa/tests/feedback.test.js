import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FEEDBACK_NOTE_MAX,
  feedbackControls,
  feedbackRequest,
  feedbackSending,
  feedbackSettled,
  feedbackWords,
  mayGiveFeedback,
  newFeedback,
  renderFeedback,
  sendFeedback,
} from '../feedback.js';
import { applyEnvelopes, applyProblem, applyResponse, newRun, runStarted } from '../state.js';
import { deepFreeze, fakeDocument, serialize } from './support.js';

const RUN = 'r_0123456789abcdef';
const KEPT = {
  run_id: RUN,
  session_id: 's_1',
  score: 0,
  comment: 'wrong <b>plan</b> [REDACTED]',
  at: '2026-12-07T10:00:00Z',
};

function envelope(seq, type, data = {}, status = 'running') {
  return { v: 1, run_id: RUN, seq, type, status, ts: '2026-12-07T10:00:00Z', data };
}

describe('which runs may be rated', () => {
  test('a run the service said has finished, streamed or answered as JSON', () => {
    const streamed = applyEnvelopes(newRun({ message: 'hi' }), [
      envelope(1, 'run_started'),
      envelope(2, 'turn_completed', { response: null }, 'completed'),
    ]);
    const answered = applyResponse(newRun({ message: 'hi', mode: 'json' }), {
      run_id: RUN,
      session_id: 's_1',
      status: 'completed',
      answer: { text: 'Done.' },
      trace: [],
    });

    assert.equal(streamed.terminal, true);
    assert.equal(mayGiveFeedback(streamed), true);
    assert.equal(mayGiveFeedback(answered), true);
  });

  test('not while it runs or waits, not a recording, not a turn refused before any run answered', () => {
    const running = applyEnvelopes(newRun(), [envelope(1, 'run_started')]);
    const paused = applyResponse(newRun({ mode: 'json' }), {
      run_id: RUN,
      session_id: 's_1',
      status: 'paused',
      answer: { text: 'Shall I?' },
      pending_approval: { approval_id: 'apv_1', action: 'issue_refund', summary: 'Refund', args: {} },
      trace: [],
    });
    const finished = applyEnvelopes(newRun(), [envelope(1, 'turn_completed', {}, 'completed')]);
    const refused = applyProblem(runStarted(newRun({ mode: 'graph' }), RUN), { code: 'run_not_found' }, 404);

    assert.equal(mayGiveFeedback(null), false);
    assert.equal(mayGiveFeedback(running), false);
    assert.equal(mayGiveFeedback(paused), false);
    assert.equal(mayGiveFeedback(finished, { recorded: true }), false);
    assert.equal(refused.terminal, true);
    assert.equal(mayGiveFeedback(refused), false);
  });
});

describe('the request', () => {
  test('the score, and the note only when it says something, trimmed and at most the longest kept', () => {
    assert.deepEqual(feedbackRequest('down', '  too vague \n'), { score: 0, comment: 'too vague' });
    assert.deepEqual(feedbackRequest('up', '   '), { score: 1 });
    assert.deepEqual(feedbackRequest('up'), { score: 1 });
    assert.equal(feedbackRequest('up', 'x'.repeat(FEEDBACK_NOTE_MAX + 5)).comment.length, FEEDBACK_NOTE_MAX);
    assert.throws(() => feedbackRequest('meh'), TypeError);
  });

  test('goes through the api wrapper to the run', async () => {
    const calls = [];
    const api = { feedback: (...args) => (calls.push(args), Promise.resolve({ ok: true, status: 201, body: KEPT })) };

    const answer = await sendFeedback(api, RUN, 'down', ' wrong ');

    assert.deepEqual(calls, [[RUN, { score: 0, comment: 'wrong' }]]);
    assert.equal(answer.status, 201);
  });
});

describe('the state', () => {
  test('a 201 is what is kept; a later one replaces it, a note dropped included', () => {
    const start = deepFreeze(newFeedback(RUN));
    const sending = deepFreeze(feedbackSending(start, 'down'));
    const kept = deepFreeze(feedbackSettled(sending, { ok: true, status: 201, body: KEPT }));
    const replaced = feedbackSettled(feedbackSending(kept, 'up'), {
      ok: true,
      status: 201,
      body: { ...KEPT, score: 1, comment: null },
    });

    assert.equal(sending.sending, 'down');
    assert.equal(sending.score, null);
    assert.deepEqual(
      { score: kept.score, note: kept.note, at: kept.at, sending: kept.sending, problem: kept.problem },
      { score: 'down', note: KEPT.comment, at: KEPT.at, sending: null, problem: '' },
    );
    assert.deepEqual([replaced.score, replaced.note], ['up', null]);
  });

  test("a refusal keeps what was kept and says why, in the problem's words", () => {
    const kept = feedbackSettled(newFeedback(RUN), { ok: true, status: 201, body: KEPT });
    const detail = `Run ${RUN} is running; feedback is for a finished run.`;

    const conflict = feedbackSettled(feedbackSending(kept, 'up'), {
      ok: false,
      status: 409,
      body: { code: 'run_not_finished', detail },
    });
    const foreign = feedbackSettled(newFeedback(RUN), { ok: false, status: 404, body: { code: 'run_not_found' } });
    const offline = feedbackSettled(newFeedback(RUN), { ok: false, status: 0, body: { code: 'network_error' } });

    assert.equal(conflict.score, 'down');
    assert.equal(conflict.sending, null);
    assert.equal(conflict.problem, `Your feedback was not kept: ${detail}`);
    assert.match(foreign.problem, /does not exist, or it is not yours/);
    assert.match(offline.problem, /not kept/);
  });

  test('the words say the score and the note as kept', () => {
    assert.equal(feedbackWords(newFeedback(RUN)), '');
    const kept = feedbackSettled(newFeedback(RUN), { ok: true, status: 201, body: KEPT });
    assert.equal(feedbackWords(kept), `You rated this answer not helpful. Your note, as kept: “${KEPT.comment}”`);
    const up = feedbackSettled(kept, { ok: true, status: 201, body: { ...KEPT, score: 1, comment: null } });
    assert.equal(feedbackWords(up), 'You rated this answer helpful.');
  });
});

describe('the controls', () => {
  const byRole = (role) => (element) => element.getAttribute('data-role') === role;

  test('labelled buttons that show the kept score pressed, and the note as text', () => {
    const doc = fakeDocument();
    const controls = feedbackControls(doc, RUN, 3);
    renderFeedback(controls, newFeedback(RUN));

    assert.equal(controls.element.getAttribute('data-run-id'), RUN);
    assert.equal(controls.element.getAttribute('data-state'), 'idle');
    assert.deepEqual(
      [controls.up, controls.down].map((button) => [button.tagName, button.getAttribute('type'), button.textContent]),
      [
        ['button', 'button', '👍 Helpful'],
        ['button', 'button', '👎 Not helpful'],
      ],
    );
    assert.equal(controls.note.getAttribute('maxlength'), String(FEEDBACK_NOTE_MAX));
    const label = controls.element.find((element) => element.tagName === 'label');
    assert.equal(label.getAttribute('for'), controls.note.getAttribute('id'));

    const sending = feedbackSending(newFeedback(RUN), 'down');
    renderFeedback(controls, sending);
    assert.equal(controls.element.getAttribute('data-state'), 'sending');
    assert.equal(controls.down.getAttribute('aria-disabled'), 'true');
    assert.equal(controls.down.hasAttribute('disabled'), false, 'the pressed button keeps the focus');

    renderFeedback(controls, feedbackSettled(sending, { ok: true, status: 201, body: KEPT }));
    assert.equal(controls.element.getAttribute('data-state'), 'stored');
    assert.equal(controls.element.getAttribute('data-score'), 'down');
    assert.deepEqual(
      [controls.up.getAttribute('aria-pressed'), controls.down.getAttribute('aria-pressed')],
      ['false', 'true'],
    );
    const said = controls.element.find(byRole('feedback-said'));
    assert.match(said.textContent, /<b>plan<\/b>/);
    assert.match(serialize(said), /&lt;b&gt;plan&lt;\/b&gt;/, 'markup in the note stays characters');
  });

  test('a refusal shows as an alert, and goes once the next one is kept', () => {
    const doc = fakeDocument();
    const controls = feedbackControls(doc, RUN, 1);
    const failed = feedbackSettled(newFeedback(RUN), { ok: false, status: 409, body: { detail: 'Not finished.' } });
    renderFeedback(controls, failed);

    const error = controls.element.find(byRole('feedback-error'));
    assert.equal(error.getAttribute('role'), 'alert');
    assert.equal(error.textContent, 'Your feedback was not kept: Not finished.');
    assert.equal(controls.element.getAttribute('data-state'), 'failed');

    const kept = { ok: true, status: 201, body: { ...KEPT, score: 1 } };
    renderFeedback(controls, feedbackSettled(feedbackSending(failed, 'up'), kept));
    assert.equal(error.textContent, '');
    assert.equal(controls.up.getAttribute('aria-pressed'), 'true');
  });
});
