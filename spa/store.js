// The page's state, in one place: what is talked to (the assistant, the session or thread), the run on screen and
// how it is followed, the sign-in, the inbox, the picker and the recent threads. The other modules read it and
// change it only through `update` with one of the named changes below (pure: a state in, a new state out), and
// redraw when it tells them. What is no state but a handle (the turn's DOM, the drawn graph) stays with its view.

import { runStatus } from './state.js';

/** A store of one state: `update(change, ...args)` sets `change(state, ...args)` and tells every subscriber. */
export function createStore(initial) {
  let current = initial;
  const listeners = new Set();
  return {
    get state() {
      return current;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    update(change, ...args) {
      current = change(current, ...args);
      for (const listener of [...listeners]) listener(current);
      return current;
    },
  };
}

/** The state of a page just loaded: what the tab kept (the conversation, the last topology drawn), nothing else. */
export function initialState({ sessionId = null, threadId = null, assistant = null, topology = null } = {}) {
  return {
    sessionId,
    threadId,
    assistant, // null: the support agent
    topology, // the support agent's, as its last stream drew it
    run: null,
    turns: 0,
    decision: null,
    lost: null,
    seenStatus: null,
    connection: 'idle',
    connectionDetail: {},
    follower: null,
    replay: null,
    jsonRequest: null,
    signIn: null,
    inbox: closedInbox(),
    assistants: null,
    picker: { open: false, note: '' },
    threads: { rows: [], state: 'idle', note: '', openId: null, opening: false, asked: 0 },
  };
}

export function closedInbox() {
  return { approvals: [], open: false, loaded: false, note: '', problem: '' };
}

// --- what is read of it ---

/** A run going on that this page follows or waits for (a lost or replayed one is no longer). */
export function isActive(state) {
  return state.run !== null && !state.run.terminal && !['lost', 'replayed'].includes(state.connection);
}

export function isReplay(state) {
  return state.connection === 'replaying' || state.connection === 'replayed';
}

/** Whether the run on screen may be left for another thread: it has ended, or it waits for a person (it keeps). */
export function mayLeaveRun(state) {
  if (!isActive(state)) return true;
  return runStatus(state.run) === 'waiting' && !state.decision?.pending && state.jsonRequest === null;
}

// --- the changes ---

export function setRun(state, run) {
  return { ...state, run };
}

export function setConnection(state, connection, detail = {}) {
  return { ...state, connection, connectionDetail: detail };
}

/** A new turn: its run, nothing decided or lost yet. */
export function turnStarted(state, run) {
  return { ...state, run, decision: null, lost: null, turns: state.turns + 1 };
}

/** What follows the run (a stream's token, a replay's, a JSON request's controller), or null when nothing does. */
export function setFollower(state, follower) {
  return { ...state, follower };
}

export function setReplay(state, replay) {
  return { ...state, replay };
}

export function setJsonRequest(state, jsonRequest) {
  return { ...state, jsonRequest };
}

/** The run's stream could not go on (`{runId, lastEventId, options}`), or null once it is followed again. */
export function setLost(state, lost) {
  return { ...state, lost };
}

/** The conversation talked in: any of `sessionId`, `threadId`, `assistant`, `topology`. */
export function conversationChanged(state, change) {
  return { ...state, ...pick(change, ['sessionId', 'threadId', 'assistant', 'topology']) };
}

/** A new conversation: no session, thread or run; the picker's choice and the topology drawn stay. */
export function conversationReset(state) {
  return {
    ...state,
    sessionId: null,
    threadId: null,
    run: null,
    lost: null,
    threads: { ...state.threads, openId: null },
  };
}

export function decisionSent(state, decision, comment) {
  return { ...state, decision: { decision, comment, pending: true } };
}

export function decisionSettled(state) {
  return state.decision ? { ...state, decision: { ...state.decision, pending: false } } : state;
}

export function decisionRefused(state) {
  return { ...state, decision: null };
}

export function statusSeen(state, seenStatus) {
  return { ...state, seenStatus };
}

/** The sign-in banner: `{message, checking}`, or null when hidden. */
export function setSignIn(state, signIn) {
  return { ...state, signIn };
}

/** Signed out: the inbox closed and emptied, the threads refused (a refresh on its way answers for nobody). */
export function signedOut(state, message) {
  return {
    ...state,
    signIn: { message, checking: false },
    inbox: closedInbox(),
    threads: { ...state.threads, rows: [], state: 'refused', note: 'Sign in to see your threads.', asked: state.threads.asked + 1 },
  };
}

export function inboxChanged(state, change) {
  return { ...state, inbox: { ...state.inbox, ...pick(change, ['approvals', 'open', 'loaded', 'note', 'problem']) } };
}

export function pickerChanged(state, change) {
  return { ...state, picker: { ...state.picker, ...pick(change, ['open', 'note']) } };
}

export function assistantsLoaded(state, assistants, note) {
  return { ...state, assistants, picker: { ...state.picker, note } };
}

/** A refresh of the recent threads asked for: the answers of earlier ones are stale. */
export function threadsAsked(state) {
  return { ...state, threads: { ...state.threads, state: 'loading', asked: state.threads.asked + 1 } };
}

export function threadsChanged(state, change) {
  const keys = ['rows', 'state', 'note', 'openId', 'opening'];
  return { ...state, threads: { ...state.threads, ...pick(change, keys) } };
}

function pick(change, keys) {
  const unknown = Object.keys(change).filter((key) => !keys.includes(key));
  if (unknown.length > 0) throw new TypeError(`no such part of the page's state: ${unknown.join(', ')}`);
  return change;
}
