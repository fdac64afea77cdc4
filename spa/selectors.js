// What the views read of a run's state (see state.js): its status to show, whether it succeeded, the edges it took,
// the scale of its latency bars, a node's label.

import { humanize } from './wire.js';

const TERMINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/** The run status to show: a terminal status only once the run has really ended. */
export function runStatus(state) {
  if (state.terminal) return state.status;
  return TERMINAL_STATUSES.has(state.status) ? 'running' : state.status;
}

/** True only for a run that ended with `turn_completed` (or a JSON ChatResponse that is not paused). */
export function isSuccess(state) {
  return state.terminal && state.status === 'completed' && state.error === null;
}

/** `source→target` for every edge the run took, from the order its nodes started. */
export function takenEdges(state) {
  const taken = new Set();
  for (let i = 1; i < state.path.length; i += 1) taken.add(`${state.path[i - 1]}→${state.path[i]}`);
  return taken;
}

/** The slowest settled node's latency, for scaling bars; 0 when none has one. */
export function slowestLatency(state) {
  return Object.values(state.nodes).reduce((max, node) => Math.max(max, node.latencyMs ?? 0), 0);
}

export function labelOf(state, nodeId) {
  return state.nodes[nodeId]?.label ?? humanize(nodeId);
}
