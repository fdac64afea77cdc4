import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TOKEN_KEY, createCredentials, tokenFrom, withBearer } from '../auth.js';
import { followTurn } from '../stream.js';
import { encode, fixtureBytes } from './support.js';

/** A Web Storage stand-in; `refuse` makes every call throw, as a blocked storage does. */
function memoryStorage({ refuse = false } = {}) {
  const items = new Map();
  const guard = () => {
    if (refuse) throw new DOMException('denied', 'SecurityError');
  };
  return {
    items,
    getItem: (key) => (guard(), items.has(key) ? items.get(key) : null),
    setItem: (key, value) => (guard(), items.set(key, String(value))),
    removeItem: (key) => (guard(), items.delete(key)),
  };
}

/** A fetch that records what it was sent and answers the given responses in order. */
function recordingFetch(responses) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    requests.push({ url, init });
    const next = responses.shift();
    if (next === undefined) throw new Error(`unexpected request ${url}`);
    return next;
  };
  return { fetch, requests };
}

const problem = (status, code) =>
  new Response(JSON.stringify({ code, detail: `raw ${code}` }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });

describe('the credentials', () => {
  test('a token signed in is kept in the storage given, and signing out removes it', () => {
    const storage = memoryStorage();
    const credentials = createCredentials(storage);
    assert.equal(credentials.token, null);
    credentials.signIn('alice-token');
    assert.equal(storage.items.get(TOKEN_KEY), 'alice-token');
    assert.equal(createCredentials(storage).token, 'alice-token', 'a reload finds it');
    credentials.signOut();
    assert.equal(credentials.token, null);
    assert.equal(storage.items.has(TOKEN_KEY), false);
  });

  test('storage that refuses keeps the token in memory for the page', () => {
    const credentials = createCredentials(memoryStorage({ refuse: true }));
    assert.equal(credentials.token, null);
    credentials.signIn('bob-token');
    assert.equal(credentials.token, 'bob-token');
    credentials.signOut();
    assert.equal(credentials.token, null);
  });

  test('what is typed in becomes a token: trimmed, a pasted Bearer dropped, nothing a header cannot carry', () => {
    assert.equal(tokenFrom('  carol-token-0123 \n'), 'carol-token-0123');
    assert.equal(tokenFrom('Bearer eyJ.abc.def'), 'eyJ.abc.def');
    assert.equal(tokenFrom('bearer   x'), 'x');
    assert.equal(tokenFrom(''), null);
    assert.equal(tokenFrom('   '), null);
    assert.equal(tokenFrom('two words'), null);
    assert.equal(tokenFrom('tökén'), null);
    assert.equal(tokenFrom(undefined), null);
  });
});

describe('the authorizing fetch', () => {
  test('without a token the request goes out exactly as it came', async () => {
    const { fetch, requests } = recordingFetch([new Response('{}')]);
    const init = { method: 'POST', headers: { Accept: 'application/json' }, body: '{}' };
    await withBearer(fetch, () => null)('/chat', init);
    assert.equal(requests[0].init, init);
  });

  test('with one, every request carries Authorization: Bearer, the headers it had kept', async () => {
    const { fetch, requests } = recordingFetch([new Response('{}'), new Response('{}')]);
    let token = 'alice-token';
    const authorized = withBearer(fetch, () => token);
    const init = { method: 'GET', headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'r_1:5' } };
    await authorized('/runs/r_1/events', init);
    token = 'carol-token';
    await authorized('/approvals');
    assert.deepEqual(requests[0].init.headers, {
      Accept: 'text/event-stream',
      'Last-Event-ID': 'r_1:5',
      Authorization: 'Bearer alice-token',
    });
    assert.deepEqual(init.headers, { Accept: 'text/event-stream', 'Last-Event-ID': 'r_1:5' }, 'the caller’s init is not touched');
    assert.deepEqual(requests[1].init.headers, { Authorization: 'Bearer carol-token' }, 'the token is read at each call');
  });

  test('a 401 is reported with the token it was sent with, and the caller still reads the body', async () => {
    const refusals = [];
    const { fetch } = recordingFetch([problem(401, 'token_unknown'), problem(403, 'not_an_approver')]);
    const authorized = withBearer(fetch, () => 'wrong', (...refusal) => refusals.push(refusal));
    const refused = await authorized('/approvals');
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).code, 'token_unknown');
    assert.equal(refusals.length, 1);
    assert.equal(refusals[0][1], 'wrong');
    assert.deepEqual(refusals[0][2], { url: '/approvals', ended: false }, 'a token never taken: no sign-in ended');
    assert.equal((await refusals[0][0].json()).code, 'token_unknown', 'the copy reads on its own');
    await authorized('/chat/resume', { method: 'POST' });
    assert.equal(refusals.length, 1, 'only a 401 asks for a sign-in');
  });

  test('a 401 for a token that was taken before says the sign-in ended', async () => {
    const refusals = [];
    const taken = new Response('{"approvals": []}', { status: 200 });
    const { fetch } = recordingFetch([taken, problem(401, 'token_unknown'), problem(401, 'token_unknown')]);
    let token = 'bob-token';
    const authorized = withBearer(fetch, () => token, (...refusal) => refusals.push(refusal));
    await authorized('/approvals');
    await authorized('/runs/r_1/events', { headers: { Accept: 'text/event-stream' } });
    token = 'typed-wrong';
    await authorized('/approvals');
    assert.deepEqual(
      refusals.map(([, sent, about]) => [sent, about]),
      [
        ['bob-token', { url: '/runs/r_1/events', ended: true }],
        ['typed-wrong', { url: '/approvals', ended: false }],
      ],
    );
  });

  test('the stream client’s reconnects carry the token, with Last-Event-ID', async () => {
    const all = new TextDecoder().decode(fixtureBytes('normal'));
    const run = JSON.parse(all.slice(all.indexOf('data: ') + 6, all.indexOf('\n', all.indexOf('data: ')))).run_id;
    const cut = all.indexOf('\n\n', all.indexOf(`id: ${run}:5\n`)) + 2;
    const rest = `retry: 2000\n\n${all.slice(all.indexOf(`id: ${run}:6\n`))}`;
    const sse = { headers: { 'content-type': 'text/event-stream' } };
    const { fetch, requests } = recordingFetch([
      new Response(encode(all.slice(0, cut)), sse),
      new Response(encode(rest), sse),
    ]);
    const result = await followTurn({
      url: '/chat',
      body: { message: 'How do I reset my password?' },
      fetch: withBearer(fetch, () => 'alice-token'),
      sleep: async () => {},
    });
    assert.equal(result.kind, 'ended');
    assert.equal(requests.length, 2);
    assert.equal(requests[0].init.headers.Authorization, 'Bearer alice-token');
    assert.equal(requests[1].url, `/runs/${run}/events`);
    assert.equal(requests[1].init.headers.Authorization, 'Bearer alice-token');
    assert.equal(requests[1].init.headers['Last-Event-ID'], `${run}:5`);
  });
});
