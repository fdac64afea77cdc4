// The recent threads: the caller's threads (`POST /threads/search`, newest first), whichever way their runs came in
// (this page, the Agent Protocol, A2A, MCP), each as a row naming its graph, what it was last asked, where it
// stands and when; and which of a thread's runs (`GET /threads/{id}/runs`) is opened in the live graph. Pure
// functions and a keyed list; app.js owns the rows and opens a run the way it follows one it started.

import { formatMoment } from './format.js';
import { contentText } from './messages.js';
import { h, syncList } from './render.js';

/** How many threads the list shows: the few a person looks back at, not an archive. */
export const RECENT_THREADS = 10;

/** The body of `POST /threads/search` for the list: the newest first, a few. */
export const THREAD_SEARCH = Object.freeze({ limit: RECENT_THREADS, sort_by: 'updated_at', sort_order: 'desc' });

/** A thread's status (the Agent Protocol's) as words. */
const STATUS_WORDS = {
  idle: 'ended',
  busy: 'running',
  interrupted: 'waiting for a decision',
  error: 'failed',
};

/**
 * The rows of a search answer: one per thread with an id, its graph and assistant from its metadata (the Agent
 * Server's `graph_id` and `assistant_id`), its status, its last change and what it was last asked; malformed
 * entries are left out.
 */
export function recentThreads(body) {
  const found = (Array.isArray(body) ? body : []).filter((item) => isObject(item) && isNonEmpty(item.thread_id));
  return found.map((item) => {
    const metadata = isObject(item.metadata) ? item.metadata : {};
    const graphId = isNonEmpty(metadata.graph_id) ? metadata.graph_id : null;
    return {
      thread_id: item.thread_id,
      graph_id: graphId,
      assistant_id: isNonEmpty(metadata.assistant_id) ? metadata.assistant_id : graphId,
      status: isNonEmpty(item.status) ? item.status : 'idle',
      updated_at: typeof item.updated_at === 'string' ? item.updated_at : '',
      question: lastQuestion(item.values),
    };
  });
}

/**
 * What a thread was last asked, from its values: the text of its last person's message when it has `messages`,
 * else its first text field (`{"topic": ...}`); '' when it holds neither.
 */
export function lastQuestion(values) {
  if (!isObject(values)) return '';
  if (Array.isArray(values.messages)) {
    const asked = values.messages.filter(
      (message) => isObject(message) && ['human', 'user'].includes(message.type ?? message.role),
    );
    return asked.length > 0 ? contentText(asked.at(-1).content).trim() : '';
  }
  const text = Object.values(values).find((value) => typeof value === 'string' && value.trim() !== '');
  return text === undefined ? '' : text.trim();
}

/** The run a thread opens to: the newest of `GET /threads/{id}/runs` (by `created_at`), or null when it has none. */
export function latestRun(body) {
  const runs = (Array.isArray(body) ? body : []).filter((run) => isObject(run) && isNonEmpty(run.run_id));
  if (runs.length === 0) return null;
  return runs.reduce((newest, run) => (String(run.created_at ?? '') > String(newest.created_at ?? '') ? run : newest));
}

/** The assistant a thread's runs are continued with: a known one of its graph, else one made of its metadata. */
export function assistantOfThread(thread, assistants = []) {
  const known = (assistants ?? []).find((assistant) => assistant.graph_id === thread.graph_id);
  if (known) return known;
  return { assistant_id: thread.assistant_id, graph_id: thread.graph_id, name: thread.graph_id, description: '' };
}

export function statusWords(status) {
  return STATUS_WORDS[status] ?? status;
}

/** Draw the list in place, keyed by thread id; `openId` marks the thread on screen, `disabled` the buttons. */
export function renderThreads(doc, list, threads, { openId = null, disabled = false, names = new Map() } = {}) {
  syncList(doc, list, threads, {
    key: (thread) => thread.thread_id,
    create: (thread) => threadItem(doc, thread, names),
    update: (item, thread) => {
      if (item.getAttribute('data-signature') !== signatureOf(thread, names)) {
        const fresh = threadItem(doc, thread, names);
        item.replaceChildren(...fresh.childNodes);
        for (const name of ['data-status', 'data-graph-id', 'data-signature']) {
          item.setAttribute(name, fresh.getAttribute(name));
        }
      }
      const button = item.firstChild; // the row is its one button
      button.disabled = disabled;
      if (thread.thread_id === openId) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    },
  });
}

export function threadItem(doc, thread, names = new Map()) {
  const graph = graphName(thread, names);
  const asked = thread.question || '(nothing asked in words)';
  return h(
    doc,
    'li',
    {
      class: 'thread-item',
      'data-role': 'thread',
      'data-thread-id': thread.thread_id,
      'data-graph-id': thread.graph_id ?? '',
      'data-status': thread.status,
      'data-signature': signatureOf(thread, names),
    },
    [
      h(doc, 'button', { type: 'button', class: 'thread-open', 'data-action': 'open-thread' }, [
        h(doc, 'span', { class: 'thread-question' }, [asked]),
        h(doc, 'span', { class: 'thread-facts' }, [
          h(doc, 'code', {}, [graph]),
          ` · ${statusWords(thread.status)} · `,
          h(doc, 'time', { datetime: thread.updated_at }, [formatMoment(thread.updated_at)]),
        ]),
      ]),
    ],
  );
}

function graphName(thread, names) {
  return thread.graph_id === null ? 'unknown graph' : (names.get(thread.graph_id) ?? thread.graph_id);
}

/** What a row shows, as one string: a row whose signature is unchanged is left as it is. */
function signatureOf(thread, names) {
  return JSON.stringify([graphName(thread, names), thread.question, thread.status, thread.updated_at]);
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmpty(value) {
  return typeof value === 'string' && value !== '';
}
