// "Save as eval case" under a finished run of a registered graph: `GET /runs/{id}/case` answers the case
// `harness eval capture` writes for the run (the input, each resume decision, what the run did as the expectation,
// redacted), and the page hands it over as a one-line JSONL file to review and append to a dataset. The support
// agent's `/chat` turns are cases of another format, so the offer is for the other graphs only.

import { explainProblem } from './access.js';
import { h, setText } from './render.js';

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** Whether `run` may be saved as a case: a finished run of this service (not a recording) of a registered graph. */
export function mayCapture(run, { recorded = false, support = true } = {}) {
  if (!run || recorded || support || !run.terminal || !FINISHED.has(run.status)) return false;
  return typeof run.runId === 'string' && run.runId !== '';
}

/** The file a case is saved as: its id, one JSON line. */
export function caseFile(body) {
  return { name: `${body.id}.jsonl`, text: `${JSON.stringify(body)}\n` };
}

/** What the page says once the service answered `{ok, status, body}`. */
export function captureWords({ ok, status, body }) {
  if (ok && typeof body?.id === 'string') {
    return `Saved ${body.id}.jsonl: its expectation is what the run did; review it before adding it to a dataset.`;
  }
  const detail = explainProblem(status, body)?.detail || (status === 0 ? '' : `HTTP ${status}`);
  return `The case was not saved: ${detail || 'the service did not say why.'}`;
}

/** The button and its status line for `runId`. */
export function captureControls(doc, runId) {
  const button = h(doc, 'button', { type: 'button', class: 'capture-button', 'data-action': 'capture-case' }, [
    'Save as eval case',
  ]);
  const said = h(doc, 'p', { class: 'capture-said', 'data-role': 'capture-said', 'aria-live': 'polite' });
  const element = h(doc, 'div', { class: 'capture', 'data-role': 'capture', 'data-run-id': runId }, [button, said]);
  return { element, button, said };
}

/** Ask for the case, hand it over as a file through `download(name, text)`, and say how it went. */
export async function saveCase(api, controls, runId, download) {
  controls.button.setAttribute('aria-disabled', 'true');
  const answer = await api.runCase(runId);
  if (answer.ok && typeof answer.body?.id === 'string') {
    const file = caseFile(answer.body);
    download(file.name, file.text);
  }
  controls.element.setAttribute('data-state', answer.ok ? 'saved' : 'failed');
  controls.button.setAttribute('aria-disabled', 'false');
  setText(controls.said, captureWords(answer));
  return answer;
}
