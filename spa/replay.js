// Replaying a recorded run: an event log as JSONL (one envelope a line, the shape of `GET /runs/{id}/events`,
// what `harness eval` writes to `events/<case>.<epoch>.jsonl`), handed to the page in batches as if they came
// off a stream, at the pace they were recorded (each wait capped) or all at once. No DOM: the page applies the
// batches with the same reducer as a live stream's.

import { contentText } from './messages.js';
import { abortableSleep } from './stream.js';

/** The longest wait between two replayed events: a model that thought for a minute need not be waited for. */
export const MAX_GAP_MS = 2000;

/** The envelopes of a recording, in order; a line that is not one is an error naming the line. */
export function parseRecording(text) {
  const envelopes = [];
  const lines = String(text).replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`Line ${index + 1} is not JSON.`);
    }
    const ok = typeof value?.type === 'string' && typeof value.run_id === 'string' && Number.isInteger(value.seq);
    if (!ok) throw new Error(`Line ${index + 1} is not an event envelope (type, run_id, seq).`);
    envelopes.push(value);
  });
  if (envelopes.length === 0) throw new Error('The file holds no events.');
  return envelopes;
}

/** The wait before each envelope: the recorded gap divided by `speed` (0 is at once), at most `MAX_GAP_MS`. */
export function replayDelays(envelopes, speed) {
  return envelopes.map((envelope, index) => {
    if (index === 0 || !(speed > 0)) return 0;
    const gap = Date.parse(envelope.at) - Date.parse(envelopes[index - 1].at);
    return Number.isFinite(gap) && gap > 0 ? Math.min(MAX_GAP_MS, Math.round(gap / speed)) : 0;
  });
}

/** What the run was asked: the first person's message of a graph's state, else null (the support agent's log has none). */
export function recordedQuestion(envelopes) {
  for (const envelope of envelopes) {
    const messages = envelope.type === 'graph_part' ? envelope.data?.data?.messages : null;
    const human = Array.isArray(messages) ? messages.find((message) => message?.type === 'human') : null;
    if (human) return contentText(human.content) || null;
  }
  return null;
}

/**
 * Hand the envelopes to `onEnvelopes` in batches, waiting between them as `replayDelays` says; envelopes
 * due at the same moment go in one batch, as a stream's read does. Resolves when all are handed over.
 */
export async function replayRecording(envelopes, { speed = 1, onEnvelopes, sleep = abortableSleep, signal } = {}) {
  const delays = replayDelays(envelopes, speed);
  let batch = [];
  for (let index = 0; index < envelopes.length; index += 1) {
    if (delays[index] > 0) {
      if (batch.length > 0) onEnvelopes(batch);
      batch = [];
      await sleep(delays[index], signal);
    }
    batch.push(envelopes[index]);
  }
  if (batch.length > 0) onEnvelopes(batch);
}
