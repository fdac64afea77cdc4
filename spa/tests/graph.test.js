import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NODE_STATES, applyEnvelope, newRun } from '../state.js';
import { barWidth, drawGraph, layoutGraph, paintGraph, ranks } from '../graph.js';
import { envelopes, fakeDocument } from './support.js';

const topology = envelopes('normal')[0].data;
const PIPELINE = ['guardrail_pre', 'retrieve_context', 'generate_answer', 'human_approval', 'execute_action', 'guardrail_post'];

function reduce(name, state = newRun()) {
  return envelopes(name).reduce(applyEnvelope, state);
}

function drawn(doc = fakeDocument()) {
  const root = doc.createElementNS('http://www.w3.org/2000/svg', 'svg');
  return drawGraph(doc, root, topology);
}

describe('graph layout', () => {
  const layout = layoutGraph(topology);
  const at = new Map(layout.nodes.map((node) => [node.id, node]));

  test('runs left to right in the order the graph flows', () => {
    const xs = PIPELINE.map((id) => at.get(id).x);
    assert.deepEqual(
      xs,
      [...xs].sort((a, b) => a - b),
    );
    assert.equal(new Set(xs).size, PIPELINE.length);
    for (const node of layout.nodes) {
      assert.ok(node.x >= 0 && node.x + node.width <= layout.width, node.id);
      assert.ok(node.y >= 0 && node.y + node.height <= layout.height, node.id);
    }
  });

  test('keeps every edge, with its conditional flag, and arcs the ones that skip a rank', () => {
    assert.equal(layout.edges.length, topology.edges.length);
    for (const edge of layout.edges) {
      const source = topology.edges.find((e) => e.source === edge.source && e.target === edge.target);
      assert.equal(edge.conditional, source.conditional);
      assert.match(edge.d, /^M[\d.]+,[\d.]+ [LC]/);
    }
    const skip = layout.edges.find((e) => e.source === 'generate_answer' && e.target === 'guardrail_post');
    assert.match(skip.d, / C/);
  });

  test('ranks by the longest path, and survives a cycle', () => {
    const rank = ranks(['a', 'b', 'c'], [
      { source: 'a', target: 'b' },
      { source: 'b', target: 'c' },
      { source: 'a', target: 'c' },
    ]);
    assert.deepEqual([...rank.values()], [0, 1, 2]);
    const cyclic = ranks(['a', 'b'], [
      { source: 'a', target: 'b' },
      { source: 'b', target: 'a' },
    ]);
    assert.equal(new Set(cyclic.values()).size, 2);
  });

  test('latency bars scale to the slowest node and never vanish for a node that ran', () => {
    assert.equal(barWidth(100, 100, 120), 120);
    assert.equal(barWidth(50, 100, 120), 60);
    assert.equal(barWidth(0.01, 1000, 120), 2);
    assert.equal(barWidth(null, 100, 120), 0);
    assert.equal(barWidth(5, 0, 120), 0);
  });
});

describe('graph drawing', () => {
  test('every node is an element with data-node and a data-state from the allowed set', () => {
    const handles = drawn();
    assert.deepEqual([...handles.nodes.keys()], PIPELINE);
    for (const [id, handle] of handles.nodes) {
      assert.equal(handle.group.getAttribute('data-node'), id);
      assert.equal(handle.group.getAttribute('data-state'), 'idle');
    }
    const dashed = handles.edges.filter(({ path }) => path.getAttribute('data-conditional') === 'true');
    assert.equal(dashed.length, topology.edges.filter((edge) => edge.conditional).length);
  });

  test('painting follows the run: states, latency labels and bars, edges taken, the outcome on the root', () => {
    const handles = drawn();
    const events = envelopes('normal');
    let run = newRun();
    for (const envelope of events) {
      run = applyEnvelope(run, envelope);
      paintGraph(handles, run);
      for (const handle of handles.nodes.values()) assert.ok(NODE_STATES.includes(handle.group.getAttribute('data-state')));
    }
    const state = (id) => handles.nodes.get(id).group.getAttribute('data-state');
    assert.equal(state('retrieve_context'), 'completed');
    assert.equal(state('human_approval'), 'skipped');
    assert.equal(handles.root.getAttribute('data-outcome'), 'completed');
    assert.equal(handles.root.getAttribute('data-status'), 'completed');
    const generate = handles.nodes.get('generate_answer');
    assert.equal(Number(generate.bar.getAttribute('width')), generate.barWidth, 'the slowest node has the full bar');
    assert.match(generate.status.textContent, /^[\d.]+ m?s · answered$/);
    assert.match(generate.group.getAttribute('aria-label'), /^Generate answer: [\d.]+ m?s · answered$/);
    const taken = handles.edges
      .filter(({ path }) => path.getAttribute('data-taken') === 'true')
      .map(({ edge }) => `${edge.source}→${edge.target}`);
    assert.deepEqual(taken.sort(), [
      'generate_answer→guardrail_post',
      'guardrail_pre→retrieve_context',
      'retrieve_context→generate_answer',
    ]);
  });

  test('a refusal dims what never ran; a pause shows the waiting node; a failure the failed one', () => {
    const paint = (run) => {
      const handles = drawn();
      paintGraph(handles, run);
      return (id) => handles.nodes.get(id).group.getAttribute('data-state');
    };
    const refused = paint(reduce('refused'));
    assert.equal(refused('guardrail_pre'), 'completed');
    assert.equal(refused('retrieve_context'), 'skipped');
    const paused = paint(reduce('paused'));
    assert.equal(paused('human_approval'), 'waiting');
    assert.equal(paused('execute_action'), 'idle');
    const failed = paint(reduce('failed'));
    assert.equal(failed('generate_answer'), 'failed');
    assert.equal(failed('guardrail_post'), 'skipped');
  });
});
