import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backoffDelay, followTurn } from '../stream.js';
import { applyEnvelopes, isSuccess, newRun } from '../state.js';
import { encode, envelopes, fixtureBytes } from './support.js';

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };
const RUN = envelopes('normal')[0].run_id;
const ALL = fixtureBytes('normal');

/** The byte offset just after the frame of `seq` in the recorded normal stream. */
function afterFrame(seq) {
  const text = new TextDecoder().decode(ALL);
  const start = text.indexOf(`id: ${RUN}:${seq}\n`);
  return encode(text.slice(0, text.indexOf('\n\n', start) + 2)).length;
}

/** The frames of the recorded stream with seq > `after`, as the events endpoint replays them. */
function replayAfter(after) {
  const text = new TextDecoder().decode(ALL);
  const from = text.indexOf(`id: ${RUN}:${after + 1}\n`);
  return encode(`retry: 2000\n\n${text.slice(from)}`);
}

/** A body that hands out its chunks, then closes, or breaks like a dropped connection. */
function body(chunks, { breakAtEnd = false, hang = false } = {}) {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]);
      else if (hang) return new Promise(() => {});
      else if (breakAtEnd) controller.error(new TypeError('network error'));
      else controller.close();
      return undefined;
    },
  });
}

/** A scripted fetch: answers the given responses in order and records every request. */
function scriptedFetch(responses) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    requests.push({ url, method: init.method ?? 'GET', headers: { ...init.headers }, body: init.body });
    const next = responses.shift();
    if (next === undefined) throw new Error(`unexpected request ${url}`);
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(init) : next;
  };
  return { fetch, requests };
}

function follow(fetch, overrides = {}) {
  const delivered = [];
  const connection = [];
  const delays = [];
  const opened = [];
  const result = followTurn({
    url: '/chat',
    body: { message: 'How do I reset my password?' },
    fetch,
    onEnvelopes: (batch) => delivered.push(...batch),
    onConnection: (state, detail) => connection.push([state, detail]),
    onOpen: (response) => opened.push(response),
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { result, delivered, connection, delays, opened };
}

const seqs = (list) => list.map((envelope) => envelope.seq);

describe('the stream client', () => {
  test('POSTs with Accept: text/event-stream and hands over every envelope up to the terminal one', async () => {
    const { fetch, requests } = scriptedFetch([new Response(body([ALL.subarray(0, 999), ALL.subarray(999)]), { headers: SSE })]);
    const run = follow(fetch);
    const result = await run.result;
    assert.equal(result.kind, 'ended');
    assert.equal(result.envelope.type, 'turn_completed');
    assert.deepEqual(requests[0].headers, { Accept: 'text/event-stream', 'Content-Type': 'application/json' });
    assert.equal(requests[0].method, 'POST');
    assert.deepEqual(JSON.parse(requests[0].body), { message: 'How do I reset my password?' });
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
    assert.equal(run.opened.length, 1);
    assert.deepEqual(run.connection.map(([state]) => state), ['connecting', 'live']);
  });

  test('a dropped connection reconnects with Last-Event-ID, and nothing arrives twice', async () => {
    const cut = afterFrame(20) + 7; // in the middle of the next frame
    const { fetch, requests } = scriptedFetch([
      new Response(body([ALL.subarray(0, 500), ALL.subarray(500, cut)], { breakAtEnd: true }), { headers: SSE }),
      new Response(body([replayAfter(20)]), { headers: SSE }),
    ]);
    const run = follow(fetch);
    const result = await run.result;
    assert.equal(result.kind, 'ended');
    assert.equal(requests[1].url, `/runs/${RUN}/events`);
    assert.equal(requests[1].method, 'GET');
    assert.deepEqual(requests[1].headers, { Accept: 'text/event-stream', 'Last-Event-ID': `${RUN}:20` });
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
    assert.deepEqual(run.delays, [backoffDelay(1, 2000, () => 0.5)]);
    assert.ok(run.connection.some(([state, detail]) => state === 'reconnecting' && detail.attempt === 1));
    const state = applyEnvelopes(newRun(), run.delivered);
    assert.equal(state.answer, envelopes('normal').at(-1).data.response.answer.text);
    assert.equal(isSuccess(state), true);
  });

  test('a replay that overlaps what was already read is deduplicated by seq', async () => {
    const { fetch } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(30))]), { headers: SSE }), // closes cleanly, no terminal
      new Response(body([replayAfter(10)]), { headers: SSE }), // a server that resends from seq 11
    ]);
    const run = follow(fetch);
    assert.equal((await run.result).kind, 'ended');
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
  });

  test('a JSON answer to the stream request is the degrade path', async () => {
    const response = envelopes('normal').at(-1).data.response;
    const { fetch } = scriptedFetch([
      new Response(JSON.stringify(response), { headers: { 'content-type': 'application/json' } }),
    ]);
    const result = await follow(fetch).result;
    assert.deepEqual(result, { kind: 'json', status: 200, body: response });
  });

  test('an error answer to the POST is a problem, not a reconnect', async () => {
    const problem = { code: 'session_busy', detail: 'busy', run_id: 'r_1' };
    const { fetch, requests } = scriptedFetch([
      new Response(JSON.stringify(problem), { status: 409, headers: { 'content-type': 'application/problem+json' } }),
    ]);
    const result = await follow(fetch).result;
    assert.equal(result.kind, 'problem');
    assert.equal(result.status, 409);
    assert.deepEqual(result.body, problem);
    assert.equal(requests.length, 1);
  });

  test('a POST that gets no answer is unreachable; a stream cut before the run is known is lost', async () => {
    const down = scriptedFetch([new TypeError('Failed to fetch')]);
    assert.equal((await follow(down.fetch).result).kind, 'unreachable');
    const early = scriptedFetch([new Response(body([encode('retry: 2000\n\n')], { breakAtEnd: true }), { headers: SSE })]);
    assert.deepEqual(await follow(early.fetch).result, { kind: 'lost', runId: null, lastEventId: '' });
  });

  test('reconnecting gives up after its attempts, waiting longer each time', async () => {
    const failures = Array.from({ length: 4 }, () => new TypeError('Failed to fetch'));
    const { fetch, requests } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(5))]), { headers: SSE }),
      ...failures,
    ]);
    const run = follow(fetch, { maxAttempts: 4 });
    const result = await run.result;
    assert.deepEqual(result, { kind: 'lost', runId: RUN, lastEventId: `${RUN}:5` });
    assert.equal(requests.length, 5);
    assert.deepEqual(run.delays, [1500, 3000, 6000, 12000]);
  });

  test('a reconnect that makes progress starts the backoff over', async () => {
    const { fetch } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(5))]), { headers: SSE }),
      new TypeError('Failed to fetch'),
      () => new Response(body([encode(new TextDecoder().decode(replayAfter(5)).slice(0, 1500))]), { headers: SSE }),
      new Response(body([replayAfter(7)]), { headers: SSE }),
    ]);
    const run = follow(fetch);
    assert.equal((await run.result).kind, 'ended');
    assert.deepEqual(run.delays, [1500, 3000, 1500]);
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
  });

  test('the server retry hint sets the backoff base; Retry-After is honoured', async () => {
    const { fetch } = scriptedFetch([
      new Response(body([encode('retry: 100\n\n'), ALL.subarray(13, afterFrame(5))]), { headers: SSE }),
      new Response('{"code":"rate_limited"}', { status: 429, headers: { 'retry-after': '7' } }),
      new Response(body([replayAfter(5)]), { headers: SSE }),
    ]);
    const run = follow(fetch);
    assert.equal((await run.result).kind, 'ended');
    assert.deepEqual(run.delays, [75, 7000]);
  });

  test('a cursor the server refuses replays from the start, and the repeats are dropped', async () => {
    const { fetch, requests } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(8))]), { headers: SSE }),
      new Response('{"code":"invalid_cursor"}', { status: 422, headers: { 'content-type': 'application/problem+json' } }),
      new Response(body([ALL]), { headers: SSE }),
    ]);
    const run = follow(fetch);
    assert.equal((await run.result).kind, 'ended');
    assert.equal(requests[2].headers['Last-Event-ID'], undefined);
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
  });

  test('a run that is gone (404) ends the reconnecting with the problem', async () => {
    const { fetch } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(5))]), { headers: SSE }),
      new Response('{"code":"run_not_found"}', { status: 404, headers: { 'content-type': 'application/problem+json' } }),
    ]);
    const result = await follow(fetch).result;
    assert.equal(result.kind, 'problem');
    assert.equal(result.status, 404);
  });

  test('a reconnect refused for its token (401) or its caller (403) ends with the problem, not more attempts', async () => {
    for (const [status, code] of [
      [401, 'token_expired'],
      [403, 'not_the_owner'],
    ]) {
      const { fetch, requests } = scriptedFetch([
        new Response(body([ALL.subarray(0, afterFrame(5))]), { headers: SSE }),
        new Response(JSON.stringify({ code }), { status, headers: { 'content-type': 'application/problem+json' } }),
      ]);
      const result = await follow(fetch).result;
      assert.deepEqual([result.kind, result.status, result.body.code], ['problem', status, code]);
      assert.equal(requests.length, 2);
    }
  });

  test('a stream that goes silent past the idle timeout is treated as cut', async () => {
    const { fetch } = scriptedFetch([
      new Response(body([ALL.subarray(0, afterFrame(5))], { hang: true }), { headers: SSE }),
      new Response(body([replayAfter(5)]), { headers: SSE }),
    ]);
    const run = follow(fetch, { idleTimeoutMs: 20 });
    assert.equal((await run.result).kind, 'ended');
    assert.deepEqual(seqs(run.delivered), seqs(envelopes('normal')));
  });

  test('following an existing run (a reload) opens its events at once, from the cursor given', async () => {
    const { fetch, requests } = scriptedFetch([new Response(body([replayAfter(0)]), { headers: SSE })]);
    const run = follow(fetch, { url: null, runId: RUN, lastEventId: '', immediate: true });
    assert.equal((await run.result).kind, 'ended');
    assert.equal(requests[0].url, `/runs/${RUN}/events`);
    assert.deepEqual(run.delays, []);
  });

  test('aborting stops everything and says so', async () => {
    const controller = new AbortController();
    const fetch = (_, init) =>
      new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
    const run = follow(fetch, { signal: controller.signal });
    controller.abort();
    assert.deepEqual(await run.result, { kind: 'aborted' });
  });

  test('the backoff grows exponentially from the base, with jitter, up to a cap', () => {
    assert.equal(backoffDelay(1, 2000, () => 0), 1000);
    assert.equal(backoffDelay(1, 2000, () => 1), 2000);
    assert.equal(backoffDelay(3, 2000, () => 1), 8000);
    assert.equal(backoffDelay(20, 2000, () => 1), 30000);
    for (let attempt = 1; attempt < 12; attempt += 1) {
      assert.ok(backoffDelay(attempt + 1, 2000, () => 1) >= backoffDelay(attempt, 2000, () => 1));
    }
  });
});
