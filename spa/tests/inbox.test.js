import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatMoment } from '../format.js';
import {
  decisionNote,
  decisionSettles,
  isGraphApproval,
  pendingApprovals,
  renderInbox,
  sendDecision,
  withoutApproval,
} from '../inbox.js';
import { fakeDocument } from './support.js';

const REFUND = {
  run_id: 'r_alice',
  session_id: 's_alice',
  approval_id: 'apv_1',
  action: 'issue_refund',
  summary: 'Refund invoice INV-1001 ($42.00)',
  requested_by: 'alice',
  requested_at: '2026-12-01T06:40:12.345Z',
};
const DELETION = {
  ...REFUND,
  run_id: 'r_bob',
  approval_id: 'apv_2',
  action: 'delete_account',
  summary: 'Delete account ACC-2002 (irreversible)',
  requested_by: 'bob',
};

const GRAPH_REFUND = {
  run_id: 'r_graph',
  session_id: 's_thread',
  approval_id: 'int_1',
  action: 'issue_refund',
  summary: 'Refund 42.00 EUR for order A-1001 (Rain jacket)',
  requested_by: 'alice',
  requested_at: '2026-12-01T06:41:00.000Z',
  graph_id: 'react_agent',
  assistant_id: 'asst_react',
};

/** An api whose calls are recorded, each answering `answer`. */
function recordingApi(answer = { ok: true, status: 200, body: {} }) {
  const calls = [];
  const record =
    (name) =>
    (...args) => {
      calls.push([name, ...args]);
      return Promise.resolve(answer);
    };
  return { calls, resume: record('resume'), startRun: record('startRun') };
}

const byRole = (role) => (element) => element.getAttribute('data-role') === role;

describe('the approvals inbox', () => {
  test('reads GET /approvals, leaving out what cannot be decided', () => {
    assert.deepEqual(pendingApprovals({ approvals: [REFUND, { action: 'x' }, null, { ...DELETION, run_id: '' }] }), [REFUND]);
    assert.deepEqual(pendingApprovals({ approvals: [] }), []);
    assert.deepEqual(pendingApprovals({ code: 'service_unavailable' }), []);
    assert.deepEqual(pendingApprovals(null), []);
  });

  test('draws one item per approval, as text, with its decision buttons', () => {
    const doc = fakeDocument();
    const list = doc.createElement('ol');
    renderInbox(doc, list, [REFUND, { ...DELETION, summary: '<img src=x onerror=alert(1)>' }]);
    const items = list.findAll(byRole('inbox-item'));
    assert.deepEqual(
      items.map((item) => [item.getAttribute('data-run-id'), item.getAttribute('data-approval-id')]),
      [
        ['r_alice', 'apv_1'],
        ['r_bob', 'apv_2'],
      ],
    );
    const text = items[0].textContent;
    assert.match(text, /Refund invoice INV-1001 \(\$42\.00\)/);
    assert.match(text, /issue_refund/);
    assert.match(text, /asked by alice, 2026-12-01 06:40 UTC/);
    const decisions = items[0].findAll((element) => element.hasAttribute('data-decision'));
    assert.deepEqual(
      decisions.map((button) => [button.tagName, button.getAttribute('data-decision')]),
      [
        ['button', 'approve'],
        ['button', 'reject'],
      ],
    );
    assert.equal(items[1].findAll((element) => element.tagName === 'img').length, 0);
    assert.match(items[1].textContent, /<img src=x/);
  });

  test('redraws in place: an item that stays is the same element, a decided one leaves', () => {
    const doc = fakeDocument();
    const list = doc.createElement('ol');
    renderInbox(doc, list, [REFUND, DELETION]);
    const kept = list.children[1];
    renderInbox(doc, list, withoutApproval([REFUND, DELETION], 'apv_1'));
    assert.equal(list.children.length, 1);
    assert.equal(list.children[0], kept);
  });

  test('an approval asked for with identity off names nobody', () => {
    const doc = fakeDocument();
    const list = doc.createElement('ol');
    renderInbox(doc, list, [{ ...REFUND, requested_by: null }]);
    assert.match(list.textContent, /issue_refund · asked 2026-12-01/);
  });

  test('a decision leaves the inbox when it went through, was taken first by someone, or the run is gone', () => {
    assert.deepEqual(
      [200, 409, 404, 401, 403, 429, 500, 0].map(decisionSettles),
      [true, true, true, false, false, false, false, false],
    );
  });

  test('says how a decision went, in plain words', () => {
    assert.equal(decisionNote(REFUND, 'approve', { status: 200, body: {} }), 'You approved “Refund invoice INV-1001 ($42.00)”.');
    assert.equal(decisionNote(REFUND, 'reject', { status: 200, body: {} }), 'You rejected “Refund invoice INV-1001 ($42.00)”.');
    assert.equal(decisionNote(REFUND, 'approve', { status: 409, body: {} }), '“Refund invoice INV-1001 ($42.00)” was already decided.');
    assert.equal(
      decisionNote(REFUND, 'approve', { status: 403, body: { code: 'not_an_approver' } }),
      'Only approvers decide: your decision was not recorded.',
    );
    assert.equal(
      decisionNote(REFUND, 'approve', { status: 404, body: { code: 'run_not_found' } }),
      'This run does not exist, or it is not yours.',
    );
    assert.equal(
      decisionNote(REFUND, 'approve', { status: 503, body: { code: 'service_unavailable', detail: 'Try again soon.' } }),
      'Try again soon.',
    );
    assert.equal(
      decisionNote(REFUND, 'approve', { status: 0, body: {} }),
      'The decision on “Refund invoice INV-1001 ($42.00)” failed (HTTP 0).',
    );
  });

  test("a graph's interrupt is decided through its thread's runs, with command.resume", async () => {
    const api = recordingApi();
    await sendDecision(api, GRAPH_REFUND, 'approve');
    await sendDecision(api, GRAPH_REFUND, 'reject', 'not this one');
    await sendDecision(api, { ...GRAPH_REFUND, assistant_id: undefined }, 'approve');
    assert.deepEqual(api.calls, [
      ['startRun', 's_thread', { assistant_id: 'asst_react', command: { resume: { decision: 'approve' } } }],
      ['startRun', 's_thread', { assistant_id: 'asst_react', command: { resume: { decision: 'reject', comment: 'not this one' } } }],
      ['startRun', 's_thread', { assistant_id: 'react_agent', command: { resume: { decision: 'approve' } } }],
    ]);
  });

  test('an interrupt of a run that waits at several is answered alone, by its id', async () => {
    const api = recordingApi();
    await sendDecision(api, { ...GRAPH_REFUND, interrupt_id: 'int_2' }, 'reject', 'no');
    assert.deepEqual(api.calls, [
      [
        'startRun',
        's_thread',
        { assistant_id: 'asst_react', command: { resume: { int_2: { decision: 'reject', comment: 'no' } } } },
      ],
    ]);
  });

  test("the support agent's approvals are decided with POST /chat/resume, as before", async () => {
    const api = recordingApi();
    const answer = await sendDecision(api, REFUND, 'approve');
    await sendDecision(api, { ...REFUND, graph_id: '' }, 'reject', 'no');
    assert.deepEqual(answer, { ok: true, status: 200, body: {} });
    assert.deepEqual(api.calls, [
      ['resume', { run_id: 'r_alice', approval_id: 'apv_1', decision: 'approve' }],
      ['resume', { run_id: 'r_alice', approval_id: 'apv_1', decision: 'reject', comment: 'no' }],
    ]);
    assert.equal(isGraphApproval(REFUND), false);
    assert.equal(isGraphApproval(GRAPH_REFUND), true);
  });

  test("a graph's interrupt is listed with its graph, and left out without a thread to resume it on", () => {
    assert.deepEqual(pendingApprovals({ approvals: [REFUND, GRAPH_REFUND, { ...GRAPH_REFUND, session_id: '' }] }), [
      REFUND,
      GRAPH_REFUND,
    ]);
    const doc = fakeDocument();
    const list = doc.createElement('ol');
    renderInbox(doc, list, [REFUND, GRAPH_REFUND]);
    const items = list.findAll(byRole('inbox-item'));
    assert.deepEqual(
      items.map((item) => item.getAttribute('data-graph-id')),
      [null, 'react_agent'],
    );
    assert.match(items[1].textContent, /issue_refund · graph react_agent · asked by alice/);
    assert.doesNotMatch(items[0].textContent, /graph/);
  });

  test("a decision on a graph's interrupt reads as one on any other", () => {
    assert.equal(
      decisionNote(GRAPH_REFUND, 'approve', { status: 200, body: { run_id: 'r_graph', status: 'pending' } }),
      'You approved “Refund 42.00 EUR for order A-1001 (Rain jacket)”.',
    );
    assert.equal(
      decisionNote(GRAPH_REFUND, 'reject', { status: 409, body: { code: 'run_not_paused' } }),
      '“Refund 42.00 EUR for order A-1001 (Rain jacket)” was already decided.',
    );
  });

  test('moments read the same for everyone', () => {
    assert.equal(formatMoment('2026-12-01T06:40:59.999Z'), '2026-12-01 06:40 UTC');
    assert.equal(formatMoment('2026-12-01T08:40:00+02:00'), '2026-12-01 06:40 UTC');
    assert.equal(formatMoment('not a time'), '–');
    assert.equal(formatMoment(null), '–');
  });
});
