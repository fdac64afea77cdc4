// The composer: a message typed and sent (Enter sends, Shift+Enter is a new line), to the support agent on
// `/chat` (streamed or as JSON) or to a registered graph as a run on the conversation's thread; Stop, New
// conversation and Reconnect now beside it.

import { STREAM_MODES, inputFor, isSupport } from './assistants.js';
import { conversationChanged, isActive, setConnection, setRun } from './store.js';
import { runStarted } from './state.js';

export function mountComposer(page) {
  const { store, els, api } = page;
  const state = () => store.state;
  const schemas = new Map(); // graph id -> its input schema (null when it could not be read)

  async function sendMessage(message) {
    if (isActive(state())) return;
    if (!isSupport(state().assistant)) {
      await sendToGraph(message, state().assistant);
      return;
    }
    const streaming = els.streamToggle.checked;
    page.turns.startTurn(message, streaming ? 'stream' : 'json');
    const body = { message };
    if (state().sessionId) body.session_id = state().sessionId;
    if (streaming) await page.turns.follow({ url: '/chat', body });
    else await page.turns.askJson((signal) => api.chat(body, signal));
  }

  /** A message to a registered graph: a run on the conversation's thread (made with its first message), followed. */
  async function sendToGraph(message, assistant) {
    page.turns.startTurn(message, 'graph');
    const { run } = state();
    const started = await startGraphRun(assistant, message);
    if (state().run !== run) return; // a new conversation began meanwhile
    if (!started.ok) {
      page.turns.refuseTurn(started.status, started.body);
      store.update(setConnection, started.status === 0 ? 'offline' : 'closed');
      return;
    }
    store.update(setRun, runStarted(state().run, started.body.run_id));
    page.turns.remember();
    await page.turns.follow({ runId: started.body.run_id, lastEventId: '', immediate: true });
  }

  async function startGraphRun(assistant, message) {
    if (!state().threadId) {
      const thread = await api.createThread();
      if (!thread.ok) return thread;
      store.update(conversationChanged, { threadId: thread.body.thread_id });
    }
    const input = inputFor(await inputSchema(assistant), message);
    const body = { assistant_id: assistant.assistant_id, input, stream_mode: [...STREAM_MODES] };
    return api.startRun(state().threadId, body);
  }

  /** The graph's input schema, which says how a message becomes its input; null when it cannot be read. */
  async function inputSchema(assistant) {
    if (!schemas.has(assistant.graph_id)) {
      const answer = await api.schemas(assistant.assistant_id);
      if (!answer.ok) return null;
      schemas.set(assistant.graph_id, answer.body?.input_schema ?? null);
    }
    return schemas.get(assistant.graph_id);
  }

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
  els.stop.addEventListener('click', () => page.turns.stop());
  els.reconnect.addEventListener('click', () => page.turns.reconnectNow());
  globalThis.addEventListener('online', () => page.turns.reconnectNow());
  els.newSession.addEventListener('click', () => page.turns.newConversation());
}
