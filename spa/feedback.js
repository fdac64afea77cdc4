// A person's verdict on a finished run: thumbs up or down with an optional note (`POST /runs/{id}/feedback`), under
// the run's answer. The controls show what the service kept, not what was pressed: the pressed button is the score
// of its 201, the note the one it stored (redacted), as text. A second verdict replaces the first there, so here too.
// No module state: app.js keeps one feedback state a run.

import { explainProblem } from './access.js';
import { h, setText } from './render.js';

/** The longest note the service takes, in characters (contracts/feedback.py). */
export const FEEDBACK_NOTE_MAX = 2000;
export const SCORES = Object.freeze(['up', 'down']);
/** Each score as the service takes and answers it (`score`: 1 for good, 0 for not). */
const WIRE = Object.freeze({ up: 1, down: 0 });
const FINISHED = new Set(['completed', 'failed', 'cancelled']);
const WORDS = { up: 'helpful', down: 'not helpful' };

/**
 * Whether `run` may be rated: a run of this service (not a recording) that has ended, as the service told it (a
 * terminal event or a JSON answer); a turn refused before any run answered has nothing to rate.
 */
export function mayGiveFeedback(run, { recorded = false } = {}) {
  if (!run || recorded || !run.terminal || !FINISHED.has(run.status)) return false;
  return typeof run.runId === 'string' && run.runId !== '' && (run.lastSeq > 0 || run.response !== null);
}

/** A run's feedback before any was given (this page does not know of feedback given elsewhere). */
export function newFeedback(runId) {
  return { runId, score: null, note: null, at: null, sending: null, problem: '' };
}

/** The request body: the score (1 or 0), and the note as its `comment` when it says something (the service trims
 * it too). */
export function feedbackRequest(score, note = '') {
  if (!SCORES.includes(score)) throw new TypeError(`feedback is "up" or "down", not ${JSON.stringify(score)}`);
  const said = typeof note === 'string' ? note.trim() : '';
  return said ? { score: WIRE[score], comment: said.slice(0, FEEDBACK_NOTE_MAX) } : { score: WIRE[score] };
}

/** Send `score` and `note` for `runId` through the api wrapper; answers `{ok, status, body}`. */
export function sendFeedback(api, runId, score, note) {
  return api.feedback(runId, feedbackRequest(score, note));
}

export function feedbackSending(state, score) {
  return { ...state, sending: score, problem: '' };
}

/**
 * The state once the service answered: a 201 is what is kept now (its score and stored note replace any before);
 * anything else leaves what was kept as it was and says why, in the problem's words.
 */
export function feedbackSettled(state, { ok, status, body }) {
  const score = SCORES.find((name) => WIRE[name] === body?.score);
  if (ok && score !== undefined) {
    const note = typeof body.comment === 'string' && body.comment !== '' ? body.comment : null;
    const at = typeof body.at === 'string' ? body.at : null;
    return { ...state, score, note, at, sending: null, problem: '' };
  }
  const detail = explainProblem(status, body)?.detail || (status === 0 ? '' : `HTTP ${status}`);
  const why = detail || 'the service did not say why.';
  return { ...state, sending: null, problem: `Your feedback was not kept: ${why}` };
}

/** What the page says of the feedback kept: empty until some is. */
export function feedbackWords(state) {
  if (state.score === null) return '';
  const rated = `You rated this answer ${WORDS[state.score]}.`;
  return state.note === null ? rated : `${rated} Your note, as kept: “${state.note}”`;
}

/** The controls of one run's feedback; `seq` keeps their ids unique on the page. Answers the parts to redraw. */
export function feedbackControls(doc, runId, seq) {
  const titleId = `feedback-title-${seq}`;
  const noteId = `feedback-note-${seq}`;
  const button = (score, icon) =>
    h(doc, 'button', { type: 'button', class: 'feedback-button', 'data-feedback': score, 'aria-pressed': 'false' }, [
      h(doc, 'span', { 'aria-hidden': 'true' }, [icon]),
      ` ${WORDS[score][0].toUpperCase()}${WORDS[score].slice(1)}`,
    ]);
  const up = button('up', '👍');
  const down = button('down', '👎');
  const note = h(doc, 'input', {
    type: 'text',
    id: noteId,
    class: 'feedback-note',
    'data-role': 'feedback-note',
    maxlength: String(FEEDBACK_NOTE_MAX),
    autocomplete: 'off',
  });
  const said = h(doc, 'p', { class: 'feedback-said', 'data-role': 'feedback-said', 'aria-live': 'polite' });
  const error = h(doc, 'p', { class: 'feedback-error', role: 'alert', 'data-role': 'feedback-error' });
  const element = h(
    doc,
    'section',
    { class: 'feedback', 'data-role': 'feedback', 'data-run-id': runId, 'aria-labelledby': titleId },
    [
      h(doc, 'p', { class: 'feedback-title', id: titleId }, ['Was this answer helpful?']),
      h(doc, 'div', { class: 'feedback-row' }, [
        h(doc, 'div', { class: 'feedback-buttons', role: 'group', 'aria-labelledby': titleId }, [up, down]),
        h(doc, 'label', { for: noteId, class: 'feedback-label' }, ['Note (optional)']),
        note,
      ]),
      said,
      error,
    ],
  );
  return { element, up, down, note, said, error };
}

/**
 * Draw `state` on the controls: `data-state` (`idle|sending|stored|failed`) and `data-score` on the section, the
 * kept score's button pressed, the buttons inert (not disabled: the one pressed keeps the focus) while one is sent.
 */
export function renderFeedback(controls, state) {
  const { element } = controls;
  let phase = state.score === null ? 'idle' : 'stored';
  if (state.sending !== null) phase = 'sending';
  else if (state.problem) phase = 'failed';
  element.setAttribute('data-state', phase);
  element.setAttribute('data-score', state.score ?? '');
  element.setAttribute('aria-busy', String(state.sending !== null));
  for (const score of SCORES) {
    const button = controls[score];
    button.setAttribute('aria-pressed', String(state.score === score));
    button.setAttribute('aria-disabled', String(state.sending !== null));
  }
  setText(controls.said, feedbackWords(state));
  setText(controls.error, state.problem);
}
