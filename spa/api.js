// Plain JSON calls to the API, each answering `{ok, status, body}`; problem+json bodies come back as
// they are (`code`, `detail`, ...), and a network failure as `{ok: false, status: 0, body: {code: 'network_error'}}`.
// The `fetch` given adds the token when the service wants one (auth.js).

export const JSON_TYPE = 'application/json';

export function createApi({ fetch = globalThis.fetch.bind(globalThis) } = {}) {
  async function call(method, url, body, signal) {
    const init = { method, headers: { Accept: JSON_TYPE }, cache: 'no-store', signal };
    if (body !== undefined) {
      init.headers['Content-Type'] = JSON_TYPE;
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (signal?.aborted) throw error;
      return { ok: false, status: 0, body: { code: 'network_error', detail: 'The server could not be reached.' } };
    }
    return { ok: response.ok, status: response.status, body: await readJson(response) };
  }

  return {
    /** `POST /chat` answered as JSON: a ChatResponse, or a problem. */
    chat: (body, signal) => call('POST', '/chat', body, signal),
    /** `POST /chat/resume` answered as JSON. */
    resume: (body, signal) => call('POST', '/chat/resume', body, signal),
    /** `POST /runs/{id}/cancel`: 202 and the run's snapshot. */
    cancel: (runId) => call('POST', `/runs/${encodeURIComponent(runId)}/cancel`),
    /** `POST /runs/{id}/feedback` with `{score: 1 | 0, comment?}`: 201 and the feedback kept (the latest replaces the first). */
    feedback: (runId, body) => call('POST', `/runs/${encodeURIComponent(runId)}/feedback`, body),
    /** `GET /runs/{id}/case`: a finished run of a registered graph as an eval case (`harness eval capture`'s). */
    runCase: (runId) => call('GET', `/runs/${encodeURIComponent(runId)}/case`),
    /** `GET /runs/{id}`: the RunSnapshot. */
    run: (runId) => call('GET', `/runs/${encodeURIComponent(runId)}`),
    /** `GET /approvals`: `{approvals: [...]}`, the pending approvals the caller may decide. */
    approvals: () => call('GET', '/approvals'),
    /** `POST /assistants/search`: one assistant per registered graph. */
    assistants: () => call('POST', '/assistants/search', { limit: 100 }),
    /** `GET /assistants/{id}/schemas`: the graph's input, output and state schemas. */
    schemas: (assistantId) => call('GET', `/assistants/${encodeURIComponent(assistantId)}/schemas`),
    /** `POST /threads`: a new thread (a conversation with a registered graph). */
    createThread: () => call('POST', '/threads', {}),
    /** `POST /threads/search`: the caller's threads, whichever protocol their runs came in by. */
    searchThreads: (body) => call('POST', '/threads/search', body),
    /** `GET /threads/{id}/runs`: the thread's runs, newest first. */
    threadRuns: (threadId) => call('GET', `/threads/${encodeURIComponent(threadId)}/runs`),
    /** `POST /threads/{id}/runs`: start a run in the background (or resume one: `command.resume`); answers its `run_id`. */
    startRun: (threadId, body) => call('POST', `/threads/${encodeURIComponent(threadId)}/runs`, body),
    /** `GET /kb/{doc_id}`: `{doc_id, title, body}` of a cited document. */
    document: (docId, signal) => call('GET', documentPath(docId), undefined, signal),
  };
}

/** The same-origin path of a knowledge-base document, whatever characters its id holds. */
export function documentPath(docId) {
  return `/kb/${encodeURIComponent(String(docId))}`;
}

/** The body as JSON when it is JSON, else a problem-shaped stand-in that says what came back. */
export async function readJson(response) {
  const raw = await response.text().catch(() => '');
  try {
    return JSON.parse(raw);
  } catch {
    return { code: `http_${response.status}`, detail: raw.slice(0, 200) || response.statusText || 'No body.' };
  }
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null. */
export function retryAfterMs(response, now = Date.now()) {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
