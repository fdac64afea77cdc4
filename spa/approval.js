// The approval card of the turn on screen, decided: `/chat/resume` for the support agent (its stream taken over
// once it opens, or a JSON answer), the thread's next run with `command.resume` for a registered graph.

import { explainProblem } from './access.js';
import { STREAM_MODES, resumeFor } from './assistants.js';
import { setText } from './render.js';
import { applyProblem, applyResponse } from './state.js';
import {
  decisionRefused,
  decisionSent,
  decisionSettled,
  setConnection,
  setJsonRequest,
  setLost,
  setRun,
} from './store.js';

/** Answers to a decision that leave the run as it was: still waiting, for someone else or for later. */
const DECISION_REFUSALS = new Set([401, 403, 404, 409]);

export function mountApproval(page) {
  const { store, els, api } = page;
  const state = () => store.state;
  const reduceRun = (reducer, ...args) => store.update(setRun, reducer(state().run, ...args));

  async function decide(decision) {
    const { run, decision: earlier } = state();
    const card = page.transcript.card();
    if (!run?.approval || !card || earlier?.pending) return;
    const comment = card.querySelector('[data-region=approval-comment]').value.trim();
    const body = { run_id: run.runId, approval_id: run.approval.approval_id, decision };
    if (comment) body.comment = comment;
    if (state().sessionId) body.session_id = state().sessionId;
    for (const button of card.querySelectorAll('button')) button.disabled = true;
    setText(card.querySelector('[data-region=approval-error]'), '');
    store.update(decisionSent, decision, comment);

    if (run.mode === 'graph') {
      await resumeGraphRun(run, decision, comment);
    } else if (run.mode === 'stream' && els.streamToggle.checked) {
      const resume = { url: '/chat/resume', body, runId: run.runId };
      const { result, adopted } = await page.turns.follow(resume, { takeOverOnOpen: true });
      if (!adopted && result.kind === 'json' && result.status === 200) {
        // no stream on the way: the JSON answer is the resumed turn's
        page.turns.stopFollowing();
        reduceRun(applyResponse, result.body);
        store.update(setConnection, 'json');
      } else if (!adopted && result.kind !== 'aborted') {
        // refused before a stream opened (e.g. decided elsewhere): the run still waits on the first stream
        decisionFailed(result.body, result.status ?? 0);
      }
    } else {
      const controller = new AbortController();
      store.update(setJsonRequest, controller);
      let answer;
      try {
        answer = await api.resume(body, controller.signal);
      } catch {
        return;
      } finally {
        store.update(setJsonRequest, null);
      }
      if (answer.ok) reduceRun(applyResponse, answer.body);
      else if (DECISION_REFUSALS.has(answer.status)) decisionFailed(answer.body, answer.status);
      else reduceRun(applyProblem, answer.body, answer.status);
    }
    store.update(decisionSettled);
    page.turns.remember();
  }

  /**
   * A decision on a registered graph's interrupts: the thread's next run carries it as `command.resume`, which
   * continues the same run; its events come on the stream already open (or on one opened again from where it was).
   */
  async function resumeGraphRun(run, decision, comment) {
    const body = {
      assistant_id: state().assistant.assistant_id,
      command: { resume: resumeFor(run.interrupts, decision, comment) },
      stream_mode: [...STREAM_MODES],
    };
    const answer = await api.startRun(state().threadId, body);
    if (!answer.ok) {
      if (DECISION_REFUSALS.has(answer.status)) decisionFailed(answer.body, answer.status);
      else reduceRun(applyProblem, answer.body, answer.status);
      return;
    }
    const now = state().run;
    if (state().follower === null && now?.runId === run.runId && !now.terminal) {
      store.update(setLost, null);
      page.turns.follow({ runId: run.runId, lastEventId: `${run.runId}:${now.lastSeq}`, immediate: true });
    }
  }

  function decisionFailed(problem, status) {
    store.update(decisionRefused);
    const card = page.transcript.card();
    if (!card) return;
    for (const button of card.querySelectorAll('button')) button.disabled = false;
    const detail = explainProblem(status, problem)?.detail || `The decision was not accepted (HTTP ${status}).`;
    setText(card.querySelector('[data-region=approval-error]'), detail);
  }

  return { decide };
}
