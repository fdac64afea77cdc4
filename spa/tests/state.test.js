import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyEnvelope,
  applyEnvelopes,
  applyProblem,
  applyResponse,
  applyRunSnapshot,
  isSuccess,
  newRun,
  runStatus,
  streamEnded,
  takenEdges,
} from '../state.js';
import { deepFreeze, envelopes } from './support.js';

/** Reduce with every intermediate state frozen: a reducer that mutates its input throws here. */
function reduceFrozen(events, state = newRun({ message: 'q' })) {
  return events.reduce((current, envelope) => applyEnvelope(deepFreeze(current), deepFreeze(envelope)), state);
}

const states = (run) => Object.fromEntries(Object.entries(run.nodes).map(([id, node]) => [id, node.state]));
const facts = (run) => run.activity.map((row) => `${row.label}: ${row.text}`);
const finalResponse = (name) => envelopes(name).at(-1).data.response;

describe('a normal turn', () => {
  const events = envelopes('normal');
  const run = reduceFrozen(events);

  test('ends completed, with the answer, citations and usage of the final response', () => {
    const response = finalResponse('normal');
    assert.equal(run.terminal, true);
    assert.equal(run.outcome, 'completed');
    assert.equal(runStatus(run), 'completed');
    assert.equal(isSuccess(run), true);
    assert.equal(run.answer, response.answer.text);
    assert.equal(run.answerKind, 'answer');
    assert.deepEqual(run.citations, response.citations);
    assert.deepEqual(run.usage, response.usage);
    assert.equal(run.lastSeq, events.at(-1).seq);
    assert.equal(run.sessionId, events[0].data.session_id);
    const logged = events.find((envelope) => envelope.type === 'interaction_logged');
    assert.equal(run.interactionId, logged.data.interaction_id);
  });

  test('nodes that ran are completed with their latency; the approval branch is skipped', () => {
    assert.deepEqual(states(run), {
      guardrail_pre: 'completed',
      retrieve_context: 'completed',
      generate_answer: 'completed',
      human_approval: 'skipped',
      execute_action: 'skipped',
      guardrail_post: 'completed',
    });
    assert.equal(run.nodes.retrieve_context.summary, '3 passages found');
    assert.ok(run.nodes.generate_answer.latencyMs > run.nodes.guardrail_pre.latencyMs);
    assert.deepEqual(run.path, ['guardrail_pre', 'retrieve_context', 'generate_answer', 'guardrail_post']);
    assert.ok(takenEdges(run).has('generate_answer→guardrail_post'));
    assert.ok(!takenEdges(run).has('generate_answer→human_approval'));
  });

  test('the answer grows token by token before the turn ends, and only by the visible text', () => {
    const response = finalResponse('normal');
    let state = newRun();
    let grew = 0;
    for (const envelope of events.slice(0, -1)) {
      const before = state.answer;
      state = applyEnvelope(state, envelope);
      assert.ok(state.answer.startsWith(before));
      assert.ok(response.answer.text.startsWith(state.answer), 'no JSON envelope characters leak in');
      if (state.answer !== before) grew += 1;
      assert.equal(state.terminal, false);
    }
    assert.ok(grew > 10);
    assert.equal(state.answer, response.answer.text);
  });

  test('the activity panel holds the last confirmed fact of each step', () => {
    assert.deepEqual(facts(run), [
      'Input guardrail: message allowed',
      'Retrieve context: 3 passages found',
      'Generate answer: answered with 1 citation',
      'Output guardrail: passed',
      'Run: turn completed',
    ]);
    const midway = reduceFrozen(events.slice(0, 12));
    assert.equal(facts(midway).at(-1), 'Generate answer: writing the answer');
    assert.equal(midway.nodes.generate_answer.state, 'running');
  });
});

describe('a refused turn', () => {
  const run = reduceFrozen(envelopes('refused'));

  test('completes with status refused; retrieve_context never starts and is skipped', () => {
    assert.equal(run.outcome, 'refused');
    assert.equal(runStatus(run), 'completed');
    assert.equal(run.answerKind, 'refusal');
    assert.equal(run.nodes.guardrail_pre.state, 'completed');
    assert.equal(run.nodes.guardrail_pre.outcome, 'refused');
    for (const node of ['retrieve_context', 'generate_answer', 'human_approval', 'execute_action', 'guardrail_post']) {
      assert.equal(run.nodes[node].state, 'skipped', node);
    }
    assert.deepEqual(facts(run), [
      'Input guardrail: refused: prompt_injection',
      'Run: refused: the message was not answered',
    ]);
  });
});

describe('a turn paused for approval, then resumed', () => {
  const paused = reduceFrozen(envelopes('paused'));

  test('pauses: waiting, not terminal, the approval pending, later nodes still possible', () => {
    assert.equal(paused.terminal, false);
    assert.equal(paused.outcome, 'paused');
    assert.equal(runStatus(paused), 'waiting');
    assert.equal(isSuccess(paused), false);
    assert.deepEqual(paused.approval, {
      approval_id: paused.approval.approval_id,
      action: 'issue_refund',
      summary: 'Refund invoice INV-1001 ($42.00)',
    });
    assert.equal(paused.nodes.human_approval.state, 'waiting');
    assert.equal(paused.nodes.execute_action.state, 'idle');
    assert.equal(paused.nodes.guardrail_post.state, 'idle');
    assert.equal(facts(paused).at(-1), 'Human approval: approval pending: Refund invoice INV-1001 ($42.00)');
    assert.equal(paused.answer, 'I can refund invoice INV-1001 once a person approves it.');
  });

  test('the resume continues the same graph to completed and reports the human wait', () => {
    const run = reduceFrozen(envelopes('resumed'), paused);
    assert.equal(run.terminal, true);
    assert.equal(run.outcome, 'completed');
    assert.equal(run.answerKind, 'action_result');
    assert.equal(run.answer, finalResponse('resumed').answer.text);
    assert.equal(run.earlierAnswer, 'I can refund invoice INV-1001 once a person approves it.');
    assert.equal(run.humanWaitMs, envelopes('resumed').at(-1).human_wait_ms);
    assert.equal(run.approval, null);
    assert.deepEqual(states(run), {
      guardrail_pre: 'completed',
      retrieve_context: 'completed',
      generate_answer: 'completed',
      human_approval: 'completed',
      execute_action: 'completed',
      guardrail_post: 'completed',
    });
    assert.deepEqual(run.path.slice(-3), ['human_approval', 'execute_action', 'guardrail_post']);
    assert.ok(facts(run).includes('Human approval: approved: Refund invoice INV-1001 ($42.00)'));
  });

  test('the same resumed events from both open streams apply once', () => {
    const resumed = envelopes('resumed');
    const interleaved = resumed.flatMap((envelope) => [envelope, envelope]);
    assert.deepEqual(reduceFrozen(interleaved, paused), reduceFrozen(resumed, paused));
  });
});

describe('a failed and a cancelled turn', () => {
  test('a node failing mid-stream is failed, not success; what never ran is skipped', () => {
    const run = reduceFrozen(envelopes('failed'));
    assert.equal(run.terminal, true);
    assert.equal(run.outcome, 'failed');
    assert.equal(runStatus(run), 'failed');
    assert.equal(isSuccess(run), false);
    assert.equal(run.error.code, 'provider_stream_failed');
    assert.equal(run.nodes.generate_answer.state, 'failed');
    assert.equal(run.nodes.guardrail_post.state, 'skipped');
    assert.equal(run.nodes.retrieve_context.state, 'completed');
    assert.match(facts(run).at(-2), /^Generate answer: failed: /);
  });

  test('a cancelled run is cancelled', () => {
    const run = reduceFrozen(envelopes('cancelled'));
    assert.equal(run.outcome, 'cancelled');
    assert.equal(runStatus(run), 'cancelled');
    assert.equal(run.error.code, 'cancelled');
    assert.equal(isSuccess(run), false);
  });
});

describe('the contract rules every client keeps', () => {
  const events = envelopes('normal');
  const whole = reduceFrozen(events);

  test('duplicates by seq change nothing, however they arrive', () => {
    assert.deepEqual(reduceFrozen(events.flatMap((envelope) => [envelope, envelope])), whole);
    const replayedFromStart = [...events.slice(0, 20), ...events];
    assert.deepEqual(reduceFrozen(replayedFromStart), whole);
    const older = events.slice(0, 10).reverse();
    assert.deepEqual(reduceFrozen([...events.slice(0, 15), ...older, ...events.slice(15)]), whole);
  });

  test('a stream that ends without a terminal event is never success', () => {
    const cut = streamEnded(reduceFrozen(events.slice(0, 30)));
    assert.equal(cut.interrupted, true);
    assert.equal(cut.terminal, false);
    assert.equal(isSuccess(cut), false);
    assert.equal(runStatus(cut), 'running');
    assert.equal(cut.outcome, null);
    assert.equal(cut.nodes.guardrail_post.state, 'idle', 'nothing is marked skipped while the run may go on');
    // even an envelope claiming a terminal status does not end the run without a terminal event
    const claim = { ...events[5], seq: 31, status: 'completed' };
    const claimed = streamEnded(applyEnvelope(reduceFrozen(events.slice(0, 30)), claim));
    assert.equal(runStatus(claimed), 'running');
    assert.equal(isSuccess(claimed), false);
    // everything before the cut, in order, then everything from it after a reconnect: no duplicate text
    const resumed = reduceFrozen(events.slice(25), cut);
    assert.equal(resumed.interrupted, false);
    assert.deepEqual({ ...resumed, interrupted: false }, whole);
  });

  test('unknown event types and unknown fields are ignored', () => {
    const future = events.map((envelope) => ({
      ...envelope,
      novel: { nested: true },
      data: { ...envelope.data, added_later: [1, 2, 3] },
    }));
    const withUnknown = reduceFrozen(future);
    assert.deepEqual(states(withUnknown), states(whole));
    assert.equal(withUnknown.answer, whole.answer);
    assert.deepEqual(facts(withUnknown), facts(whole));
    // an unknown type moves the cursor and nothing else
    const before = reduceFrozen(events.slice(0, 10));
    const after = applyEnvelope(before, { ...events[10], type: 'thought_bubble', data: { text: 'hmm' } });
    assert.deepEqual(after, { ...before, lastSeq: events[10].seq });
    for (const type of ['constructor', '__proto__', 'toString']) {
      assert.deepEqual(applyEnvelope(before, { ...events[10], type }), { ...before, lastSeq: events[10].seq });
    }
  });

  test('malformed envelopes and events of another run change nothing', () => {
    const start = reduceFrozen(events.slice(0, 5));
    for (const bad of [null, 42, 'x', [], {}, { type: 'node_started', seq: 'six', run_id: start.runId }]) {
      assert.equal(applyEnvelope(start, bad), start);
    }
    assert.equal(applyEnvelope(start, { ...events[5], run_id: 'r_other' }), start);
    const odd = applyEnvelope(start, { ...events[5], data: null });
    assert.equal(odd.lastSeq, events[5].seq);
  });

  test('a snapshot standing in for events that left the replay window', () => {
    const paused = envelopes('paused');
    const run = reduceFrozen([paused[0]]);
    const response = { ...finalResponse('normal'), status: 'paused', answer: { kind: 'action_proposal', text: 'P' } };
    const snapshot = {
      type: 'snapshot',
      v: 1,
      run_id: run.runId,
      seq: paused.at(-2).seq,
      status: 'waiting',
      at: paused.at(-1).at,
      data: { gap: true, run: { status: 'waiting', response, pending_approval: paused.at(-1).data.approval } },
    };
    const after = reduceFrozen([snapshot, paused.at(-1)], run);
    assert.equal(after.gap, true);
    assert.equal(after.outcome, 'paused');
    assert.equal(after.answer, 'P');
    assert.equal(after.approval.summary, 'Refund invoice INV-1001 ($42.00)');
    assert.equal(runStatus(after), 'waiting');
  });
});

describe('the JSON path and HTTP answers', () => {
  const topology = envelopes('normal')[0].data;

  test('a ChatResponse draws the graph after the turn: from the trace alone, or on a known topology', () => {
    const response = finalResponse('normal');
    const bare = applyResponse(deepFreeze(newRun({ mode: 'json' })), response);
    assert.equal(bare.terminal, true);
    assert.equal(bare.topologySource, 'trace');
    assert.deepEqual(
      bare.topology.nodes.map((node) => node.id),
      response.trace.map((entry) => entry.node),
    );
    assert.equal(bare.nodes.generate_answer.latencyMs, response.trace[2].latency_ms);
    const known = applyResponse(deepFreeze(newRun({ mode: 'json', topology })), response);
    assert.equal(known.nodes.human_approval.state, 'skipped');
    assert.equal(known.nodes.guardrail_post.state, 'completed');
    assert.equal(isSuccess(known), true);
  });

  test('a paused ChatResponse waits, and the resume response completes it', () => {
    const pausedResponse = {
      ...finalResponse('normal'),
      status: 'paused',
      answer: { kind: 'action_proposal', text: 'I can refund it once a person approves it.' },
      pending_approval: { approval_id: 'apv_1', action: 'issue_refund', summary: 'Refund invoice INV-1001 ($42.00)' },
      trace: finalResponse('normal').trace.slice(0, 3),
    };
    const paused = applyResponse(deepFreeze(newRun({ mode: 'json', topology })), pausedResponse);
    assert.equal(paused.terminal, false);
    assert.equal(runStatus(paused), 'waiting');
    assert.equal(paused.nodes.human_approval.state, 'waiting');
    assert.equal(paused.nodes.execute_action.state, 'idle');
    const done = applyResponse(deepFreeze(paused), finalResponse('resumed'));
    assert.equal(done.terminal, true);
    assert.equal(done.earlierAnswer, 'I can refund it once a person approves it.');
    assert.equal(done.approval, null);
    assert.equal(done.nodes.execute_action.state, 'completed');
  });

  test('a problem answer fails the turn, or cancels it', () => {
    const failed = applyProblem(deepFreeze(newRun({ topology })), {
      code: 'provider_stream_failed',
      detail: 'broke off',
      run_id: 'r_1',
    }, 502);
    assert.equal(runStatus(failed), 'failed');
    assert.equal(failed.error.retryable, true);
    assert.equal(failed.runId, 'r_1');
    assert.equal(isSuccess(failed), false);
    const cancelled = applyProblem(deepFreeze(newRun()), { code: 'run_cancelled', detail: 'cancelled' }, 409);
    assert.equal(runStatus(cancelled), 'cancelled');
    const opaque = applyProblem(deepFreeze(newRun()), 'not json', 500);
    assert.equal(opaque.error.code, 'http_500');
  });

  test('a RunSnapshot settles a run only when the server says it ended', () => {
    const run = reduceFrozen(envelopes('paused'));
    const stillWaiting = applyRunSnapshot(run, { run_id: run.runId, status: 'waiting', response: null, error: null });
    assert.equal(stillWaiting.terminal, false);
    const cancelled = applyRunSnapshot(run, {
      run_id: run.runId,
      status: 'cancelled',
      error: { code: 'cancelled', message: 'The run was cancelled.', retryable: false, node: null },
    });
    assert.equal(runStatus(cancelled), 'cancelled');
    assert.equal(cancelled.nodes.human_approval.state, 'failed');
    assert.equal(applyRunSnapshot(run, { run_id: 'r_someone_else', status: 'completed' }), run);
  });

  test('envelopes apply in batches the same as one by one', () => {
    const events = envelopes('normal');
    assert.deepEqual(applyEnvelopes(newRun({ message: 'q' }), events), reduceFrozen(events));
  });
});
