import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STREAM_MODES, assistantsOf, inputFor, isSupport, resumeFor } from '../assistants.js';
import { drawGraph, paintGraph } from '../graph.js';
import { answerOfOutput, contentText, describeInterrupt } from '../messages.js';
import { applyEnvelope, applyEnvelopes, newRun, runStarted, runStatus } from '../state.js';
import { interruptCard } from '../views.js';
import { deepFreeze, envelopes, fakeDocument } from './support.js';

const react = envelopes('graph-react');
const research = envelopes('graph-research');
const pausedAt = react.findIndex((envelope) => envelope.type === 'paused');

function descendants(element) {
  return (element.childNodes ?? []).flatMap((child) => [child, ...descendants(child)]);
}

function draw(topology) {
  const doc = fakeDocument();
  return drawGraph(doc, doc.createElementNS('http://www.w3.org/2000/svg', 'svg'), topology);
}

describe('a registered graph paused at its interrupt, then resumed', () => {
  const paused = applyEnvelopes(newRun({ mode: 'graph' }), react.slice(0, pausedAt + 1));

  test('the answer forms from the root graph messages parts, and the node that stopped waits', () => {
    assert.equal(runStatus(paused), 'waiting');
    assert.equal(paused.outcome, 'paused');
    assert.equal(paused.answer, 'I will ask for the refund of order A-1001.');
    assert.equal(paused.nodes.tools.state, 'waiting');
    assert.equal(paused.nodes.agent.state, 'completed');
    assert.deepEqual(paused.path, ['agent', 'tools', 'agent', 'tools']);
  });

  test('its interrupts are kept with their values, and the approval names the action', () => {
    assert.equal(paused.interrupts.length, 1);
    const [interrupt] = paused.interrupts;
    assert.equal(interrupt.value.action, 'issue_refund');
    assert.deepEqual(interrupt.value.args, { order_id: 'A-1001', reason: 'the customer asked' });
    assert.equal(paused.approval.approval_id, interrupt.id);
    assert.match(paused.approval.summary, /^Refund 42\.00 EUR for order A-1001/);
  });

  test('the resume continues the same run: the proposal is kept apart, the final state is the answer', () => {
    const done = applyEnvelopes(paused, react.slice(pausedAt + 1));
    assert.equal(done.runId, paused.runId);
    assert.equal(done.terminal, true);
    assert.equal(runStatus(done), 'completed');
    assert.equal(done.outcome, 'completed');
    assert.equal(done.earlierAnswer, 'I will ask for the refund of order A-1001.');
    assert.equal(done.answer, 'Refunded 42.00 EUR for order A-1001.');
    assert.deepEqual(done.interrupts, []);
    assert.equal(done.approval, null);
    assert.equal(done.nodes.tools.state, 'completed');
    assert.equal(done.activity.at(-1).text, 'turn completed');
  });

  test('envelopes are never mutated, and a run started before its first event takes only its own', () => {
    const started = runStarted(newRun({ mode: 'graph' }), react[0].run_id);
    const frozen = react.map((envelope) => deepFreeze(structuredClone(envelope)));
    const done = applyEnvelopes(started, frozen);
    assert.equal(done.terminal, true);
    const other = applyEnvelope(started, { ...research[0] });
    assert.equal(other, started);
  });

  test('the graph draws every node of the topology and paints the run on it', () => {
    const handles = draw(react[0].data);
    assert.deepEqual([...handles.nodes.keys()], ['agent', 'tools']);
    paintGraph(handles, paused);
    assert.equal(handles.nodes.get('tools').group.getAttribute('data-state'), 'waiting');
    assert.equal(handles.root.getAttribute('data-status'), 'waiting');
    const done = applyEnvelopes(paused, react.slice(pausedAt + 1));
    paintGraph(handles, done);
    assert.equal(handles.nodes.get('tools').group.getAttribute('data-state'), 'completed');
    const taken = handles.edges.filter(({ path }) => path.getAttribute('data-taken') === 'true').map(({ edge }) => edge.source);
    assert.deepEqual(taken.sort(), ['agent', 'tools']);
  });
});

describe('a registered graph with a subgraph in a loop', () => {
  const done = applyEnvelopes(newRun({ mode: 'graph' }), research);

  test('subgraph nodes are painted by their ids; the subgraph box follows the subgraph node', () => {
    const handles = draw(research[0].data);
    assert.deepEqual([...handles.groups.keys()], ['research_step']);
    const midway = applyEnvelopes(newRun({ mode: 'graph' }), research.filter((e) => e.seq <= 7));
    paintGraph(handles, midway);
    assert.equal(handles.nodes.get('research_step:search').group.getAttribute('data-state'), 'running');
    assert.equal(handles.groups.get('research_step').group.getAttribute('data-state'), 'running');
    paintGraph(handles, done);
    assert.equal(handles.nodes.get('research_step:summarize').group.getAttribute('data-state'), 'completed');
    assert.equal(handles.groups.get('research_step').group.getAttribute('data-state'), 'completed');
  });

  test('the edges taken follow the drawn nodes, not the subgraph node that wraps them', () => {
    assert.ok(!done.path.includes('research_step'));
    assert.deepEqual(done.path.slice(0, 4), ['planner', 'research_step:search', 'research_step:summarize', 'planner']);
  });

  test('only the root graph messages are the answer: the notes written inside the subgraph are not', () => {
    assert.match(done.answer, /^Report on shipping\. clouds: In short: Clouds form/);
    assert.equal(done.answer, done.output.report);
  });

  test('facts of subgraph nodes are kept per node, not mixed with the root steps they share numbers with', () => {
    const planner = done.activity.filter((row) => row.node === 'planner');
    const search = done.activity.filter((row) => row.node === 'research_step:search');
    assert.ok(planner.length >= 1);
    assert.equal(search.length, 1);
    assert.equal(new Set(done.activity.map((row) => row.key)).size, done.activity.length);
  });
});

describe("the support agent's run as a registered graph (its eval's event log)", () => {
  const envelope = (seq, type, data, status = 'running') => ({ v: 1, run_id: 'eval-s-1', seq, type, status, data });
  const token = (text, last = false) => ({
    delta: text,
    text,
    finish_reason: last ? 'stop' : null,
    input_tokens: last ? 12 : 0,
    output_tokens: last ? 3 : 0,
    latency_ms: 1,
    model: 'stub-1',
    metadata: {},
  });
  const logged = [
    envelope(1, 'graph_topology', { session_id: 'eval-s-1', nodes: [{ id: 'generate_answer', label: 'Generate answer' }], edges: [] }),
    envelope(2, 'node_started', { node: 'generate_answer', step: 3, ns: [] }),
    envelope(3, 'graph_part', { mode: 'custom', ns: [], data: token('Open ') }),
    envelope(4, 'graph_part', { mode: 'custom', ns: [], data: token('Settings.', true) }),
    envelope(5, 'graph_part', { mode: 'custom', ns: [], data: { model: 'stub-1', input_tokens: 12, output_tokens: 3, cost_usd: 0 } }),
    envelope(6, 'graph_part', { mode: 'custom', ns: [], data: { progress: 'a write of the graph\'s own' } }),
  ];

  test('its custom token writes draw the answer as it forms, its cost the usage', () => {
    const run = applyEnvelopes(newRun({ mode: 'graph' }), logged);
    assert.equal(run.answer, 'Open Settings.');
    assert.equal(run.usage.model, 'stub-1');
    assert.equal(run.usage.output_tokens, 3);
  });

  test("its final state's answer text stands over the streamed one", () => {
    const done = envelope(7, 'run_completed', { output: { status: 'completed', answer: { kind: 'answer', text: 'Open Settings, then Security.' } } }, 'completed');
    const run = applyEnvelopes(newRun({ mode: 'graph' }), [...logged, done]);
    assert.equal(run.answer, 'Open Settings, then Security.');
    assert.equal(runStatus(run), 'completed');
  });
});

describe('assistants, inputs and resumes', () => {
  test('the search answer: malformed entries left out, the support agent first', () => {
    const found = assistantsOf([
      { assistant_id: 'a1', graph_id: 'react_agent', name: 'react_agent', description: null },
      { graph_id: 'broken' },
      { assistant_id: 'a0', graph_id: 'support', name: 'support_agent', description: 'The built-in agent.' },
    ]);
    assert.deepEqual(
      found.map((assistant) => assistant.graph_id),
      ['support', 'react_agent'],
    );
    assert.equal(found[1].description, '');
    assert.ok(isSupport(found[0]) && isSupport(null) && !isSupport(found[1]));
    assert.deepEqual(assistantsOf({ detail: 'nope' }), []);
    assert.ok(STREAM_MODES.includes('messages-tuple'));
  });

  test('a message becomes messages, or the first text field of an input without messages', () => {
    const messages = { messages: [{ role: 'user', content: 'hi' }] };
    assert.deepEqual(inputFor(null, 'hi'), messages);
    assert.deepEqual(inputFor({ properties: { messages: { type: 'array' } } }, 'hi'), messages);
    const research = { properties: { topic: { type: 'string' }, plan: { type: 'array' }, report: { type: 'string' } } };
    assert.deepEqual(inputFor(research, 'hi'), { topic: 'hi' });
    assert.deepEqual(inputFor({ properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['b'] }, 'x'), { b: 'x' });
    assert.deepEqual(inputFor({ properties: { n: { type: 'integer' } } }, 'hi'), messages);
  });

  test('one interrupt is answered with the decision; several, each by its id', () => {
    assert.deepEqual(resumeFor([{ id: 'i1' }], 'approve'), { decision: 'approve' });
    assert.deepEqual(resumeFor([{ id: 'i1' }], 'reject', 'too much'), { decision: 'reject', comment: 'too much' });
    assert.deepEqual(resumeFor([{ id: 'i1' }, { id: 'i2' }], 'approve'), {
      i1: { decision: 'approve' },
      i2: { decision: 'approve' },
    });
  });

  test('messages: text of content blocks, the answer of a final state, an interrupt in words', () => {
    assert.equal(contentText([{ type: 'text', text: 'a' }, { type: 'image_url' }, 'b']), 'ab');
    assert.equal(contentText(null), '');
    assert.equal(answerOfOutput({ messages: [{ type: 'human', content: 'q' }, { type: 'ai', content: 'a' }, { type: 'tool', content: 't' }] }), 'a');
    assert.equal(answerOfOutput({ topic: 't', subject: '', report: 'r' }), 'r');
    assert.equal(answerOfOutput({ count: 3 }), null);
    assert.equal(answerOfOutput({ status: 'completed', answer: { kind: 'answer', text: 'Open Settings.' } }), 'Open Settings.');
    assert.deepEqual(describeInterrupt({ action: 'x', summary: 'Do x', args: { a: 1 } }), {
      summary: 'Do x',
      action: 'x',
      args: '{\n  "a": 1\n}',
      json: '',
    });
    assert.deepEqual(describeInterrupt({ question: 'ok?' }).json, '{\n  "question": "ok?"\n}');
    assert.equal(describeInterrupt('Continue?').summary, 'Continue?');
  });

  test('the interrupt card shows each value as text, with the approval hooks', () => {
    const doc = fakeDocument();
    const card = interruptCard(
      doc,
      [
        { id: 'i1', value: { action: 'issue_refund', summary: '<b>Refund</b>', args: { order_id: 'A-1001' } } },
        { id: 'i2', value: { question: 'why?' } },
      ],
      3,
    );
    assert.equal(card.getAttribute('data-role'), 'approval');
    assert.match(card.textContent, /<b>Refund<\/b>/);
    assert.match(card.textContent, /"order_id": "A-1001"/);
    assert.match(card.textContent, /"question": "why\?"/);
    assert.match(card.textContent, /2 requests/);
    const actions = descendants(card)
      .filter((element) => element.getAttribute?.('data-action'))
      .map((button) => button.getAttribute('data-action'));
    assert.deepEqual(actions, ['approve', 'reject']);
  });
});
