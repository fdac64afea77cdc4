import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyEnvelopes, newRun, streamEnded } from '../state.js';
import {
  assistantsLoaded,
  conversationChanged,
  conversationReset,
  createStore,
  decisionRefused,
  decisionSent,
  decisionSettled,
  inboxChanged,
  initialState,
  isActive,
  isReplay,
  mayLeaveRun,
  pickerChanged,
  setConnection,
  setRun,
  signedOut,
  threadsAsked,
  threadsChanged,
  turnStarted,
} from '../store.js';
import { deepFreeze, envelopes } from './support.js';

const RESEARCH = { assistant_id: 'asst_research', graph_id: 'research', name: 'Research' };
const run = (name, base = newRun({ message: 'q' })) => applyEnvelopes(base, envelopes(name));
/** A state frozen through and through: a change that mutates the state it is given throws here. */
const frozen = (change = {}) => deepFreeze({ ...initialState(), ...change });

describe('the store', () => {
  test('holds its state, and a change sets the next one from it and its arguments', () => {
    const store = createStore(frozen());
    const next = store.update(setConnection, 'live', { attempt: 1 });
    assert.equal(store.state, next);
    assert.equal(store.state.connection, 'live');
    assert.deepEqual(store.state.connectionDetail, { attempt: 1 });
  });

  test('tells every subscriber each new state, in order, until it unsubscribes', () => {
    const store = createStore(frozen());
    const seen = [];
    const unsubscribe = store.subscribe((state) => seen.push(['first', state.connection]));
    store.subscribe((state) => seen.push(['second', state.connection]));
    store.update(setConnection, 'connecting');
    unsubscribe();
    store.update(setConnection, 'live');
    assert.deepEqual(seen, [
      ['first', 'connecting'],
      ['second', 'connecting'],
      ['second', 'live'],
    ]);
  });

  test('a subscriber sees the state the change made, also when it changes the store itself', () => {
    const store = createStore(frozen());
    const seen = [];
    store.subscribe((state) => {
      seen.push(state.connection);
      if (state.connection === 'lost') store.update(setConnection, 'reconnecting');
    });
    store.update(setConnection, 'lost');
    assert.deepEqual(seen, ['lost', 'reconnecting']);
    assert.equal(store.state.connection, 'reconnecting');
  });
});

describe('a page just loaded', () => {
  test('keeps what the tab kept and nothing of a run', () => {
    const state = initialState({ sessionId: 's_1', threadId: 't_1', assistant: RESEARCH, topology: null });
    assert.equal(state.sessionId, 's_1');
    assert.equal(state.threadId, 't_1');
    assert.equal(state.assistant, RESEARCH);
    assert.equal(state.run, null);
    assert.equal(state.connection, 'idle');
    assert.equal(state.inbox.open, false);
    assert.equal(isActive(state), false);
  });
});

describe('the run on screen', () => {
  test('a turn started is active until its terminal event; the turns are counted', () => {
    const first = turnStarted(frozen({ lost: { runId: 'r_0' } }), newRun({ message: 'q' }));
    assert.equal(first.turns, 1);
    assert.equal(first.lost, null);
    assert.equal(isActive(first), true);
    const ended = setRun(deepFreeze(first), run('normal', first.run));
    assert.equal(isActive(ended), false);
    assert.equal(turnStarted(deepFreeze(ended), newRun()).turns, 2);
  });

  test('a run lost or replayed is no longer active, though it has not ended', () => {
    const going = setRun(frozen(), streamEnded(applyEnvelopes(newRun(), envelopes('normal').slice(0, 3))));
    assert.equal(going.run.terminal, false);
    assert.equal(isActive(setConnection(deepFreeze(going), 'live')), true);
    assert.equal(isActive(setConnection(deepFreeze(going), 'lost')), false);
    const replayed = setConnection(deepFreeze(going), 'replayed', { name: 'a.jsonl' });
    assert.equal(isActive(replayed), false);
    assert.equal(isReplay(replayed), true);
    assert.equal(isReplay(setConnection(deepFreeze(going), 'replaying', { name: 'a.jsonl' })), true);
  });

  test('a run waiting for a person may be left for another thread, unless a decision or a request is on its way', () => {
    const waiting = frozen({ run: run('paused'), connection: 'live' });
    assert.equal(isActive(waiting), true);
    assert.equal(mayLeaveRun(waiting), true);
    const deciding = decisionSent(waiting, 'approve', 'fine');
    assert.deepEqual(deciding.decision, { decision: 'approve', comment: 'fine', pending: true });
    assert.equal(mayLeaveRun(deepFreeze(deciding)), false);
    assert.equal(mayLeaveRun(frozen({ ...waiting, jsonRequest: {} })), false);
    const running = frozen({ run: applyEnvelopes(newRun(), envelopes('normal').slice(0, 3)), connection: 'live' });
    assert.equal(mayLeaveRun(running), false);
  });

  test('a decision settles as sent, or is dropped when refused; settling none leaves the state as it was', () => {
    const deciding = deepFreeze(decisionSent(frozen(), 'reject', ''));
    assert.deepEqual(decisionSettled(deciding).decision, { decision: 'reject', comment: '', pending: false });
    assert.equal(decisionRefused(deciding).decision, null);
    const none = frozen();
    assert.equal(decisionSettled(none), none);
  });
});

describe('the conversation', () => {
  test('changes only what it names, and refuses a name that is no part of it', () => {
    const state = conversationChanged(frozen({ sessionId: 's_1' }), { threadId: 't_1', assistant: RESEARCH });
    assert.deepEqual([state.sessionId, state.threadId, state.assistant], ['s_1', 't_1', RESEARCH]);
    assert.throws(() => conversationChanged(frozen(), { run: null }), /no such part of the page's state: run/);
  });

  test('a new one forgets the session, thread, run and the thread opened, and keeps the assistant', () => {
    const threads = { ...initialState().threads, openId: 't_1', rows: [{ thread_id: 't_1' }] };
    const before = frozen({ sessionId: 's_1', threadId: 't_1', assistant: RESEARCH, run: run('normal'), threads });
    const state = conversationReset(before);
    assert.deepEqual([state.sessionId, state.threadId, state.run, state.lost], [null, null, null, null]);
    assert.equal(state.threads.openId, null);
    assert.deepEqual(state.threads.rows, [{ thread_id: 't_1' }]);
    assert.equal(state.assistant, RESEARCH);
  });
});

describe('the panels', () => {
  test('the recent threads: each refresh asked makes the answers of earlier ones stale', () => {
    const first = threadsAsked(frozen());
    const second = threadsAsked(deepFreeze(first));
    assert.equal(first.threads.state, 'loading');
    assert.equal(second.threads.asked, first.threads.asked + 1);
    const loaded = threadsChanged(deepFreeze(second), { rows: [{ thread_id: 't_1' }], state: 'loaded' });
    assert.deepEqual(loaded.threads.rows, [{ thread_id: 't_1' }]);
    assert.equal(loaded.threads.asked, second.threads.asked);
    assert.throws(() => threadsChanged(frozen(), { asked: 0 }), /asked/);
  });

  test('signing out closes and empties the inbox and refuses the threads, staling a refresh on its way', () => {
    const before = inboxChanged(frozen(), { approvals: [{ approval_id: 'apv_1' }], open: true, loaded: true });
    const after = signedOut(deepFreeze(threadsAsked(before)), 'Signed out.');
    assert.deepEqual(after.inbox, initialState().inbox);
    assert.deepEqual(after.signIn, { message: 'Signed out.', checking: false });
    assert.equal(after.threads.state, 'refused');
    assert.equal(after.threads.asked, 2);
  });

  test('the picker: opened, and the assistants loaded with what it says of them', () => {
    const open = pickerChanged(frozen(), { open: true });
    const loaded = assistantsLoaded(deepFreeze(open), [RESEARCH], '');
    assert.deepEqual(loaded.picker, { open: true, note: '' });
    assert.deepEqual(loaded.assistants, [RESEARCH]);
    assert.throws(() => pickerChanged(frozen(), { assistants: [] }), /assistants/);
  });
});
