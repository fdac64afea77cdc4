// The page: wires the composer, the stream client, the reducer and the panels together.
// Everything that decides lives in the other modules; this one holds the page's few mutable
// things (the assistant talked to, the session or thread, the current turn, the connection) and
// redraws from the run state. The support agent is talked to through `/chat`; any other registered
// graph through a thread of the Agent Protocol (`POST /threads/{id}/runs`), its run followed on
// `GET /runs/{id}/events` like any other. A recorded event log (replay.js) is drawn as a turn whose envelopes
// come from a file instead of a stream. A thread from the recent threads list (threads.js), whichever protocol
// its runs came in by, becomes the conversation, its newest run followed on the same path. The eval report viewer
// (report-view.js) keeps to its own section.

import { explainEndedSignIn, explainProblem } from './access.js';
import { createApi, readJson } from './api.js';
import { STREAM_MODES, SUPPORT_GRAPH, assistantsOf, inputFor, isSupport, resumeFor } from './assistants.js';
import { createCredentials, tokenFrom, withBearer } from './auth.js';
import { captureControls, mayCapture, saveCase } from './capture.js';
import { formatMs } from './format.js';
import { drawGraph, paintGraph } from './graph.js';
import {
  feedbackControls,
  feedbackSending,
  feedbackSettled,
  mayGiveFeedback,
  newFeedback,
  renderFeedback,
  sendFeedback,
} from './feedback.js';
import { decisionNote, decisionSettles, pendingApprovals, renderInbox, sendDecision, withoutApproval } from './inbox.js';
import { h, setText, streamText } from './render.js';
import { parseRecording, recordedQuestion, replayRecording } from './replay.js';
import { mountReportViewer } from './report-view.js';
import {
  applyEnvelopes,
  applyProblem,
  applyResponse,
  applyRunSnapshot,
  newRun,
  runStarted,
  runStatus,
  streamEnded,
} from './state.js';
import { load, save } from './storage.js';
import { followTurn } from './stream.js';
import { THREAD_SEARCH, assistantOfThread, latestRun, recentThreads, renderThreads } from './threads.js';
import {
  approvalCard,
  citationList,
  documentView,
  interruptCard,
  renderAssistants,
  renderActivity,
  renderOutcome,
  renderUsage,
  traceView,
} from './views.js';

const doc = document;
const credentials = createCredentials(sessionStorage);
const authorizedFetch = withBearer(globalThis.fetch.bind(globalThis), () => credentials.token, askToSignIn);
const api = createApi({ fetch: authorizedFetch });
// the recent threads are asked for when the page loads: a 401 then (identity on, no sign-in yet) is the list's
// to say, not a reason to ask for a token before the person has done anything
const quietApi = createApi({ fetch: withBearer(globalThis.fetch.bind(globalThis), () => credentials.token) });
const $ = (selector) => doc.querySelector(selector);
const STORE = {
  session: 'harness.session',
  active: 'harness.active',
  topology: 'harness.topology',
  assistant: 'harness.assistant',
  thread: 'harness.thread',
};
const RUN_EVENTS = /^\/runs\/[^/]+\/events(?:[?#]|$)/;

const els = {
  form: $('[data-region=composer]'),
  input: $('[data-role=input]'),
  send: $('[data-role=send]'),
  stop: $('[data-action=stop]'),
  streamToggle: $('[data-region=stream-toggle]'),
  transcript: $('[data-region=transcript]'),
  empty: $('[data-region=empty]'),
  outcome: $('[data-role=outcome]'),
  connection: $('[data-role=connection]'),
  reconnect: $('[data-action=reconnect]'),
  newSession: $('[data-action=new-session]'),
  usage: $('[data-region=usage]'),
  graph: $('[data-region=graph]'),
  graphEmpty: $('[data-region=graph-empty]'),
  activity: $('[data-region=activity]'),
  trace: $('[data-region=trace]'),
  dialog: $('[data-region=document]'),
  dialogBody: $('[data-region=document-body]'),
  dialogClose: $('[data-action=close-document]'),
  signIn: $('[data-region=sign-in]'),
  token: $('[data-role=token]'),
  signInButton: $('[data-action=sign-in]'),
  authMessage: $('[data-role=auth-message]'),
  signOut: $('[data-action=sign-out]'),
  inboxToggle: $('[data-action=open-inbox]'),
  inbox: $('[data-region=inbox]'),
  inboxList: $('[data-region=inbox-list]'),
  inboxEmpty: $('[data-region=inbox-empty]'),
  inboxNote: $('[data-region=inbox-note]'),
  inboxRefresh: $('[data-action=refresh-inbox]'),
  pickerToggle: $('[data-action=pick-assistant]'),
  pickerName: $('[data-role=assistant-name]'),
  picker: $('[data-region=assistants]'),
  pickerList: $('[data-region=assistant-list]'),
  pickerNote: $('[data-region=assistants-note]'),
  replayFile: $('[data-role=replay-file]'),
  replaySpeed: $('[data-role=replay-speed]'),
  replayNote: $('[data-role=replay-note]'),
  threads: $('[data-region=threads]'),
  threadList: $('[data-region=thread-list]'),
  threadsEmpty: $('[data-region=threads-empty]'),
  threadsNote: $('[data-region=threads-note]'),
  threadsRefresh: $('[data-action=refresh-threads]'),
};
const EMPTY_HINT = els.empty.textContent;
const PLACEHOLDER = els.input.placeholder;

const page = {
  sessionId: load(sessionStorage, STORE.session),
  topology: parseJson(load(localStorage, STORE.topology)),
  run: null,
  view: null,
  follower: null,
  replay: null,
  connection: 'idle',
  connectionDetail: {},
  lost: null,
  jsonRequest: null,
  graph: null,
  graphKey: '',
  followedNode: null,
  turns: 0,
  decision: null,
  seenStatus: null,
  signIn: null,
  inbox: closedInbox(),
  assistant: parseJson(load(sessionStorage, STORE.assistant)),
  threadId: load(sessionStorage, STORE.thread),
  assistants: null,
  picker: { open: false, note: '' },
  schemas: new Map(),
  threads: { rows: [], state: 'idle', note: '', openId: null, opening: false, asked: 0 },
  feedback: new Map(), // run id -> {state, controls}: every finished turn on screen may be rated
};

// --- turns ---

async function sendMessage(message) {
  if (isActive()) return;
  if (!isSupport(page.assistant)) {
    await sendToGraph(message, page.assistant);
    return;
  }
  const streaming = els.streamToggle.checked;
  startTurn(message, streaming ? 'stream' : 'json');
  const body = { message };
  if (page.sessionId) body.session_id = page.sessionId;
  if (streaming) await follow({ url: '/chat', body });
  else await askJson(() => api.chat(body, page.jsonRequest.signal));
}

/** A message to a registered graph: a run on the conversation's thread (made with its first message), followed. */
async function sendToGraph(message, assistant) {
  startTurn(message, 'graph');
  const run = page.run;
  const started = await startGraphRun(assistant, message);
  if (page.run !== run) return; // a new conversation began meanwhile
  if (!started.ok) {
    refuseTurn(started.status, started.body);
    setConnection(started.status === 0 ? 'offline' : 'closed');
    render();
    return;
  }
  page.run = runStarted(page.run, started.body.run_id);
  remember();
  render();
  await follow({ runId: started.body.run_id, lastEventId: '', immediate: true });
}

async function startGraphRun(assistant, message) {
  if (!page.threadId) {
    const thread = await api.createThread();
    if (!thread.ok) return thread;
    page.threadId = thread.body.thread_id;
    save(sessionStorage, STORE.thread, page.threadId);
  }
  const input = inputFor(await inputSchema(assistant), message);
  return api.startRun(page.threadId, { assistant_id: assistant.assistant_id, input, stream_mode: [...STREAM_MODES] });
}

/** The graph's input schema, which says how a message becomes its input; null when it cannot be read. */
async function inputSchema(assistant) {
  if (!page.schemas.has(assistant.graph_id)) {
    const answer = await api.schemas(assistant.assistant_id);
    if (!answer.ok) return null;
    page.schemas.set(assistant.graph_id, answer.body?.input_schema ?? null);
  }
  return page.schemas.get(assistant.graph_id);
}

function startTurn(message, mode) {
  stopFollowing();
  page.run = newRun({ message, topology: isSupport(page.assistant) ? page.topology : null, mode });
  page.decision = null;
  page.lost = null;
  page.followedNode = null;
  page.turns += 1;
  page.view = turnView(message, page.turns);
  setConnection(mode === 'json' ? 'json-pending' : 'connecting');
  render();
}

/**
 * Follow a stream (a new turn, a resume, or a run picked up again) with the stream client. With
 * `takeOverOnOpen` (a resume) the stream becomes the page's only once it opens; until then the one
 * that paused goes on. Answers the client's result and whether the stream was taken on.
 */
async function follow(options, { takeOverOnOpen = false } = {}) {
  const token = { controller: new AbortController() };
  let adopted = !takeOverOnOpen;
  if (adopted) {
    stopFollowing();
    page.follower = token;
  }
  const mine = () => page.follower === token;
  const result = await followTurn({
    ...options,
    fetch: authorizedFetch,
    signal: token.controller.signal,
    onOpen: () => {
      if (adopted) return;
      adopted = true;
      stopFollowing();
      page.follower = token;
    },
    onEnvelopes: (envelopes) => {
      if (mine()) takeEnvelopes(envelopes);
    },
    onConnection: (state, detail) => {
      if (!mine()) return;
      if (state === 'reconnecting') page.run = streamEnded(page.run);
      setConnection(state, detail);
      render();
    },
  });
  if (adopted && mine()) {
    page.follower = null;
    settleStream(result, options);
    remember();
    render();
  }
  return { result, adopted };
}

/** Envelopes of the run on screen, from a live stream or a recording: the same reducer and redraw. */
function takeEnvelopes(envelopes, { replayed = false } = {}) {
  page.run = applyEnvelopes(page.run, envelopes);
  if (!replayed) remember(); // a recording is no run of this service: nothing of it is kept or picked up again
  render();
}

/**
 * Replay a recorded event log (`harness eval`'s `events/<case>.<epoch>.jsonl`) as a new turn of the page:
 * its envelopes go through `takeEnvelopes`, as a stream's do, at the pace chosen.
 */
async function replayFile(file) {
  if (isActive()) return;
  let envelopes;
  try {
    envelopes = parseRecording(await file.text());
  } catch (error) {
    setText(els.replayNote, `${file.name} cannot be replayed: ${error.message}`);
    return;
  }
  const graphRun = envelopes.some((envelope) => envelope.type === 'graph_part' || envelope.type === 'run_completed');
  startTurn(recordedQuestion(envelopes) ?? `(the question of ${file.name} is not in its events)`, graphRun ? 'graph' : 'stream');
  const replay = { controller: new AbortController() };
  page.replay = replay;
  setConnection('replaying', { name: file.name });
  setText(els.replayNote, `Replaying ${file.name}: ${envelopes.length} events.`);
  render();
  try {
    await replayRecording(envelopes, {
      speed: Number(els.replaySpeed.value),
      signal: replay.controller.signal,
      onEnvelopes: (batch) => takeEnvelopes(batch, { replayed: true }),
    });
  } catch {
    // stopped: what was replayed stands, unfinished
  }
  if (page.replay !== replay) return;
  page.replay = null;
  page.run = streamEnded(page.run);
  setConnection('replayed', { name: file.name });
  setText(els.replayNote, `Replayed ${file.name}: ${page.run.lastSeq} of ${envelopes.length} events.`);
  render();
}

function settleStream(result, options) {
  switch (result.kind) {
    case 'ended':
      setConnection('closed');
      break;
    case 'json':
      // streaming is unavailable on the way (a proxy took it out): the JSON answer is the turn's
      if (result.status === 200) page.run = applyResponse(page.run, result.body);
      else page.run = applyProblem(page.run, result.body, result.status);
      setConnection('json');
      break;
    case 'problem':
      if (result.status === 401 && page.run.runId !== null) {
        // the run goes on; watching it needs a sign-in first, then it is picked up where it was
        page.run = streamEnded(page.run);
        page.lost = { runId: page.run.runId, lastEventId: '', options };
        setConnection('lost', { signedOut: true });
        break;
      }
      refuseTurn(result.status, result.body);
      setConnection('closed');
      break;
    case 'unreachable':
      page.run = applyProblem(page.run, { code: 'network_error', detail: 'The server could not be reached.' }, 0);
      setConnection('offline');
      break;
    case 'lost':
      page.run = streamEnded(page.run);
      page.lost = { runId: result.runId, lastEventId: result.lastEventId, options };
      setConnection('lost');
      break;
    default:
      break;
  }
}

async function askJson(request) {
  page.jsonRequest = new AbortController();
  render();
  let answer;
  try {
    answer = await request();
  } catch {
    return; // aborted by Stop or a new conversation; that code path drew the outcome
  } finally {
    page.jsonRequest = null;
  }
  if (answer.ok) page.run = applyResponse(page.run, answer.body);
  else refuseTurn(answer.status, answer.body);
  setConnection(answer.status === 0 ? 'offline' : 'json');
  remember();
  render();
}

async function decide(decision) {
  const run = page.run;
  const card = page.view?.card;
  if (!run?.approval || !card || page.decision?.pending) return;
  const comment = card.querySelector('[data-region=approval-comment]').value.trim();
  const body = { run_id: run.runId, approval_id: run.approval.approval_id, decision };
  if (comment) body.comment = comment;
  if (page.sessionId) body.session_id = page.sessionId;
  page.decision = { decision, comment, pending: true };
  for (const button of card.querySelectorAll('button')) button.disabled = true;
  setText(card.querySelector('[data-region=approval-error]'), '');

  if (run.mode === 'graph') {
    await resumeGraphRun(run, decision, comment);
  } else if (run.mode === 'stream' && els.streamToggle.checked) {
    const { result, adopted } = await follow({ url: '/chat/resume', body, runId: run.runId }, { takeOverOnOpen: true });
    if (!adopted && result.kind === 'json' && result.status === 200) {
      // no stream on the way: the JSON answer is the resumed turn's
      stopFollowing();
      page.run = applyResponse(page.run, result.body);
      setConnection('json');
    } else if (!adopted && result.kind !== 'aborted') {
      // refused before a stream opened (e.g. decided elsewhere): the run still waits on the first stream
      decisionFailed(result.body, result.status ?? 0);
    }
  } else {
    page.jsonRequest = new AbortController();
    render();
    let answer;
    try {
      answer = await api.resume(body, page.jsonRequest.signal);
    } catch {
      return;
    } finally {
      page.jsonRequest = null;
    }
    if (answer.ok) page.run = applyResponse(page.run, answer.body);
    else if (DECISION_REFUSALS.has(answer.status)) decisionFailed(answer.body, answer.status);
    else page.run = applyProblem(page.run, answer.body, answer.status);
  }
  if (page.decision) page.decision.pending = false;
  remember();
  render();
}

/**
 * A decision on a registered graph's interrupts: the thread's next run carries it as `command.resume`, which
 * continues the same run; its events come on the stream already open (or on one opened again from where it was).
 */
async function resumeGraphRun(run, decision, comment) {
  const body = {
    assistant_id: page.assistant.assistant_id,
    command: { resume: resumeFor(run.interrupts, decision, comment) },
    stream_mode: [...STREAM_MODES],
  };
  const answer = await api.startRun(page.threadId, body);
  if (!answer.ok) {
    if (DECISION_REFUSALS.has(answer.status)) decisionFailed(answer.body, answer.status);
    else page.run = applyProblem(page.run, answer.body, answer.status);
    return;
  }
  if (page.follower === null && page.run?.runId === run.runId && !page.run.terminal) {
    page.lost = null;
    follow({ runId: run.runId, lastEventId: `${run.runId}:${page.run.lastSeq}`, immediate: true });
  }
}

/** Answers to a decision that leave the run as it was: still waiting, for someone else or for later. */
const DECISION_REFUSALS = new Set([401, 403, 404, 409]);

/** A turn the server would not take, said in plain words; one refused for want of a token can be sent again as it is. */
function refuseTurn(status, problem) {
  page.run = applyProblem(page.run, explainProblem(status, problem), status);
  if (status === 401 && !els.input.value) els.input.value = page.run.message;
  if (problem?.code === 'session_not_found') {
    // the session (or thread) is not this caller's (any more): the next message starts a new one
    page.sessionId = null;
    page.threadId = null;
    save(sessionStorage, STORE.session, null);
    save(sessionStorage, STORE.thread, null);
  }
}

function decisionFailed(problem, status) {
  page.decision = null;
  const card = page.view?.card;
  if (!card) return;
  for (const button of card.querySelectorAll('button')) button.disabled = false;
  const detail = explainProblem(status, problem)?.detail || `The decision was not accepted (HTTP ${status}).`;
  setText(card.querySelector('[data-region=approval-error]'), detail);
}

async function stop() {
  const run = page.run;
  if (!run || run.terminal) return;
  els.stop.disabled = true;
  if (page.replay) {
    page.replay.controller.abort();
    return;
  }
  if (page.jsonRequest && !run.runId) {
    // JSON path without a run id yet: abandon the request; the server ends the run once it notices
    page.jsonRequest.abort();
    page.run = applyProblem(run, { code: 'cancelled', detail: 'Stopped before the server answered.' }, 0);
    render();
    return;
  }
  if (!run.runId) return;
  const answer = await api.cancel(run.runId);
  if (answer.ok && (page.follower === null || page.lost)) {
    // nobody streams this run: take the server's word for where it stands
    page.run = applyRunSnapshot(page.run, answer.body);
    if (!page.run.terminal) await pollUntilSettled(run.runId);
  } else if (!answer.ok && answer.status !== 409) {
    setConnection(page.connection, { note: explainProblem(answer.status, answer.body)?.detail });
  }
  remember();
  render();
}

async function pollUntilSettled(runId) {
  for (let i = 0; i < 20 && page.run?.runId === runId && !page.run.terminal; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const answer = await api.run(runId);
    if (answer.ok) page.run = applyRunSnapshot(page.run, answer.body);
    render();
  }
}

/** Reconnect at once, while backing off or after giving up: from the last event applied. */
function reconnectNow() {
  const run = page.run;
  const runId = run?.runId ?? page.lost?.runId;
  if (!runId || run?.terminal || !['reconnecting', 'lost'].includes(page.connection)) return;
  page.lost = null;
  const lastEventId = run && run.lastSeq > 0 ? `${runId}:${run.lastSeq}` : '';
  follow({ runId, lastEventId, immediate: true });
}

/** After a reload: a run of this tab that had not ended is followed again, replayed from its first event. */
async function resumeActiveRun() {
  const active = parseJson(load(sessionStorage, STORE.active));
  if (!active?.runId) return;
  const answer = await api.run(active.runId);
  if (answer.status === 401) return; // kept: picked up after the sign-in this asked for
  if (answer.status === 404 || answer.status === 403) {
    // not (or no longer) this caller's run: say so rather than drop it without a word
    save(sessionStorage, STORE.active, null);
    startTurn(active.message || '(message sent before the page reloaded)', 'stream');
    page.run = applyProblem(page.run, explainProblem(answer.status, answer.body), answer.status);
    setConnection('closed');
    render();
    return;
  }
  if (!answer.ok || !['running', 'waiting'].includes(answer.body.status)) {
    save(sessionStorage, STORE.active, null);
    return;
  }
  const mode = isSupport(page.assistant) ? 'stream' : 'graph';
  startTurn(active.message || '(message sent before the page reloaded)', mode);
  await follow({ runId: active.runId, lastEventId: '', immediate: true });
}

function stopFollowing() {
  const previous = page.follower;
  page.follower = null;
  previous?.controller.abort();
  const replay = page.replay;
  page.replay = null;
  replay?.controller.abort();
}

function newConversation() {
  if (isActive()) return;
  resetConversation();
  els.input.focus();
}

function resetConversation() {
  stopFollowing();
  page.sessionId = null;
  page.threadId = null;
  page.run = null;
  page.view = null;
  page.lost = null;
  page.threads.openId = null;
  page.feedback.clear();
  save(sessionStorage, STORE.session, null);
  save(sessionStorage, STORE.thread, null);
  save(sessionStorage, STORE.active, null);
  els.transcript.replaceChildren();
  els.empty.hidden = false;
  els.activity.replaceChildren();
  els.trace.replaceChildren(h(doc, 'p', { class: 'hint' }, ['Shown when a turn ends, from its final response.']));
  setConnection('idle');
  render();
}

function isReplay() {
  return page.connection === 'replaying' || page.connection === 'replayed';
}

function isActive() {
  return page.run !== null && !page.run.terminal && !['lost', 'replayed'].includes(page.connection);
}

function setConnection(state, detail = {}) {
  page.connection = state;
  page.connectionDetail = detail;
}

function remember() {
  const run = page.run;
  if (!run) return;
  if (run.sessionId && run.sessionId !== page.sessionId) {
    page.sessionId = run.sessionId;
    save(sessionStorage, STORE.session, run.sessionId);
  }
  if (run.topologySource === 'stream' && run.topology !== page.topology && run.mode !== 'graph') {
    page.topology = run.topology;
    save(localStorage, STORE.topology, JSON.stringify(run.topology));
  }
  const active = run.runId && !run.terminal ? JSON.stringify({ runId: run.runId, message: run.message }) : null;
  save(sessionStorage, STORE.active, active);
  const status = runStatus(run);
  if (status !== page.seenStatus) {
    page.seenStatus = status;
    // a run that pauses or ends may have added an approval to the inbox, or taken one out
    if (status !== 'running') refreshInbox();
    // and changed where the thread opened from the list stands
    if (status !== 'running' && page.threads.openId !== null) refreshThreads();
  }
}

// --- drawing ---

function turnView(message, number) {
  const previous = page.view;
  if (previous) {
    // only the current turn carries the hooks; earlier ones stay as a plain transcript
    previous.answer.removeAttribute('data-role');
    previous.answer.removeAttribute('aria-live');
    previous.card?.remove();
  }
  els.empty.hidden = true;
  const answer = h(doc, 'p', { class: 'text answer', 'data-role': 'answer', 'aria-live': 'polite', 'aria-busy': 'true' });
  const earlier = h(doc, 'div', { class: 'earlier', hidden: true }, [
    h(doc, 'p', { class: 'earlier-label' }, ['Proposed']),
    h(doc, 'p', { class: 'text' }),
  ]);
  const sources = h(doc, 'div', { class: 'sources' });
  const slot = h(doc, 'div', { class: 'approval-slot' });
  const note = h(doc, 'p', { class: 'turn-note', hidden: true });
  const feedbackSlot = h(doc, 'div', { class: 'feedback-slot' });
  const item = h(doc, 'li', { class: 'turn', 'data-turn': String(number) }, [
    h(doc, 'div', { class: 'bubble user' }, [
      h(doc, 'p', { class: 'who' }, ['You']),
      h(doc, 'p', { class: 'text' }, [message]),
    ]),
    h(doc, 'div', { class: 'bubble agent' }, [
      h(doc, 'p', { class: 'who' }, ['Agent']),
      earlier,
      answer,
      sources,
      slot,
      note,
      feedbackSlot,
    ]),
  ]);
  els.transcript.appendChild(item);
  item.scrollIntoView({ block: 'nearest' });
  return {
    item,
    answer,
    earlier,
    sources,
    slot,
    note,
    feedbackSlot,
    feedback: null,
    card: null,
    citations: null,
    response: null,
    number,
  };
}

function render() {
  const run = page.run;
  renderIdentity();
  renderPicker();
  renderRecentThreads();
  renderOutcome(els.outcome, run, page.connection);
  renderUsage(els.usage, run);
  renderConnection(run);
  renderControls(run);
  if (!run) {
    const topology = isSupport(page.assistant) ? page.topology : null;
    renderGraph(topology ? { ...newRun({ topology }) } : null);
    return;
  }
  renderGraph(run);
  renderActivity(doc, els.activity, run.activity);
  renderTurn(run, page.view);
  renderTrace(run, page.view);
}

function renderGraph(run) {
  const topology = run?.topology ?? null;
  els.graphEmpty.hidden = topology !== null;
  if (topology === null) return;
  const key = JSON.stringify(topology);
  if (key !== page.graphKey) {
    page.graph = drawGraph(doc, els.graph, topology);
    page.graphKey = key;
  }
  paintGraph(page.graph, run);
  followActiveNode(run);
}

/** On a narrow screen the graph scrolls sideways: keep the node at work in view (sideways only). */
function followActiveNode(run) {
  const active = Object.keys(run.nodes).find((id) => ['running', 'waiting', 'failed'].includes(run.nodes[id].state));
  if (!active || active === page.followedNode) return;
  page.followedNode = active;
  const frame = els.graph.parentElement;
  const group = page.graph.nodes.get(active)?.group;
  if (!group || frame.scrollWidth <= frame.clientWidth) return;
  const box = group.getBoundingClientRect();
  const view = frame.getBoundingClientRect();
  frame.scrollBy({ left: box.left + box.width / 2 - (view.left + view.width / 2), behavior: 'smooth' });
}

function renderTurn(run, view) {
  if (!view) return;
  const streaming = !run.terminal && run.outcome !== 'paused' && page.connection !== 'lost';
  streamText(doc, view.answer, run.answer);
  view.answer.setAttribute('data-kind', run.answerKind ?? 'pending');
  view.answer.setAttribute('aria-busy', String(streaming));
  view.answer.classList.toggle('streaming', streaming);
  view.answer.classList.toggle('no-answer', run.terminal && run.answer === '');
  if (run.earlierAnswer !== null) {
    view.earlier.hidden = false;
    setText(view.earlier.lastChild, run.earlierAnswer);
  }
  if (run.citations !== view.citations) {
    view.citations = run.citations;
    view.sources.replaceChildren(...(run.citations.length ? [citationList(doc, run.citations)] : []));
  }
  renderApproval(run, view);
  const notes = [];
  if (page.decision && !page.decision.pending) {
    const verb = page.decision.decision === 'approve' ? 'approved' : 'rejected';
    notes.push(`You ${verb} the action${page.decision.comment ? ` (comment: “${page.decision.comment}”)` : ''}.`);
  }
  if (run.humanWaitMs !== null) notes.push(`The run waited ${formatMs(run.humanWaitMs)} for a person.`);
  if (run.gap) notes.push('Some events had left the replay window; a snapshot stands in for them.');
  view.note.hidden = notes.length === 0;
  setText(view.note, notes.join(' '));
  renderFeedbackOffer(run, view);
}

/** Once a run of this service has finished, its answer may be rated (and a graph's run saved as an eval case): the
 * controls come, and stay with the turn. */
function renderFeedbackOffer(run, view) {
  if (view.feedback !== null || !mayGiveFeedback(run, { recorded: isReplay() })) return;
  const entry = { state: newFeedback(run.runId), controls: feedbackControls(doc, run.runId, view.number) };
  page.feedback.set(run.runId, entry);
  view.feedback = entry;
  view.feedbackSlot.appendChild(entry.controls.element);
  renderFeedback(entry.controls, entry.state);
  if (mayCapture(run, { recorded: isReplay(), support: isSupport(page.assistant) })) {
    view.feedbackSlot.appendChild(captureControls(doc, run.runId).element);
  }
}

/** A finished graph run saved as an eval case: the service's case, handed over as a one-line JSONL file. */
function captureCase(button) {
  const element = button.closest('[data-role=capture]');
  const controls = { element, button, said: element.querySelector('[data-role=capture-said]') };
  if (button.getAttribute('aria-disabled') === 'true') return;
  saveCase(api, controls, element.getAttribute('data-run-id'), (name, text) => {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    const link = doc.createElement('a');
    link.download = name;
    link.href = url; // a blob URL this page made: not the server's text, so not through render.js's URL rule
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });
}

/** Thumbs up or down on a finished run (`POST /runs/{id}/feedback`, with the note typed): it shows what was kept. */
async function giveFeedback(button) {
  const entry = page.feedback.get(button.closest('[data-role=feedback]').getAttribute('data-run-id'));
  if (!entry || entry.state.sending !== null) return;
  const score = button.getAttribute('data-feedback');
  entry.state = feedbackSending(entry.state, score);
  renderFeedback(entry.controls, entry.state);
  const answer = await sendFeedback(api, entry.state.runId, score, entry.controls.note.value);
  entry.state = feedbackSettled(entry.state, answer);
  if (answer.ok) entry.controls.note.value = entry.state.note ?? '';
  renderFeedback(entry.controls, entry.state);
}

function renderApproval(run, view) {
  // a recording's pause is shown in the outcome, not offered for a decision: that run is not this service's
  const pending = run.approval !== null && run.outcome === 'paused' && !run.terminal && !isReplay();
  if (pending && !view.card) {
    view.card =
      run.interrupts.length > 0
        ? interruptCard(doc, run.interrupts, view.number)
        : approvalCard(doc, run.approval, view.number);
    view.slot.appendChild(view.card);
    view.card.focus();
  } else if (!pending && view.card) {
    const hadFocus = view.card.contains(doc.activeElement);
    view.card.remove();
    view.card = null;
    if (hadFocus) els.input.focus();
  }
}

function renderTrace(run, view) {
  if (!view || !run.response || run.response === view.response) return;
  view.response = run.response;
  els.trace.replaceChildren(traceView(doc, run.response, run));
}

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

function renderConnection(run) {
  const words = (CONNECTION_WORDS[page.connection] ?? (() => page.connection))(run, page.connectionDetail);
  els.connection.setAttribute('data-state', page.connection);
  setText(els.connection, page.connectionDetail.note ? `${words} (${page.connectionDetail.note})` : words);
  els.reconnect.hidden = !['reconnecting', 'lost'].includes(page.connection) || !(run?.runId ?? page.lost?.runId);
}

function renderControls(run) {
  const active = isActive();
  els.send.disabled = active;
  els.newSession.disabled = active;
  els.replayFile.disabled = active;
  els.stop.disabled = !run || run.terminal || (!run.runId && !page.jsonRequest);
}

// --- the assistant picker ---

/** The picker opens on demand: the assistants are asked for only when someone looks for another agent. */
async function togglePicker() {
  page.picker.open = !page.picker.open;
  render();
  if (page.picker.open && page.assistants === null) await loadAssistants();
}

async function loadAssistants() {
  page.picker.note = 'Loading the agents…';
  render();
  const answer = await api.assistants();
  if (answer.ok) {
    page.assistants = assistantsOf(answer.body);
    page.picker.note = page.assistants.length > 0 ? '' : 'No agents are registered.';
  } else {
    const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
    page.picker.note = `The agents could not be loaded: ${detail}`;
  }
  render();
}

/** Talk to another assistant: a new conversation with it (a thread of its own, once the first message goes). */
function pickAssistant(graphId) {
  const chosen = page.assistants?.find((assistant) => assistant.graph_id === graphId);
  if (!chosen || isActive()) {
    render();
    return;
  }
  if (graphId !== (page.assistant?.graph_id ?? SUPPORT_GRAPH)) {
    resetConversation();
    page.assistant = isSupport(chosen) ? null : chosen;
    save(sessionStorage, STORE.assistant, page.assistant ? JSON.stringify(page.assistant) : null);
  }
  page.picker.open = false;
  render();
  els.input.focus();
}

function renderPicker() {
  const graphId = page.assistant?.graph_id ?? SUPPORT_GRAPH;
  setText(els.pickerName, page.assistant?.name ?? 'Support agent');
  els.pickerToggle.setAttribute('data-chosen', graphId);
  els.pickerToggle.setAttribute('aria-expanded', String(page.picker.open));
  els.picker.hidden = !page.picker.open;
  renderAssistants(doc, els.pickerList, page.assistants ?? [], graphId);
  const active = isActive();
  for (const radio of els.pickerList.querySelectorAll('input')) radio.disabled = active;
  setText(els.pickerNote, active ? 'Another agent can be picked once this turn ends.' : page.picker.note);
  const hint = isSupport(page.assistant)
    ? EMPTY_HINT
    : `Talking to ${page.assistant.name}${page.assistant.description ? `: ${page.assistant.description}` : '.'}`;
  setText(els.empty, hint);
  els.input.placeholder = isSupport(page.assistant) ? PLACEHOLDER : `Your message to ${page.assistant.name}`;
}

// --- the recent threads ---

/**
 * The caller's recent threads (`POST /threads/search`, newest first), whichever protocol started their runs. Asked
 * quietly: before a sign-in, a service with identity on answers 401, and the list says to sign in.
 */
async function refreshThreads() {
  const asked = ++page.threads.asked;
  page.threads.state = 'loading';
  render();
  const answer = await quietApi.searchThreads(THREAD_SEARCH);
  if (asked !== page.threads.asked) return; // a later refresh answers
  if (answer.ok) {
    Object.assign(page.threads, { rows: recentThreads(answer.body), state: 'loaded', note: '' });
  } else if (answer.status === 401) {
    Object.assign(page.threads, { rows: [], state: 'refused', note: 'Sign in to see your threads.' });
  } else {
    const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
    Object.assign(page.threads, { state: 'failed', note: `The threads could not be loaded: ${detail}` });
  }
  render();
}

/**
 * Open a thread of the list: it becomes the conversation (with its graph's assistant), and its newest run
 * (`GET /threads/{id}/runs`) is followed from its first event as a run this page started is: live while it runs
 * or waits (a pause is decided in place), replayed to its end when it has ended.
 */
async function openThread(threadId) {
  const thread = page.threads.rows.find((row) => row.thread_id === threadId);
  if (!thread || page.threads.opening || !mayLeaveRun()) return;
  page.threads.opening = true;
  page.threads.note = 'Opening the thread…';
  render();
  const answer = await api.threadRuns(threadId);
  page.threads.opening = false;
  const run = answer.ok ? latestRun(answer.body) : null;
  if (run === null || !mayLeaveRun()) {
    if (answer.ok) page.threads.note = run === null ? 'This thread has no run yet.' : '';
    else {
      const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
      page.threads.note = `The thread could not be opened: ${detail}`;
    }
    render();
    return;
  }
  page.threads.note = '';
  resetConversation();
  const support = thread.graph_id === null || thread.graph_id === SUPPORT_GRAPH;
  page.assistant = support ? null : assistantOfThread(thread, page.assistants);
  save(sessionStorage, STORE.assistant, page.assistant ? JSON.stringify(page.assistant) : null);
  if (support) {
    page.sessionId = threadId;
    save(sessionStorage, STORE.session, threadId);
  } else {
    page.threadId = threadId;
    save(sessionStorage, STORE.thread, threadId);
  }
  page.threads.openId = threadId;
  startTurn(thread.question || `(the newest run of thread ${threadId})`, support ? 'stream' : 'graph');
  page.run = runStarted(page.run, run.run_id);
  remember();
  render();
  await follow({ runId: run.run_id, lastEventId: '', immediate: true });
}

/** Whether the run on screen may be left for another thread: it has ended, or it waits for a person (it keeps). */
function mayLeaveRun() {
  if (!isActive()) return true;
  return runStatus(page.run) === 'waiting' && !page.decision?.pending && page.jsonRequest === null;
}

function renderRecentThreads() {
  const names = new Map((page.assistants ?? []).map((assistant) => [assistant.graph_id, assistant.name]));
  const disabled = page.threads.opening || !mayLeaveRun();
  renderThreads(doc, els.threadList, page.threads.rows, { openId: page.threads.openId, disabled, names });
  els.threads.setAttribute('data-state', page.threads.state);
  els.threads.setAttribute('aria-busy', String(page.threads.state === 'loading' || page.threads.opening));
  els.threadsEmpty.hidden = page.threads.state !== 'loaded' || page.threads.rows.length > 0;
  setText(els.threadsNote, page.threads.note);
}

// --- the document view ---

async function openDocument(docId, opener) {
  els.dialogBody.replaceChildren(h(doc, 'p', { class: 'hint' }, ['Loading the document…']));
  if (!els.dialog.open) els.dialog.showModal();
  const answer = await api.document(docId);
  if (answer.ok) {
    els.dialogBody.replaceChildren(...documentView(doc, answer.body));
  } else {
    const detail = explainProblem(answer.status, answer.body)?.detail || `No document ${docId}.`;
    els.dialogBody.replaceChildren(h(doc, 'p', { role: 'alert' }, [detail]));
  }
  els.dialog.addEventListener('close', () => opener?.focus(), { once: true });
}

// --- identity: signing in and out, the approvals inbox ---

/**
 * Any 401, whichever request got it: the token sent, if any, is no good; ask for one in the refusal's words.
 * A token that worked before (`ended`) was revoked or expired: the sign-in ended, and if that cut the stream
 * of a run (a reconnect to its events), the run goes on without this page.
 */
async function askToSignIn(response, tokenSent, { url = '', ended = false } = {}) {
  const problem = await readJson(response);
  if (tokenSent !== null && tokenSent === credentials.token) credentials.signOut();
  if (credentials.token !== null) return; // signed in again while that answer was on its way
  const focused = page.signIn !== null;
  const message = ended
    ? explainEndedSignIn(problem, { watching: RUN_EVENTS.test(url) })
    : explainProblem(401, problem).detail;
  page.signIn = { message, checking: false };
  renderIdentity();
  if (!focused) els.token.focus();
}

/** Take the token typed in, and check it with `GET /approvals`, whose answer fills the inbox too. */
async function signIn() {
  const token = tokenFrom(els.token.value);
  if (token === null) {
    page.signIn = { message: 'Paste the access token you were given: one word, without spaces.', checking: false };
    renderIdentity();
    return;
  }
  credentials.signIn(token);
  page.signIn = { ...page.signIn, checking: true };
  renderIdentity();
  const answer = await api.approvals();
  if (answer.status === 401) return; // askToSignIn has said why
  els.token.value = '';
  page.signIn = null;
  takeInbox(answer);
  if (page.inbox.approvals.length > 0) page.inbox.open = true;
  render();
  els.input.focus();
  refreshThreads(); // the subject's own, now that the service knows who asks
  // what the 401 interrupted: a run being watched, or the one a reload was to pick up
  if (page.lost) reconnectNow();
  else if (page.run === null) resumeActiveRun();
}

function signOut() {
  credentials.signOut();
  page.jsonRequest?.abort();
  resetConversation(); // the conversation was the signed-out subject's
  page.inbox = closedInbox();
  page.threads.asked += 1; // a refresh on its way answered for the subject who left
  Object.assign(page.threads, { rows: [], state: 'refused', note: 'Sign in to see your threads.' });
  page.signIn = { message: 'Signed out. Sign in to continue.', checking: false };
  render();
  els.token.focus();
}

function closedInbox() {
  return { approvals: [], open: false, loaded: false, note: '', problem: '' };
}

async function refreshInbox() {
  if (credentials.token === null) return;
  takeInbox(await api.approvals());
  render();
}

function takeInbox(answer) {
  if (answer.ok) {
    page.inbox.approvals = pendingApprovals(answer.body);
    page.inbox.loaded = true;
    page.inbox.problem = '';
  } else if (answer.status !== 401) {
    const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
    page.inbox.problem = `The approvals could not be loaded: ${detail}`;
  }
}

function toggleInbox() {
  page.inbox.open = !page.inbox.open;
  render();
  if (page.inbox.open) {
    els.inbox.focus();
    refreshInbox();
  }
}

/**
 * Approve or reject from the inbox: `POST /chat/resume` without a session (an approver's way), or for a registered
 * graph's interrupt its thread's next run with `command.resume`; the item then leaves.
 */
async function decideFromInbox(button) {
  const item = button.closest('[data-role=inbox-item]');
  const approvalId = item.getAttribute('data-approval-id');
  const approval = page.inbox.approvals.find((candidate) => candidate.approval_id === approvalId);
  if (!approval) return;
  const decision = button.getAttribute('data-decision');
  const buttons = item.querySelectorAll('button');
  for (const each of buttons) each.disabled = true;
  setText(item.querySelector('[data-region=inbox-error]'), '');
  const answer = await sendDecision(api, approval, decision);
  const note = decisionNote(approval, decision, answer);
  if (decisionSettles(answer.status)) {
    const hadFocus = item.contains(doc.activeElement);
    page.inbox.approvals = withoutApproval(page.inbox.approvals, approvalId);
    page.inbox.note = note;
    render();
    if (hadFocus) els.inbox.focus();
  } else {
    for (const each of buttons) each.disabled = false;
    setText(item.querySelector('[data-region=inbox-error]'), note);
  }
  await refreshInbox();
}

function renderIdentity() {
  const signedIn = credentials.token !== null && page.signIn === null; // a token being checked is not yet
  els.signIn.hidden = page.signIn === null;
  setText(els.authMessage, page.signIn?.message ?? '');
  els.signInButton.disabled = Boolean(page.signIn?.checking);
  els.signOut.hidden = !signedIn;
  els.inboxToggle.hidden = !signedIn;
  els.inbox.hidden = !signedIn || !page.inbox.open;
  const count = page.inbox.approvals.length;
  els.inboxToggle.setAttribute('data-count', String(count));
  els.inboxToggle.setAttribute('aria-expanded', String(page.inbox.open));
  setText(els.inboxToggle, count > 0 ? `Approvals (${count})` : 'Approvals');
  els.inboxEmpty.hidden = count > 0 || !page.inbox.loaded;
  renderInbox(doc, els.inboxList, page.inbox.approvals);
  setText(els.inboxNote, page.inbox.problem || page.inbox.note);
}

// --- stored values ---

function parseJson(raw) {
  try {
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

// --- events ---

els.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const message = els.input.value.trim();
  if (!message) {
    els.input.setCustomValidity('Write a message first.');
    els.input.reportValidity();
    return;
  }
  els.input.value = '';
  sendMessage(message);
});
els.input.addEventListener('input', () => els.input.setCustomValidity(''));
els.input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    if (!els.send.disabled) els.form.requestSubmit();
  }
});
els.stop.addEventListener('click', stop);
els.reconnect.addEventListener('click', reconnectNow);
window.addEventListener('online', reconnectNow);
els.newSession.addEventListener('click', newConversation);
els.transcript.addEventListener('click', (event) => {
  const action = event.target.closest('[data-action=approve], [data-action=reject]');
  if (action) {
    decide(action.getAttribute('data-action'));
    return;
  }
  const rating = event.target.closest('button[data-feedback]');
  if (rating) {
    giveFeedback(rating);
    return;
  }
  const capture = event.target.closest('button[data-action=capture-case]');
  if (capture) {
    captureCase(capture);
    return;
  }
  const link = event.target.closest('a[data-doc-id]');
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  openDocument(link.getAttribute('data-doc-id'), link);
});
els.signIn.addEventListener('submit', (event) => {
  event.preventDefault();
  signIn();
});
els.signOut.addEventListener('click', signOut);
els.inboxToggle.addEventListener('click', toggleInbox);
els.inboxRefresh.addEventListener('click', refreshInbox);
els.inboxList.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-decision]');
  if (button && !button.disabled) decideFromInbox(button);
});
doc.addEventListener('visibilitychange', () => {
  if (doc.visibilityState === 'visible') refreshInbox();
});
els.pickerToggle.addEventListener('click', togglePicker);
els.pickerList.addEventListener('change', (event) => {
  if (event.target.name === 'assistant') pickAssistant(event.target.value);
});
els.replayFile.addEventListener('change', () => {
  const [file] = els.replayFile.files;
  els.replayFile.value = ''; // the same file can be chosen again
  if (file) replayFile(file);
});
els.threadsRefresh.addEventListener('click', refreshThreads);
els.threadList.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action=open-thread]');
  if (button && !button.disabled) openThread(button.closest('[data-role=thread]').getAttribute('data-thread-id'));
});
els.dialogClose.addEventListener('click', () => els.dialog.close());
els.dialog.addEventListener('click', (event) => {
  if (event.target === els.dialog) els.dialog.close(); // a click on the backdrop
});

mountReportViewer(doc, $('[data-region=reports]'));
render();
doc.documentElement.setAttribute('data-ready', 'true');
resumeActiveRun();
refreshInbox();
refreshThreads();
