import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SSEDecoder, SSEParser } from '../sse.js';
import { encode, fixtureBytes, parseChunks } from './support.js';

const RECORDED = ['normal', 'refused', 'paused', 'resumed', 'failed', 'cancelled'];

/** The stream with every LF line end replaced (the server sends LF; the spec allows all three). */
function withLineEnds(bytes, ending) {
  return encode(new TextDecoder().decode(bytes).replaceAll('\n', ending));
}

/** Split at every byte offset and check each split parses to what the whole does. */
function assertEverySplit(bytes, expected) {
  for (let offset = 0; offset <= bytes.length; offset += 1) {
    const got = parseChunks([bytes.subarray(0, offset), bytes.subarray(offset)]);
    if (got.events.length !== expected.events.length) {
      assert.fail(`split at byte ${offset}: ${got.events.length} events, expected ${expected.events.length}`);
    }
    assert.deepEqual(got, expected, `split at byte ${offset}`);
  }
}

/** A seeded generator, so a failing random split can be reproduced. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomChunks(bytes, next) {
  const chunks = [];
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + Math.floor(next() * 17);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

// A stream of every kind of line the spec knows, with mixed line ends and multi-byte characters.
const EDGE_CASES = [
  'retry: 1500\r\n',
  ': a comment\n',
  '\n', // a blank line with nothing buffered dispatches nothing
  'id: r_1:1\r',
  'event: graph_topology\r',
  'data: {"a":1}\r',
  '\r',
  ':hb\r\n',
  'id: r_1:2\n',
  'data: first line\n',
  'data:second line, no space\n',
  'data:  two spaces keep one\n',
  'data\n', // a field name alone: data is the empty string
  'data: ü € 𝄞 \u2028 "quoted" <b>not markup</b>\n',
  '\n',
  'event: named-but-empty\n', // no data: not dispatched, and the type does not carry over
  '\n',
  'id: with\u0000nul\n', // ignored: the id stays r_1:2
  'retry: 12x\n', // ignored: not all digits
  'retry\n', // ignored
  'unknown: field\n',
  'data: after ignored lines\n',
  '\r\n',
  'id\n', // empty id resets the last event id
  'data: x\n',
  '\n',
  'data: never finished\n', // no blank line before the end: discarded
].join('');

const EDGE_CASES_EXPECTED = {
  events: [
    { type: 'graph_topology', data: '{"a":1}', lastEventId: 'r_1:1' },
    {
      type: 'message',
      data: 'first line\nsecond line, no space\n two spaces keep one\n\nü € 𝄞 \u2028 "quoted" <b>not markup</b>',
      lastEventId: 'r_1:2',
    },
    { type: 'message', data: 'after ignored lines', lastEventId: 'r_1:2' },
    { type: 'message', data: 'x', lastEventId: '' },
  ],
  retries: [1500],
  comments: [' a comment', 'hb'],
  lastEventId: '',
};

describe('SSE parser', () => {
  test('parses a recorded stream: retry first, then one event per frame with its id and type', () => {
    const { events, retries } = parseChunks([fixtureBytes('refused')]);
    assert.deepEqual(retries, [2000]);
    assert.deepEqual(
      events.map((event) => event.type),
      ['graph_topology', 'node_started', 'node_completed', 'interaction_logged', 'turn_completed'],
    );
    for (const [index, event] of events.entries()) {
      const envelope = JSON.parse(event.data);
      assert.equal(envelope.type, event.type);
      assert.equal(event.lastEventId, `${envelope.run_id}:${index + 1}`);
    }
  });

  test('every edge case of the spec, in one stream', () => {
    assert.deepEqual(parseChunks([encode(EDGE_CASES)]), EDGE_CASES_EXPECTED);
  });

  test('the edge-case stream split at every byte offset, and at every pair of offsets', () => {
    const bytes = encode(EDGE_CASES);
    assertEverySplit(bytes, EDGE_CASES_EXPECTED);
    for (let first = 0; first <= bytes.length; first += 3) {
      for (let second = first; second <= bytes.length; second += 1) {
        const got = parseChunks([bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)]);
        assert.deepEqual(got, EDGE_CASES_EXPECTED, `split at bytes ${first} and ${second}`);
      }
    }
  });

  for (const name of RECORDED) {
    for (const [label, ending] of [
      ['LF', '\n'],
      ['CRLF', '\r\n'],
      ['CR', '\r'],
    ]) {
      test(`recorded ${name} stream with ${label} line ends, split at every byte offset`, () => {
        const bytes = label === 'LF' ? fixtureBytes(name) : withLineEnds(fixtureBytes(name), ending);
        const expected = parseChunks([fixtureBytes(name)]);
        assert.ok(expected.events.length > 0);
        assert.deepEqual(parseChunks([bytes]), expected);
        assertEverySplit(bytes, expected);
      });
    }
  }

  test('one byte at a time, and random chunkings, give the same events', () => {
    const next = random(20261130);
    for (const name of RECORDED) {
      const bytes = fixtureBytes(name);
      const expected = parseChunks([bytes]);
      const oneByOne = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      assert.deepEqual(parseChunks(oneByOne), expected, `${name}, one byte at a time`);
      for (let round = 0; round < 50; round += 1) {
        assert.deepEqual(parseChunks(randomChunks(bytes, next)), expected, `${name}, random round ${round}`);
      }
    }
  });

  test('a CR ending one chunk and an LF opening the next are one line end', () => {
    const events = [];
    const parser = new SSEParser({ onEvent: (event) => events.push(event) });
    parser.push('data: a\r');
    parser.push('\ndata: b\r');
    parser.push('');
    parser.push('\n\r');
    parser.push('\n');
    assert.deepEqual(events, [{ type: 'message', data: 'a\nb', lastEventId: '' }]);
  });

  test('a BOM-free stream keeps its first character; one leading BOM is dropped, a second is not', () => {
    assert.deepEqual(parseChunks([encode('data: x\n\n')]).events, [{ type: 'message', data: 'x', lastEventId: '' }]);
    assert.deepEqual(parseChunks([encode('retry: 5\n\n')]).retries, [5]);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const withBom = [bom.subarray(0, 1), bom.subarray(1), encode('data: x\n\n')];
    assert.deepEqual(parseChunks(withBom).events, [{ type: 'message', data: 'x', lastEventId: '' }]);
    // after the first BOM, a second one is part of the field name, which is then unknown
    assert.deepEqual(parseChunks([bom, bom, encode('data: x\n\n')]).events, []);
  });

  test('an event cut off by the end of the stream is never dispatched', () => {
    const events = [];
    const decoder = new SSEDecoder({ onEvent: (event) => events.push(event) });
    decoder.feed(encode('id: r:1\ndata: {"complete":true}\n\nid: r:2\ndata: {"cut'));
    decoder.end();
    assert.equal(events.length, 1);
    assert.equal(decoder.lastEventId, 'r:1');
  });

  test('a multi-byte character split across chunks decodes whole', () => {
    const bytes = encode('data: 𝄞€\n\n');
    for (let offset = 6; offset < bytes.length - 2; offset += 1) {
      const { events } = parseChunks([bytes.subarray(0, offset), bytes.subarray(offset)]);
      assert.equal(events[0].data, '𝄞€');
    }
  });

  test('handlers may feed another parser re-entrantly', () => {
    const inner = [];
    const innerParser = new SSEParser({ onEvent: (event) => inner.push(event.data) });
    const outer = new SSEParser({ onEvent: (event) => innerParser.push(`data: ${event.data}\n\n`) });
    outer.push('data: one\n\ndata: two\n\n');
    assert.deepEqual(inner, ['one', 'two']);
  });
});
