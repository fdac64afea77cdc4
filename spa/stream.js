// The stream client. It POSTs a turn asking for `text/event-stream`, reads the body as it arrives
// (`getReader()`, a streaming decoder, the SSE parser), and hands envelopes over in the batches they
// came in. If the body closes, errors or goes silent before the run's terminal event, it reconnects
// to `GET /runs/{id}/events` with `Last-Event-ID`, after a growing, jittered delay, until the terminal
// event arrives or the attempts run out. A run of a registered graph, started by `POST /threads/{id}/runs`,
// is followed from its events alone (`runId` without `url`). Envelopes are deduplicated by seq. It knows no
// DOM, and no token: the `fetch` it is given adds one when the service wants it (auth.js), reconnects included.

import { JSON_TYPE, readJson, retryAfterMs } from './api.js';
import { SSEDecoder } from './sse.js';

export const EVENT_STREAM = 'text/event-stream';
const TERMINAL_TYPES = new Set(['turn_completed', 'run_completed', 'error']);
const DEFINITIVE_STATUSES = new Set([401, 403, 404]);

/**
 * Follow one turn to its end. Resolves (never rejects, unless `onEnvelopes` throws) to one of:
 * - `{kind: 'ended', envelope}`: the terminal event arrived;
 * - `{kind: 'json', status, body}`: the server answered JSON instead of a stream (the degrade path);
 * - `{kind: 'problem', status, body}`: an error that reconnecting cannot fix (the POST's, or a 401, 403, 404);
 * - `{kind: 'unreachable'}`: the POST got no answer at all;
 * - `{kind: 'lost', runId, lastEventId}`: reconnecting gave up; the run may still be going;
 * - `{kind: 'aborted'}`: the caller's signal aborted.
 */
export async function followTurn(options) {
  return new Follower(options).run();
}

/** The delay before reconnect attempt `attempt` (1-based): exponential from the server's `retry`, capped, jittered. */
export function backoffDelay(attempt, baseMs, random = Math.random, capMs = 30_000) {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

class Follower {
  constructor({
    url = null,
    body = undefined,
    runId = null,
    lastEventId = '',
    fetch = globalThis.fetch.bind(globalThis),
    onOpen = () => {},
    onEnvelopes = () => {},
    onConnection = () => {},
    signal = undefined,
    sleep = abortableSleep,
    random = Math.random,
    maxAttempts = 8,
    retryMs = 2000,
    idleTimeoutMs = 45_000,
    immediate = false,
  }) {
    Object.assign(this, { url, body, runId, lastEventId, fetch, onOpen, onEnvelopes, onConnection, signal });
    Object.assign(this, { sleep, random, maxAttempts, retryMs, idleTimeoutMs, immediate });
    this.maxSeq = 0;
    if (lastEventId) this.maxSeq = Number(lastEventId.split(':').at(-1)) || 0;
  }

  async run() {
    try {
      if (this.url !== null) {
        this.onConnection('connecting', {});
        const opened = await this.open(this.url, {
          method: 'POST',
          headers: { Accept: EVENT_STREAM, 'Content-Type': JSON_TYPE },
          body: JSON.stringify(this.body),
        });
        if (opened.kind !== 'stream') return opened;
        const ended = await this.consume(opened.response);
        if (ended !== null) return ended;
      }
      return await this.reconnect();
    } catch (error) {
      if (this.signal?.aborted) return { kind: 'aborted' };
      throw error;
    }
  }

  async open(url, init) {
    let response;
    try {
      response = await this.fetch(url, { ...init, cache: 'no-store', signal: this.signal });
    } catch (error) {
      if (this.signal?.aborted) throw error;
      return { kind: 'unreachable', error };
    }
    if (!response.ok) {
      return { kind: 'problem', status: response.status, body: await readJson(response), retryAfterMs: retryAfterMs(response) };
    }
    const type = (response.headers.get('content-type') || '').toLowerCase();
    if (!type.startsWith(EVENT_STREAM)) return { kind: 'json', status: response.status, body: await readJson(response) };
    this.onOpen(response);
    this.onConnection('live', {});
    return { kind: 'stream', response };
  }

  /** Read one stream to its end; the terminal result, or null when it ended without one. */
  async consume(response) {
    let terminal = null;
    let batch = [];
    const decoder = new SSEDecoder({
      onEvent: (event) => {
        const envelope = parseEnvelope(event.data);
        if (envelope === null || envelope.seq <= this.maxSeq) return;
        this.runId ??= envelope.run_id;
        this.maxSeq = envelope.seq;
        this.lastEventId = event.lastEventId || `${envelope.run_id}:${envelope.seq}`;
        batch.push(envelope);
        if (TERMINAL_TYPES.has(envelope.type)) terminal = envelope;
      },
      onRetry: (ms) => {
        this.retryMs = ms;
      },
    });
    const flush = () => {
      if (batch.length === 0) return;
      const envelopes = batch;
      batch = [];
      this.onEnvelopes(envelopes);
    };

    if (!response.body) {
      // no readable body in this environment: take it whole (a buffering proxy gives the same)
      decoder.feed(new Uint8Array(await response.arrayBuffer()));
    } else {
      const reader = response.body.getReader();
      let timer = null;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => reader.cancel().catch(() => {}), this.idleTimeoutMs);
      };
      try {
        arm();
        while (terminal === null) {
          const { done, value } = await reader.read();
          if (done) break;
          arm();
          decoder.feed(value);
          flush();
        }
        if (terminal !== null) reader.cancel().catch(() => {});
      } catch (error) {
        if (this.signal?.aborted) throw error;
        // the connection broke: what was read stands, the rest comes from a reconnect
      } finally {
        clearTimeout(timer);
      }
    }
    decoder.end();
    flush();
    return terminal === null ? null : { kind: 'ended', envelope: terminal };
  }

  async reconnect() {
    let attempt = 0;
    let extraWait = 0;
    for (;;) {
      if (this.runId === null) return { kind: 'lost', runId: null, lastEventId: '' };
      attempt += 1;
      if (attempt > this.maxAttempts) return { kind: 'lost', runId: this.runId, lastEventId: this.lastEventId };
      if (this.immediate) {
        // picking a run up again on purpose (a reload, a click): no reason to wait first
        this.immediate = false;
        this.onConnection('connecting', {});
      } else {
        const delayMs = Math.max(extraWait, backoffDelay(attempt, this.retryMs, this.random));
        extraWait = 0;
        this.onConnection('reconnecting', { attempt, delayMs, maxAttempts: this.maxAttempts });
        await this.sleep(delayMs, this.signal);
      }
      const headers = { Accept: EVENT_STREAM };
      if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
      const opened = await this.open(`/runs/${encodeURIComponent(this.runId)}/events`, { method: 'GET', headers });
      if (opened.kind === 'problem') {
        // gone, or not this caller's to read (any more): retrying with the same token cannot help
        if (DEFINITIVE_STATUSES.has(opened.status)) return opened;
        // a cursor the server will not take: replay from the start, the seq check drops what we have
        if (opened.status === 422) this.lastEventId = '';
        extraWait = opened.retryAfterMs ?? 0;
        continue;
      }
      if (opened.kind !== 'stream') continue;
      const before = this.maxSeq;
      const ended = await this.consume(opened.response);
      if (ended !== null) return ended;
      if (this.maxSeq > before) attempt = 0;
    }
  }
}

function parseEnvelope(data) {
  let value;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  const ok =
    typeof value === 'object' &&
    value !== null &&
    typeof value.type === 'string' &&
    typeof value.run_id === 'string' &&
    Number.isInteger(value.seq);
  return ok ? value : null;
}
