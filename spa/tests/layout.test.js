import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupOf, layoutGraph, ranks } from '../layout.js';
import { envelopes } from './support.js';

const edge = (source, target, conditional = false) => ({ source, target, conditional });
const topologyOf = (name) => envelopes(name)[0].data;

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('layout of any topology', () => {
  test('layers from __start__, and a loop back does not push its target to the right', () => {
    const rank = ranks(
      ['__start__', 'agent', 'tools', '__end__'],
      [edge('__start__', 'agent'), edge('agent', 'tools', true), edge('tools', 'agent'), edge('agent', '__end__', true)],
    );
    assert.deepEqual(Object.fromEntries(rank), { __start__: 0, agent: 1, tools: 2, __end__: 2 });
  });

  test('a graph that is one cycle (no entry, nothing without a predecessor) starts at its first node', () => {
    const layout = layoutGraph(topologyOf('graph-react'));
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    assert.ok(at.get('agent').x < at.get('tools').x);
    const back = layout.edges.find((e) => e.source === 'tools' && e.target === 'agent');
    assert.match(back.d, / C/, 'the edge back is an arc');
    const forward = layout.edges.find((e) => e.source === 'agent' && e.target === 'tools');
    assert.match(forward.d, / L/, 'the edge forward goes straight across');
  });

  test('a self-loop and an unreachable node are placed too, inside the drawing', () => {
    const layout = layoutGraph({
      nodes: ['a', 'b', 'c'].map((id) => ({ id, label: id })),
      edges: [edge('a', 'a'), edge('a', 'b'), edge('c', 'c')],
    });
    assert.equal(layout.nodes.length, 3);
    for (const node of layout.nodes) {
      assert.ok(node.x >= 0 && node.x + node.width <= layout.width, node.id);
      assert.ok(node.y >= 0 && node.y + node.height <= layout.height, node.id);
    }
    for (const drawn of layout.edges) assert.match(drawn.d, /^M[\d.]+,[\d.]+ [LC]/);
  });

  test('a subgraph is one box around its members, holding no other node, and the loop back to the planner is an arc', () => {
    const topology = topologyOf('graph-research');
    const layout = layoutGraph(topology);
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    assert.deepEqual(
      layout.groups.map((box) => box.id),
      ['research_step'],
    );
    const [box] = layout.groups;
    const members = layout.nodes.filter((node) => groupOf(node.id) === 'research_step');
    assert.deepEqual(members.map((node) => node.id).sort(), ['research_step:search', 'research_step:summarize']);
    for (const node of layout.nodes) {
      const inside = node.x >= box.x && node.x + node.width <= box.x + box.width && node.y >= box.y && node.y + node.height <= box.y + box.height;
      assert.equal(inside, members.includes(node), node.id);
      if (!members.includes(node)) assert.ok(!overlaps(node, box), `${node.id} is clear of the box`);
    }
    assert.ok(box.y >= 0 && box.y + box.height <= layout.height);
    assert.ok(at.get('planner').x < at.get('research_step:search').x);
    assert.ok(at.get('research_step:search').x < at.get('research_step:summarize').x);
    const back = layout.edges.find((e) => e.source === 'research_step:summarize' && e.target === 'planner');
    assert.match(back.d, / C/);
    for (let i = 0; i < layout.nodes.length; i += 1) {
      for (let j = i + 1; j < layout.nodes.length; j += 1) assert.ok(!overlaps(layout.nodes[i], layout.nodes[j]));
    }
  });

  test('group names come from the id before its last colon', () => {
    assert.equal(groupOf('research_step:search'), 'research_step');
    assert.equal(groupOf('outer:inner:node'), 'outer:inner');
    assert.equal(groupOf('planner'), null);
  });
});
