// The run view: the live execution graph, the outcome and usage above it, the activity list, the connection in the
// status bar and the controls a run going on disables. Drawn from the store's state; it keeps only the drawn graph.

import { isSupport } from './assistants.js';
import { formatMs } from './format.js';
import { drawGraph, paintGraph } from './graph.js';
import { setText } from './render.js';
import { newRun, runStatus } from './state.js';
import { isActive } from './store.js';
import { renderActivity, renderOutcome, renderUsage } from './views.js';

const CONNECTION_WORDS = {
  idle: () => 'Ready',
  connecting: () => 'Connecting…',
  live: (run) => (run && runStatus(run) === 'waiting' ? 'Live: waiting for your decision' : 'Live'),
  reconnecting: (_, d) =>
    `Connection lost: reconnecting (attempt ${d.attempt} of ${d.maxAttempts}, in ${formatMs(d.delayMs)})`,
  closed: () => 'Stream closed after the run ended',
  lost: (_, d) =>
    d.signedOut ? 'Signed out: sign in again to keep watching this run' : 'Disconnected: could not reconnect',
  json: () => 'Live updates unavailable: answered as JSON',
  'json-pending': () => 'Waiting for the JSON answer (live updates off)',
  offline: () => 'The server could not be reached',
  replaying: (_, d) => `Replaying a recorded run (${d.name})`,
  replayed: (_, d) => `Replayed a recorded run (${d.name})`,
};

export function mountRunView({ doc, els }) {
  const drawn = { graph: null, key: '', followedNode: null };

  function renderGraph(run) {
    const topology = run?.topology ?? null;
    els.graphEmpty.hidden = topology !== null;
    if (topology === null) return;
    const key = JSON.stringify(topology);
    if (key !== drawn.key) {
      drawn.graph = drawGraph(doc, els.graph, topology);
      drawn.key = key;
    }
    paintGraph(drawn.graph, run);
    followActiveNode(run);
  }

  /** On a narrow screen the graph scrolls sideways: keep the node at work in view (sideways only). */
  function followActiveNode(run) {
    const active = Object.keys(run.nodes).find((id) => ['running', 'waiting', 'failed'].includes(run.nodes[id].state));
    if (!active || active === drawn.followedNode) return;
    drawn.followedNode = active;
    const frame = els.graph.parentElement;
    const group = drawn.graph.nodes.get(active)?.group;
    if (!group || frame.scrollWidth <= frame.clientWidth) return;
    const box = group.getBoundingClientRect();
    const view = frame.getBoundingClientRect();
    frame.scrollBy({ left: box.left + box.width / 2 - (view.left + view.width / 2), behavior: 'smooth' });
  }

  function renderConnection(state) {
    const { run, connection, connectionDetail } = state;
    const words = (CONNECTION_WORDS[connection] ?? (() => connection))(run, connectionDetail);
    els.connection.setAttribute('data-state', connection);
    setText(els.connection, connectionDetail.note ? `${words} (${connectionDetail.note})` : words);
    els.reconnect.hidden = !['reconnecting', 'lost'].includes(connection) || !(run?.runId ?? state.lost?.runId);
  }

  function renderControls(state) {
    const { run } = state;
    const active = isActive(state);
    els.send.disabled = active;
    els.newSession.disabled = active;
    els.replayFile.disabled = active;
    els.stop.disabled = !run || run.terminal || (!run.runId && !state.jsonRequest);
  }

  return {
    /** A new turn: the node at work is followed afresh. */
    newTurn() {
      drawn.followedNode = null;
    },
    render(state) {
      const { run } = state;
      renderOutcome(els.outcome, run, state.connection);
      renderUsage(els.usage, run);
      renderConnection(state);
      renderControls(state);
      if (!run) {
        const topology = isSupport(state.assistant) ? state.topology : null;
        renderGraph(topology ? { ...newRun({ topology }) } : null);
        return;
      }
      renderGraph(run);
      renderActivity(doc, els.activity, run.activity);
    },
  };
}
