// "Recent threads" in the side column: the caller's threads whichever protocol started their runs
// (`POST /threads/search`), and one opened as the conversation, its newest run followed as one this page started.

import { explainProblem } from './access.js';
import { SUPPORT_GRAPH } from './assistants.js';
import { setText } from './render.js';
import { runStarted } from './state.js';
import { conversationChanged, mayLeaveRun, setRun, threadsAsked, threadsChanged } from './store.js';
import { THREAD_SEARCH, assistantOfThread, latestRun, recentThreads, renderThreads } from './threads.js';

export function mountRecentThreads(page) {
  const { doc, store, els, api } = page;
  const state = () => store.state;

  /** Asked quietly: before a sign-in, a service with identity on answers 401, and the list says to sign in. */
  async function refresh() {
    store.update(threadsAsked);
    const asked = state().threads.asked;
    const answer = await page.quietApi.searchThreads(THREAD_SEARCH);
    if (asked !== state().threads.asked) return; // a later refresh answers
    if (answer.ok) {
      store.update(threadsChanged, { rows: recentThreads(answer.body), state: 'loaded', note: '' });
    } else if (answer.status === 401) {
      store.update(threadsChanged, { rows: [], state: 'refused', note: 'Sign in to see your threads.' });
    } else {
      const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
      store.update(threadsChanged, { state: 'failed', note: `The threads could not be loaded: ${detail}` });
    }
  }

  /**
   * Open a thread of the list: it becomes the conversation (with its graph's assistant), and its newest run
   * (`GET /threads/{id}/runs`) is followed from its first event as a run this page started is: live while it runs
   * or waits (a pause is decided in place), replayed to its end when it has ended.
   */
  async function open(threadId) {
    const thread = state().threads.rows.find((row) => row.thread_id === threadId);
    if (!thread || state().threads.opening || !mayLeaveRun(state())) return;
    store.update(threadsChanged, { opening: true, note: 'Opening the thread…' });
    const answer = await api.threadRuns(threadId);
    store.update(threadsChanged, { opening: false });
    const run = answer.ok ? latestRun(answer.body) : null;
    if (run === null || !mayLeaveRun(state())) {
      if (answer.ok) store.update(threadsChanged, { note: run === null ? 'This thread has no run yet.' : '' });
      else {
        const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
        store.update(threadsChanged, { note: `The thread could not be opened: ${detail}` });
      }
      return;
    }
    store.update(threadsChanged, { note: '' });
    page.turns.resetConversation();
    const support = thread.graph_id === null || thread.graph_id === SUPPORT_GRAPH;
    const assistant = support ? null : assistantOfThread(thread, state().assistants);
    store.update(conversationChanged, support ? { assistant, sessionId: threadId } : { assistant, threadId });
    store.update(threadsChanged, { openId: threadId });
    page.turns.startTurn(thread.question || `(the newest run of thread ${threadId})`, support ? 'stream' : 'graph');
    store.update(setRun, runStarted(state().run, run.run_id));
    page.turns.remember();
    await page.turns.follow({ runId: run.run_id, lastEventId: '', immediate: true });
  }

  els.threadsRefresh.addEventListener('click', refresh);
  els.threadList.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action=open-thread]');
    if (button && !button.disabled) open(button.closest('[data-role=thread]').getAttribute('data-thread-id'));
  });

  return {
    refresh,
    render(current) {
      const { threads } = current;
      const names = new Map((current.assistants ?? []).map((assistant) => [assistant.graph_id, assistant.name]));
      const disabled = threads.opening || !mayLeaveRun(current);
      renderThreads(doc, els.threadList, threads.rows, { openId: threads.openId, disabled, names });
      els.threads.setAttribute('data-state', threads.state);
      els.threads.setAttribute('aria-busy', String(threads.state === 'loading' || threads.opening));
      els.threadsEmpty.hidden = threads.state !== 'loaded' || threads.rows.length > 0;
      setText(els.threadsNote, threads.note);
    },
  };
}
