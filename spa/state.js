// The state of one run (one turn of the conversation), as pure functions: every `apply*` takes a
// state and returns a new one, never touching the old. The stream's envelopes, a JSON ChatResponse,
// a problem+json answer and a RunSnapshot all land here, so the page draws one thing whatever the path.
//
// Rules the contract asks of every client, kept here so they are tested once:
// - an envelope whose seq is not above the last one applied is a duplicate and changes nothing;
// - unknown event types and fields are ignored (an unknown type still moves the cursor);
// - the run is over only on a terminal event (`turn_completed`, `run_completed`, `error`) or a definitive HTTP answer;
//   a stream that closes before that leaves the run unfinished (`interrupted`), never successful.
// A run of a registered graph (not the support agent) lands here too: its answer forms from the root
// graph's `graph_part` messages, it pauses at interrupts, and `run_completed` ends it with its final state.
// The values read off the wire are checked by wire.js, the nodes and activity built by run-parts.js, and what the
// views read of a run (its status, the edges taken) is selectors.js, re-exported here.

import { answerOfOutput, contentText, isAiMessage, isChunk } from './messages.js';
import { nodesOf, note, patchNode, runningNode, settle, withTopology } from './run-parts.js';
import {
  approvalOf,
  approvalOfInterrupt,
  errorOf,
  inSubgraph,
  interruptsOf,
  isCitation,
  isEnvelope,
  isObject,
  number,
  stepOf,
  text,
  topologyFromTrace,
  topologyOf,
} from './wire.js';

export { isSuccess, labelOf, runStatus, slowestLatency, takenEdges } from './selectors.js';

export const NODE_STATES = Object.freeze(['idle', 'running', 'completed', 'skipped', 'failed', 'waiting']);
const RUN_STATUSES = new Set(['running', 'waiting', 'completed', 'failed', 'cancelled']);

/** A fresh run. `topology` may come from an earlier turn, for the JSON path that has none of its own. */
export function newRun({ message = '', topology = null, mode = 'stream' } = {}) {
  return {
    runId: null,
    sessionId: null,
    message,
    mode,
    lastSeq: 0,
    status: 'running',
    terminal: false,
    interrupted: false,
    outcome: null,
    topology,
    topologySource: topology ? 'cached' : null,
    nodes: topology ? nodesOf(topology, {}) : {},
    path: [],
    answer: '',
    answerKind: null,
    streamedChunks: 0,
    earlierAnswer: null,
    citations: [],
    usage: null,
    approval: null,
    interrupts: [],
    answerMessageId: null,
    output: null,
    response: null,
    error: null,
    humanWaitMs: null,
    interactionId: null,
    gap: false,
    activity: [],
  };
}

/** The run's id, known before its first event (a registered graph's run is started, then followed). */
export function runStarted(state, runId) {
  return state.runId === null ? { ...state, runId } : state;
}

/** Apply one SSE envelope (the parsed `data` of a frame). */
export function applyEnvelope(state, envelope) {
  if (!isEnvelope(envelope)) return state;
  if (state.runId !== null && envelope.run_id !== state.runId) return state;
  if (envelope.seq <= state.lastSeq || state.terminal) return state;
  const next = { ...state, runId: envelope.run_id, lastSeq: envelope.seq, interrupted: false };
  if (RUN_STATUSES.has(envelope.status)) next.status = envelope.status;
  const handler = HANDLERS.get(envelope.type);
  const data = isObject(envelope.data) ? envelope.data : {};
  return handler ? handler(next, data, envelope) : next;
}

export function applyEnvelopes(state, envelopes) {
  return envelopes.reduce(applyEnvelope, state);
}

/** The stream closed. Without a terminal event before it, the run is unfinished, whatever it said last. */
export function streamEnded(state) {
  return state.terminal ? state : { ...state, interrupted: true };
}

/** A ChatResponse from the JSON path (`POST /chat` or `/chat/resume` without streaming). */
export function applyResponse(state, response) {
  if (!isObject(response)) return state;
  let next = { ...state, interrupted: false };
  if (!next.topology && Array.isArray(response.trace)) {
    next = withTopology(next, topologyFromTrace(response.trace), 'trace');
  }
  if (state.outcome === 'paused' && response.status !== 'paused') {
    next = { ...next, earlierAnswer: state.answer, approval: null };
  }
  next.status = response.status === 'paused' ? 'waiting' : 'completed';
  return withResponse(next, response, { settle: response.status !== 'paused' });
}

/** A problem+json answer (RFC 9457) to a turn request: the turn failed, was cancelled, or never started. */
export function applyProblem(state, problem, httpStatus = 0) {
  const body = isObject(problem) ? problem : {};
  const code = text(body.code) || `http_${httpStatus}`;
  const cancelled = code === 'run_cancelled' || code === 'cancelled';
  return fail(
    { ...state, runId: state.runId ?? (text(body.run_id) || null) },
    {
      code,
      message: text(body.detail) || text(body.title) || `The request failed (HTTP ${httpStatus}).`,
      retryable: httpStatus === 429 || httpStatus === 502 || httpStatus === 503,
      node: null,
    },
    cancelled ? 'cancelled' : 'failed',
  );
}

/** A RunSnapshot (`GET /runs/{id}`, or the answer to a cancel) confirmed by the server. */
export function applyRunSnapshot(state, snapshot) {
  if (!isObject(snapshot) || (state.runId !== null && snapshot.run_id !== state.runId)) return state;
  const next = { ...state, runId: text(snapshot.run_id) || state.runId, sessionId: text(snapshot.session_id) || null };
  if (snapshot.status === 'completed' && isObject(snapshot.response)) return applyResponse(next, snapshot.response);
  if ((snapshot.status === 'failed' || snapshot.status === 'cancelled') && isObject(snapshot.error)) {
    return fail(next, errorOf(snapshot.error), snapshot.status);
  }
  return next;
}

// --- event handlers ---

const HANDLERS = new Map([
  ['graph_topology', onTopology],
  ['node_started', onNodeStarted],
  ['node_completed', onNodeCompleted],
  ['token_delta', onTokenDelta],
  ['cost_updated', onCostUpdated],
  ['paused', onPaused],
  ['interaction_logged', onInteractionLogged],
  ['error', onError],
  ['turn_completed', onTurnCompleted],
  ['snapshot', onSnapshot],
  ['graph_part', onGraphPart],
  ['run_completed', onRunCompleted],
]);

function onTopology(state, data, envelope) {
  const topology = topologyOf(data);
  if (topology === null) return state;
  let next = withTopology(state, topology, 'stream');
  if (text(data.session_id)) next.sessionId = data.session_id;
  if (envelope.seq > 1 && state.outcome === 'paused') {
    // a resume opens with the topology again: the proposal is kept apart and the answer starts anew
    next = {
      ...next,
      earlierAnswer: state.answer,
      answer: '',
      answerKind: null,
      answerMessageId: null,
      approval: null,
      interrupts: [],
      outcome: null,
    };
  }
  return next;
}

function onNodeStarted(state, data) {
  if (!text(data.node)) return state;
  const step = inSubgraph(data) ? null : stepOf(data);
  // a subgraph's own node (`research_step`, whose members are drawn) is no stop on the path of edges
  const drawn = state.topology === null || state.topology.nodes.some((node) => node.id === data.node);
  const path = state.path.at(-1) === data.node || !drawn ? state.path : [...state.path, data.node];
  const next = { ...state, path, nodes: patchNode(state, data.node, { state: 'running', step }) };
  return note(next, data.node, step, 'started', 'running');
}

function onNodeCompleted(state, data) {
  if (!text(data.node)) return state;
  const step = inSubgraph(data) ? null : (stepOf(data) ?? state.nodes[data.node]?.step ?? null);
  const outcome = text(data.outcome);
  const summary = text(data.summary) || outcome || 'done';
  const patch = { state: 'completed', step, outcome, summary, latencyMs: number(data.latency_ms) };
  const next = { ...state, nodes: patchNode(state, data.node, patch) };
  return note(next, data.node, step, summary, outcome === 'refused' ? 'warn' : 'ok');
}

function onTokenDelta(state, data) {
  const piece = typeof data.text === 'string' ? data.text : '';
  const next = { ...state, answer: state.answer + piece, streamedChunks: state.streamedChunks + 1 };
  if (state.answer === '' && piece !== '') {
    const running = runningNode(state);
    if (running) return note(next, running, state.nodes[running].step, 'writing the answer', 'running');
  }
  return next;
}

function onCostUpdated(state, data) {
  return {
    ...state,
    usage: {
      model: text(data.model),
      input_tokens: number(data.input_tokens) ?? 0,
      output_tokens: number(data.output_tokens) ?? 0,
      cost_usd: number(data.cost_usd),
    },
  };
}

function onPaused(state, data) {
  const interrupts = interruptsOf(data.interrupts);
  const approval = approvalOf(data.approval) ?? approvalOfInterrupt(interrupts[0]);
  if (approval === null) return state;
  let waitingNode = runningNode(state);
  if (!waitingNode && state.nodes.human_approval) waitingNode = 'human_approval';
  // a registered graph's node that stopped at interrupt() has completed as `interrupted`
  waitingNode ??= state.path.findLast((id) => state.nodes[id]?.outcome === 'interrupted') ?? null;
  const nodes = waitingNode ? patchNode(state, waitingNode, { state: 'waiting' }) : state.nodes;
  const next = { ...state, nodes, approval, interrupts, outcome: 'paused' };
  const step = waitingNode ? (state.nodes[waitingNode]?.step ?? null) : null;
  return note(next, waitingNode ?? 'run', step, `approval pending: ${approval.summary}`, 'wait');
}

function onInteractionLogged(state, data) {
  return text(data.interaction_id) ? { ...state, interactionId: data.interaction_id } : state;
}

function onError(state, data, envelope) {
  return fail(state, errorOf(data), envelope.status === 'cancelled' ? 'cancelled' : 'failed');
}

function onTurnCompleted(state, data, envelope) {
  const next = { ...state, status: 'completed', humanWaitMs: number(envelope.human_wait_ms) };
  if (!isObject(data.response)) return settle({ ...next, terminal: true, outcome: 'completed' });
  return withResponse(next, data.response, { settle: true });
}

function onSnapshot(state, data) {
  const run = data.run;
  if (!isObject(run)) return state;
  let next = { ...state, gap: true };
  if (isObject(run.response)) next = withResponse(next, run.response, { settle: false });
  const approval = approvalOf(run.pending_approval);
  if (approval !== null && run.status === 'waiting') next = { ...next, approval, outcome: 'paused' };
  return next;
}

/** One part of a registered graph's stream: the root graph's AI messages are the answer as it forms. */
function onGraphPart(state, data) {
  if (data.mode === 'custom' && !inSubgraph(data)) return onCustomPart(state, data.data);
  if (data.mode !== 'messages' || !Array.isArray(data.data)) return state;
  const message = data.data[0];
  const next = { ...state, streamedChunks: state.streamedChunks + 1 };
  if (inSubgraph(data) || !isAiMessage(message)) return next;
  const piece = contentText(message.content);
  const id = text(message.id) || null;
  if (id !== null && id === state.answerMessageId) {
    return isChunk(message) ? { ...next, answer: state.answer + piece } : { ...next, answer: piece };
  }
  if (piece === '') return next; // a message that has said nothing yet does not replace the answer shown
  return { ...next, answer: piece, answerMessageId: id, answerKind: 'answer' };
}

/**
 * A graph's own `custom` write. The support agent's nodes write their token deltas and cost that way (its
 * runs through the Agent Protocol, and the event logs `harness eval` records of them): those draw the answer
 * as it forms and the cost; any other write is the graph's own business.
 */
function onCustomPart(state, write) {
  if (!write || typeof write !== 'object') return state;
  if (typeof write.delta === 'string' && typeof write.text === 'string' && 'finish_reason' in write) {
    return onTokenDelta(state, write);
  }
  if (typeof write.model === 'string' && 'cost_usd' in write && Number.isFinite(write.input_tokens)) {
    return onCostUpdated(state, write);
  }
  return state;
}

/** Terminal for a registered graph's run: its final state, whose answer stands over the streamed one. */
function onRunCompleted(state, data) {
  const answer = answerOfOutput(data.output);
  const fallback = state.answer || (data.output === undefined ? '' : JSON.stringify(data.output, null, 2));
  const next = settle({
    ...state,
    status: 'completed',
    terminal: true,
    outcome: 'completed',
    output: data.output ?? null,
    approval: null,
    interrupts: [],
    answer: answer ?? fallback,
    answerKind: state.answerKind ?? 'answer',
  });
  return note(next, 'run', null, finalFact(next), 'ok');
}

// --- helpers ---

function withResponse(state, response, { settle: settles }) {
  const answer = isObject(response.answer) ? response.answer : {};
  let next = {
    ...state,
    response,
    runId: state.runId ?? (text(response.run_id) || null),
    sessionId: text(response.session_id) || state.sessionId,
    answer: typeof answer.text === 'string' ? answer.text : state.answer,
    answerKind: text(answer.kind) || state.answerKind,
    citations: Array.isArray(response.citations) ? response.citations.filter(isCitation) : state.citations,
    usage: isObject(response.usage) ? response.usage : state.usage,
    approval: approvalOf(response.pending_approval),
    outcome: text(response.status) || state.outcome,
  };
  for (const entry of Array.isArray(response.trace) ? response.trace : []) {
    if (!isObject(entry) || !text(entry.node)) continue;
    const known = next.nodes[entry.node];
    const patch = { latencyMs: number(entry.latency_ms), outcome: text(entry.outcome) };
    if (!known || known.state !== 'failed') patch.state = 'completed';
    next = { ...next, nodes: patchNode(next, entry.node, patch) };
    if (!next.path.includes(entry.node)) next.path = [...next.path, entry.node];
    if (!next.activity.some((row) => row.node === entry.node)) {
      next = note(next, entry.node, null, patch.outcome || 'done', patch.outcome === 'refused' ? 'warn' : 'ok');
    }
  }
  if (next.outcome === 'paused') {
    if (next.nodes.human_approval && next.nodes.human_approval.state === 'idle') {
      next = { ...next, nodes: patchNode(next, 'human_approval', { state: 'waiting' }) };
    }
    if (next.approval) next = note(next, 'human_approval', null, `approval pending: ${next.approval.summary}`, 'wait');
  }
  if (!settles) return next;
  next = settle({ ...next, terminal: true, status: 'completed' });
  return note(next, 'run', null, finalFact(next), next.outcome === 'completed' ? 'ok' : 'warn');
}

function fail(state, error, status) {
  const nodes = { ...state.nodes };
  if (error.node && nodes[error.node]) nodes[error.node] = { ...nodes[error.node], state: 'failed' };
  for (const [id, node] of Object.entries(nodes)) {
    if (node.state === 'running' || node.state === 'waiting') nodes[id] = { ...node, state: 'failed' };
  }
  let next = settle({ ...state, nodes, error, status, terminal: true, outcome: status, approval: null, interrupts: [] });
  const verb = status === 'cancelled' ? 'cancelled' : 'failed';
  if (error.node && state.nodes[error.node]) {
    next = note(next, error.node, state.nodes[error.node].step, `${verb}: ${error.message}`, 'error');
    return note(next, 'run', null, `run ${verb} (${error.code})`, 'error');
  }
  return note(next, 'run', null, `${verb}: ${error.message}`, 'error');
}

function finalFact(state) {
  const wait = state.humanWaitMs === null ? '' : ` after waiting ${formatWait(state.humanWaitMs)} for a person`;
  switch (state.outcome) {
    case 'refused':
      return 'refused: the message was not answered';
    case 'rejected':
      return `rejected: the action was not taken${wait}`;
    default:
      return `turn completed${wait}`;
  }
}

function formatWait(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
