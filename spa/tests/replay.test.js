import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_GAP_MS, parseRecording, recordedQuestion, replayDelays, replayRecording } from '../replay.js';
import { applyEnvelopes, newRun } from '../state.js';
import { envelopes } from './support.js';

/** A recorded stream written the way `harness eval` writes an event log: one envelope a line. */
function asJsonl(name) {
  return envelopes(name)
    .map((envelope) => `${JSON.stringify(envelope)}\n`)
    .join('');
}

/** A sleep that waits for nothing and remembers what it was asked to wait. */
function recordingSleep() {
  const waits = [];
  const sleep = async (ms) => {
    waits.push(ms);
  };
  return { sleep, waits };
}

describe('parseRecording', () => {
  test('reads every envelope of a log in order, blank lines and a BOM aside', () => {
    const text = `\uFEFF${asJsonl('graph-react')}\n\r\n`;
    const parsed = parseRecording(text);
    assert.deepEqual(parsed, envelopes('graph-react'));
    assert.deepEqual(
      parsed.map((envelope) => envelope.seq),
      parsed.map((_, index) => index + 1),
    );
  });

  test('a line that is not an envelope is an error naming its line', () => {
    const [first] = envelopes('normal');
    assert.throws(() => parseRecording(`${JSON.stringify(first)}\n{oops\n`), /Line 2 is not JSON/);
    assert.throws(() => parseRecording(`${JSON.stringify(first)}\n{"type":"x"}\n`), /Line 2 is not an event envelope/);
    assert.throws(() => parseRecording('\n\n'), /no events/);
  });
});

describe('replayDelays', () => {
  const at = (...times) => times.map((time, index) => ({ seq: index + 1, at: `2026-12-02T10:00:${time}Z` }));

  test('the recorded gaps, divided by the speed, each capped', () => {
    const recorded = at('00.000000', '00.250000', '00.250000', '09.000000');
    assert.deepEqual(replayDelays(recorded, 1), [0, 250, 0, MAX_GAP_MS]);
    assert.deepEqual(replayDelays(recorded, 10), [0, 25, 0, 875]);
  });

  test('speed 0 is at once; a missing or backwards time waits nothing', () => {
    assert.deepEqual(replayDelays(at('00.000000', '01.000000'), 0), [0, 0]);
    assert.deepEqual(replayDelays([{ at: 'x' }, { at: 'y' }, ...at('05.000000', '01.000000')], 1), [0, 0, 0, 0]);
  });
});

describe('replayRecording', () => {
  test('hands every envelope over once, in order, batched between waits; the run ends as the live one did', async () => {
    const recorded = parseRecording(asJsonl('graph-react'));
    const { sleep, waits } = recordingSleep();
    const batches = [];
    await replayRecording(recorded, { speed: 1, sleep, onEnvelopes: (batch) => batches.push(batch) });

    assert.deepEqual(batches.flat(), recorded);
    assert.equal(batches.length, waits.length + 1);
    assert.deepEqual(
      waits,
      replayDelays(recorded, 1).filter((ms) => ms > 0),
    );
    const replayed = batches.reduce(applyEnvelopes, newRun({ mode: 'graph' }));
    const live = applyEnvelopes(newRun({ mode: 'graph' }), envelopes('graph-react'));
    assert.deepEqual(replayed, live);
  });

  test('at once: one batch, no wait', async () => {
    const recorded = parseRecording(asJsonl('normal'));
    const { sleep, waits } = recordingSleep();
    const batches = [];
    await replayRecording(recorded, { speed: 0, sleep, onEnvelopes: (batch) => batches.push(batch) });
    assert.deepEqual(waits, []);
    assert.deepEqual(batches, [recorded]);
  });

  test('an aborted replay stops handing envelopes over', async () => {
    const recorded = parseRecording(asJsonl('graph-react'));
    const controller = new AbortController();
    const seen = [];
    const sleep = async (_, signal) => {
      controller.abort(new Error('stopped'));
      if (signal.aborted) throw signal.reason;
    };
    await assert.rejects(
      replayRecording(recorded, {
        speed: 1000,
        sleep,
        signal: controller.signal,
        onEnvelopes: (batch) => seen.push(...batch),
      }),
      /stopped/,
    );
    assert.ok(seen.length < recorded.length);
  });
});

describe('recordedQuestion', () => {
  test("a graph's log names the person's first message; the support agent's has none", () => {
    assert.equal(recordedQuestion(envelopes('graph-react')), 'Please refund order A-1001.');
    assert.equal(recordedQuestion(envelopes('normal')), null);
  });
});
