// What every part of the page shares: its elements, the store, the service calls (with the bearer token) and what
// the tab keeps for a reload. `createPage` answers the context each part is mounted with; the parts reach one
// another through it (`page.turns`, `page.identity`, ...), set when each is mounted.

import { createApi } from './api.js';
import { createCredentials, withBearer } from './auth.js';
import { load, save } from './storage.js';
import { createStore, initialState } from './store.js';

/** The keys of what the tab keeps. */
export const KEPT = {
  session: 'harness.session',
  active: 'harness.active',
  topology: 'harness.topology',
  assistant: 'harness.assistant',
  thread: 'harness.thread',
};

export function createPage(doc, { onUnauthorized }) {
  const credentials = createCredentials(sessionStorage);
  const fetch = globalThis.fetch.bind(globalThis);
  const authorizedFetch = withBearer(fetch, () => credentials.token, (...args) => onUnauthorized(...args));
  const store = createStore(
    initialState({
      sessionId: load(sessionStorage, KEPT.session),
      threadId: load(sessionStorage, KEPT.thread),
      assistant: parseJson(load(sessionStorage, KEPT.assistant)),
      topology: parseJson(load(localStorage, KEPT.topology)),
    }),
  );
  store.subscribe(keepConversation());
  return {
    doc,
    els: elementsOf(doc),
    store,
    credentials,
    authorizedFetch,
    api: createApi({ fetch: authorizedFetch }),
    // the recent threads are asked for when the page loads: a 401 then (identity on, no sign-in yet) is the list's
    // to say, not a reason to ask for a token before the person has done anything
    quietApi: createApi({ fetch: withBearer(fetch, () => credentials.token) }),
  };
}

/** A subscriber keeping the conversation for a reload as it changes: session, thread, assistant, topology. */
function keepConversation() {
  let kept = null;
  return (state) => {
    if (kept !== null && state.sessionId !== kept.sessionId) save(sessionStorage, KEPT.session, state.sessionId);
    if (kept !== null && state.threadId !== kept.threadId) save(sessionStorage, KEPT.thread, state.threadId);
    if (kept !== null && state.assistant !== kept.assistant) {
      save(sessionStorage, KEPT.assistant, state.assistant ? JSON.stringify(state.assistant) : null);
    }
    if (kept !== null && state.topology !== kept.topology) {
      save(localStorage, KEPT.topology, JSON.stringify(state.topology));
    }
    kept = state;
  };
}

/** The run a reload is to pick up, `{runId, message}`, or null. */
export function keptActiveRun() {
  return parseJson(load(sessionStorage, KEPT.active));
}

export function keepActiveRun(active) {
  save(sessionStorage, KEPT.active, active ? JSON.stringify(active) : null);
}

function parseJson(raw) {
  try {
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function elementsOf(doc) {
  const $ = (selector) => doc.querySelector(selector);
  return {
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
    reports: $('[data-region=reports]'),
  };
}
