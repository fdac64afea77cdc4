// The turn on screen and how its run is followed: a turn started, a stream followed (a new turn, a resume, a run
// picked up again) by the stream client into the reducer, how a stream or a JSON answer settles, Stop, reconnecting,
// the run a reload picks up, a new conversation, and what the tab keeps of it all.

import { explainProblem } from './access.js';
import { isSupport } from './assistants.js';
import { keepActiveRun, keptActiveRun } from './page.js';
import {
  applyEnvelopes,
  applyProblem,
  applyResponse,
  applyRunSnapshot,
  newRun,
  runStatus,
  streamEnded,
} from './state.js';
import {
  conversationChanged,
  conversationReset,
  isActive,
  setConnection,
  setFollower,
  setJsonRequest,
  setLost,
  setReplay,
  setRun,
  statusSeen,
  turnStarted,
} from './store.js';
import { followTurn } from './stream.js';

export function mountTurns(page) {
  const { store, els, api } = page;
  const state = () => store.state;
  const reduceRun = (reducer, ...args) => store.update(setRun, reducer(state().run, ...args));

  function startTurn(message, mode) {
    stopFollowing();
    const run = newRun({ message, topology: isSupport(state().assistant) ? state().topology : null, mode });
    page.runView.newTurn();
    page.transcript.newTurn(message, state().turns + 1);
    store.update((current) => setConnection(turnStarted(current, run), mode === 'json' ? 'json-pending' : 'connecting'));
  }

  /**
   * Follow a stream (a new turn, a resume, or a run picked up again) with the stream client. With
   * `takeOverOnOpen` (a resume) the stream becomes the page's only once it opens; until then the one
   * that paused goes on. Answers the client's result and whether the stream was taken on.
   */
  async function follow(options, { takeOverOnOpen = false } = {}) {
    const token = { controller: new AbortController() };
    let adopted = !takeOverOnOpen;
    const adopt = () => {
      stopFollowing();
      store.update(setFollower, token);
    };
    if (adopted) adopt();
    const mine = () => state().follower === token;
    const result = await followTurn({
      ...options,
      fetch: page.authorizedFetch,
      signal: token.controller.signal,
      onOpen: () => {
        if (adopted) return;
        adopted = true;
        adopt();
      },
      onEnvelopes: (envelopes) => {
        if (mine()) takeEnvelopes(envelopes);
      },
      onConnection: (connection, detail) => {
        if (!mine()) return;
        const run = connection === 'reconnecting' ? streamEnded(state().run) : state().run;
        store.update((current) => setConnection(setRun(current, run), connection, detail));
      },
    });
    if (adopted && mine()) {
      store.update(setFollower, null);
      settleStream(result, options);
      remember();
    }
    return { result, adopted };
  }

  /** Envelopes of the run on screen, from a live stream or a recording: the same reducer and redraw. */
  function takeEnvelopes(envelopes, { replayed = false } = {}) {
    reduceRun(applyEnvelopes, envelopes);
    if (!replayed) remember(); // a recording is no run of this service: nothing of it is kept or picked up again
  }

  function settleStream(result, options) {
    switch (result.kind) {
      case 'ended':
        store.update(setConnection, 'closed');
        break;
      case 'json':
        // streaming is unavailable on the way (a proxy took it out): the JSON answer is the turn's
        if (result.status === 200) reduceRun(applyResponse, result.body);
        else reduceRun(applyProblem, result.body, result.status);
        store.update(setConnection, 'json');
        break;
      case 'problem':
        if (result.status === 401 && state().run.runId !== null) {
          // the run goes on; watching it needs a sign-in first, then it is picked up where it was
          reduceRun(streamEnded);
          store.update(setLost, { runId: state().run.runId, lastEventId: '', options });
          store.update(setConnection, 'lost', { signedOut: true });
          break;
        }
        refuseTurn(result.status, result.body);
        store.update(setConnection, 'closed');
        break;
      case 'unreachable':
        reduceRun(applyProblem, { code: 'network_error', detail: 'The server could not be reached.' }, 0);
        store.update(setConnection, 'offline');
        break;
      case 'lost':
        reduceRun(streamEnded);
        store.update(setLost, { runId: result.runId, lastEventId: result.lastEventId, options });
        store.update(setConnection, 'lost');
        break;
      default:
        break;
    }
  }

  /** A JSON request of the turn (`/chat` without a stream): its answer, or its refusal, is the turn's. */
  async function askJson(request) {
    const controller = new AbortController();
    store.update(setJsonRequest, controller);
    let answer;
    try {
      answer = await request(controller.signal);
    } catch {
      return; // aborted by Stop or a new conversation; that code path drew the outcome
    } finally {
      store.update(setJsonRequest, null);
    }
    if (answer.ok) reduceRun(applyResponse, answer.body);
    else refuseTurn(answer.status, answer.body);
    store.update(setConnection, answer.status === 0 ? 'offline' : 'json');
    remember();
  }

  /** A turn the server would not take, said in plain words; one refused for want of a token can be sent again as it is. */
  function refuseTurn(status, problem) {
    reduceRun(applyProblem, explainProblem(status, problem), status);
    if (status === 401 && !els.input.value) els.input.value = state().run.message;
    if (problem?.code === 'session_not_found') {
      // the session (or thread) is not this caller's (any more): the next message starts a new one
      store.update(conversationChanged, { sessionId: null, threadId: null });
    }
  }

  async function stop() {
    const { run, replay, jsonRequest } = state();
    if (!run || run.terminal) return;
    els.stop.disabled = true;
    if (replay) {
      replay.controller.abort();
      return;
    }
    if (jsonRequest && !run.runId) {
      // JSON path without a run id yet: abandon the request; the server ends the run once it notices
      jsonRequest.abort();
      store.update(setRun, applyProblem(run, { code: 'cancelled', detail: 'Stopped before the server answered.' }, 0));
      return;
    }
    if (!run.runId) return;
    const answer = await api.cancel(run.runId);
    if (answer.ok && (state().follower === null || state().lost)) {
      // nobody streams this run: take the server's word for where it stands
      reduceRun(applyRunSnapshot, answer.body);
      if (!state().run.terminal) await pollUntilSettled(run.runId);
    } else if (!answer.ok && answer.status !== 409) {
      store.update(setConnection, state().connection, { note: explainProblem(answer.status, answer.body)?.detail });
    }
    remember();
    page.render();
  }

  async function pollUntilSettled(runId) {
    for (let i = 0; i < 20 && state().run?.runId === runId && !state().run.terminal; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const answer = await api.run(runId);
      if (answer.ok) reduceRun(applyRunSnapshot, answer.body);
      else page.render();
    }
  }

  /** Reconnect at once, while backing off or after giving up: from the last event applied. */
  function reconnectNow() {
    const { run, lost, connection } = state();
    const runId = run?.runId ?? lost?.runId;
    if (!runId || run?.terminal || !['reconnecting', 'lost'].includes(connection)) return;
    store.update(setLost, null);
    const lastEventId = run && run.lastSeq > 0 ? `${runId}:${run.lastSeq}` : '';
    follow({ runId, lastEventId, immediate: true });
  }

  /** After a reload: a run of this tab that had not ended is followed again, replayed from its first event. */
  async function resumeActiveRun() {
    const active = keptActiveRun();
    if (!active?.runId) return;
    const answer = await api.run(active.runId);
    if (answer.status === 401) return; // kept: picked up after the sign-in this asked for
    if (answer.status === 404 || answer.status === 403) {
      // not (or no longer) this caller's run: say so rather than drop it without a word
      keepActiveRun(null);
      startTurn(active.message || '(message sent before the page reloaded)', 'stream');
      reduceRun(applyProblem, explainProblem(answer.status, answer.body), answer.status);
      store.update(setConnection, 'closed');
      return;
    }
    if (!answer.ok || !['running', 'waiting'].includes(answer.body.status)) {
      keepActiveRun(null);
      return;
    }
    const mode = isSupport(state().assistant) ? 'stream' : 'graph';
    startTurn(active.message || '(message sent before the page reloaded)', mode);
    await follow({ runId: active.runId, lastEventId: '', immediate: true });
  }

  function stopFollowing() {
    const { follower, replay } = state();
    if (follower) store.update(setFollower, null);
    follower?.controller.abort();
    if (replay) store.update(setReplay, null);
    replay?.controller.abort();
  }

  function newConversation() {
    if (isActive(state())) return;
    resetConversation();
    els.input.focus();
  }

  function resetConversation() {
    stopFollowing();
    keepActiveRun(null);
    page.transcript.clear();
    store.update((current) => setConnection(conversationReset(current), 'idle'));
  }

  /** What the tab keeps of the run on screen, and what its pausing or ending may have changed elsewhere. */
  function remember() {
    const { run } = state();
    if (!run) return;
    if (run.sessionId && run.sessionId !== state().sessionId) {
      store.update(conversationChanged, { sessionId: run.sessionId });
    }
    if (run.topologySource === 'stream' && run.topology !== state().topology && run.mode !== 'graph') {
      store.update(conversationChanged, { topology: run.topology });
    }
    keepActiveRun(run.runId && !run.terminal ? { runId: run.runId, message: run.message } : null);
    const status = runStatus(run);
    if (status !== state().seenStatus) {
      store.update(statusSeen, status);
      // a run that pauses or ends may have added an approval to the inbox, or taken one out
      if (status !== 'running') page.inbox.refresh();
      // and changed where the thread opened from the list stands
      if (status !== 'running' && state().threads.openId !== null) page.recentThreads.refresh();
    }
  }

  return {
    startTurn,
    follow,
    takeEnvelopes,
    askJson,
    refuseTurn,
    stop,
    reconnectNow,
    resumeActiveRun,
    stopFollowing,
    newConversation,
    resetConversation,
    remember,
  };
}
