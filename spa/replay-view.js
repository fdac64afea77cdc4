// "Replay a recorded run", below the graph: a recorded event log (`harness eval`'s `events/<case>.<epoch>.jsonl`)
// drawn as a new turn of the page, its envelopes taken as a stream's are, at the pace chosen.

import { setText } from './render.js';
import { parseRecording, recordedQuestion, replayRecording } from './replay.js';
import { streamEnded } from './state.js';
import { isActive, setConnection, setReplay, setRun } from './store.js';

export function mountReplayView(page) {
  const { store, els } = page;
  const state = () => store.state;

  async function replayFile(file) {
    if (isActive(state())) return;
    let envelopes;
    try {
      envelopes = parseRecording(await file.text());
    } catch (error) {
      setText(els.replayNote, `${file.name} cannot be replayed: ${error.message}`);
      return;
    }
    const graphRun = envelopes.some((envelope) => envelope.type === 'graph_part' || envelope.type === 'run_completed');
    const question = recordedQuestion(envelopes) ?? `(the question of ${file.name} is not in its events)`;
    page.turns.startTurn(question, graphRun ? 'graph' : 'stream');
    const replay = { controller: new AbortController() };
    setText(els.replayNote, `Replaying ${file.name}: ${envelopes.length} events.`);
    store.update((current) => setConnection(setReplay(current, replay), 'replaying', { name: file.name }));
    try {
      await replayRecording(envelopes, {
        speed: Number(els.replaySpeed.value),
        signal: replay.controller.signal,
        onEnvelopes: (batch) => page.turns.takeEnvelopes(batch, { replayed: true }),
      });
    } catch {
      // stopped: what was replayed stands, unfinished
    }
    if (state().replay !== replay) return;
    const run = streamEnded(state().run);
    setText(els.replayNote, `Replayed ${file.name}: ${run.lastSeq} of ${envelopes.length} events.`);
    store.update((current) => setConnection(setReplay(setRun(current, run), null), 'replayed', { name: file.name }));
  }

  els.replayFile.addEventListener('change', () => {
    const [file] = els.replayFile.files;
    els.replayFile.value = ''; // the same file can be chosen again
    if (file) replayFile(file);
  });
}
