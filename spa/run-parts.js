// The parts of a run's state the reducer (state.js) builds it from: its nodes, as the topology names them and as
// they run, and its activity, one confirmed fact per step with the run's own last.

import { labelOf } from './selectors.js';
import { humanize } from './wire.js';

/** The turn is over: a node that never ran is skipped. */
export function settle(state) {
  const nodes = {};
  for (const [id, node] of Object.entries(state.nodes)) {
    nodes[id] = node.state === 'idle' ? { ...node, state: 'skipped' } : node;
  }
  return { ...state, nodes };
}

export function withTopology(state, topology, source) {
  return { ...state, topology, topologySource: source, nodes: nodesOf(topology, state.nodes) };
}

export function nodesOf(topology, known) {
  const nodes = { ...known };
  for (const { id, label } of topology.nodes) {
    nodes[id] = known[id] ? { ...known[id], label } : blankNode(label);
  }
  return nodes;
}

export function blankNode(label) {
  return { label, state: 'idle', step: null, latencyMs: null, outcome: '', summary: '' };
}

export function patchNode(state, id, patch) {
  const current = state.nodes[id] ?? blankNode(humanize(id));
  return { ...state.nodes, [id]: { ...current, ...patch } };
}

export function runningNode(state) {
  return Object.keys(state.nodes).find((id) => state.nodes[id].state === 'running') ?? null;
}

/** Record the last confirmed fact of a step (or of the run), replacing the step's previous fact. */
export function note(state, node, step, fact, tone) {
  const key = node === 'run' ? 'run' : step === null ? `node:${node}` : `step:${step}`;
  const row = { key, node, step, label: node === 'run' ? 'Run' : labelOf(state, node), text: fact, tone };
  const index = state.activity.findIndex((existing) => existing.key === key);
  const activity = index === -1 ? [...state.activity, row] : state.activity.with(index, row);
  if (key !== 'run') {
    // keep the run's own fact last
    const runIndex = activity.findIndex((existing) => existing.key === 'run');
    if (runIndex !== -1 && index === -1) activity.push(...activity.splice(runIndex, 1));
  }
  return { ...state, activity };
}
