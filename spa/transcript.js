// The transcript: a bubble per turn (what was asked, the answer as it forms, its sources, the approval card, notes),
// under a finished run its feedback and "Save as eval case" controls, the backend trace of the turn's final
// response, and the document a source links to. It keeps the current turn's elements and the feedback of every
// finished turn on screen; the rest comes from the store's state.

import { explainProblem } from './access.js';
import { isSupport } from './assistants.js';
import { captureControls, mayCapture, saveCase } from './capture.js';
import {
  feedbackControls,
  feedbackSending,
  feedbackSettled,
  mayGiveFeedback,
  newFeedback,
  renderFeedback,
  sendFeedback,
} from './feedback.js';
import { formatMs } from './format.js';
import { h, setText, streamText } from './render.js';
import { isReplay } from './store.js';
import { approvalCard, citationList, documentView, interruptCard, traceView } from './views.js';

const TRACE_HINT = 'Shown when a turn ends, from its final response.';

export function mountTranscript(page) {
  const { doc, els, api } = page;
  let current = null; // the elements of the turn on screen
  const feedback = new Map(); // run id -> {state, controls}: every finished turn on screen may be rated

  function newTurn(message, number) {
    const previous = current;
    if (previous) {
      // only the current turn carries the hooks; earlier ones stay as a plain transcript
      previous.answer.removeAttribute('data-role');
      previous.answer.removeAttribute('aria-live');
      previous.card?.remove();
    }
    els.empty.hidden = true;
    const answer = h(doc, 'p', { class: 'text answer', 'data-role': 'answer', 'aria-live': 'polite', 'aria-busy': 'true' });
    const earlier = h(doc, 'div', { class: 'earlier', hidden: true }, [
      h(doc, 'p', { class: 'earlier-label' }, ['Proposed']),
      h(doc, 'p', { class: 'text' }),
    ]);
    const sources = h(doc, 'div', { class: 'sources' });
    const slot = h(doc, 'div', { class: 'approval-slot' });
    const note = h(doc, 'p', { class: 'turn-note', hidden: true });
    const feedbackSlot = h(doc, 'div', { class: 'feedback-slot' });
    const item = h(doc, 'li', { class: 'turn', 'data-turn': String(number) }, [
      h(doc, 'div', { class: 'bubble user' }, [
        h(doc, 'p', { class: 'who' }, ['You']),
        h(doc, 'p', { class: 'text' }, [message]),
      ]),
      h(doc, 'div', { class: 'bubble agent' }, [
        h(doc, 'p', { class: 'who' }, ['Agent']),
        earlier,
        answer,
        sources,
        slot,
        note,
        feedbackSlot,
      ]),
    ]);
    els.transcript.appendChild(item);
    item.scrollIntoView({ block: 'nearest' });
    current = { item, answer, earlier, sources, slot, note, feedbackSlot };
    Object.assign(current, { feedback: null, card: null, citations: null, response: null, number });
  }

  function clear() {
    current = null;
    feedback.clear();
    els.transcript.replaceChildren();
    els.empty.hidden = false;
    els.activity.replaceChildren();
    els.trace.replaceChildren(h(doc, 'p', { class: 'hint' }, [TRACE_HINT]));
  }

  function render(state) {
    const { run } = state;
    if (!run || !current) return;
    const view = current;
    const streaming = !run.terminal && run.outcome !== 'paused' && state.connection !== 'lost';
    streamText(doc, view.answer, run.answer);
    view.answer.setAttribute('data-kind', run.answerKind ?? 'pending');
    view.answer.setAttribute('aria-busy', String(streaming));
    view.answer.classList.toggle('streaming', streaming);
    view.answer.classList.toggle('no-answer', run.terminal && run.answer === '');
    if (run.earlierAnswer !== null) {
      view.earlier.hidden = false;
      setText(view.earlier.lastChild, run.earlierAnswer);
    }
    if (run.citations !== view.citations) {
      view.citations = run.citations;
      view.sources.replaceChildren(...(run.citations.length ? [citationList(doc, run.citations)] : []));
    }
    renderApproval(state, view);
    const notes = [];
    const { decision } = state;
    if (decision && !decision.pending) {
      const verb = decision.decision === 'approve' ? 'approved' : 'rejected';
      notes.push(`You ${verb} the action${decision.comment ? ` (comment: “${decision.comment}”)` : ''}.`);
    }
    if (run.humanWaitMs !== null) notes.push(`The run waited ${formatMs(run.humanWaitMs)} for a person.`);
    if (run.gap) notes.push('Some events had left the replay window; a snapshot stands in for them.');
    view.note.hidden = notes.length === 0;
    setText(view.note, notes.join(' '));
    renderFeedbackOffer(state, view);
    renderTrace(run, view);
  }

  function renderApproval(state, view) {
    const { run } = state;
    // a recording's pause is shown in the outcome, not offered for a decision: that run is not this service's
    const pending = run.approval !== null && run.outcome === 'paused' && !run.terminal && !isReplay(state);
    if (pending && !view.card) {
      view.card =
        run.interrupts.length > 0
          ? interruptCard(doc, run.interrupts, view.number)
          : approvalCard(doc, run.approval, view.number);
      view.slot.appendChild(view.card);
      view.card.focus();
    } else if (!pending && view.card) {
      const hadFocus = view.card.contains(doc.activeElement);
      view.card.remove();
      view.card = null;
      if (hadFocus) els.input.focus();
    }
  }

  /** Once a run of this service has finished, its answer may be rated (and a graph's run saved as an eval case):
   * the controls come, and stay with the turn. */
  function renderFeedbackOffer(state, view) {
    const { run } = state;
    if (view.feedback !== null || !mayGiveFeedback(run, { recorded: isReplay(state) })) return;
    const entry = { state: newFeedback(run.runId), controls: feedbackControls(doc, run.runId, view.number) };
    feedback.set(run.runId, entry);
    view.feedback = entry;
    view.feedbackSlot.appendChild(entry.controls.element);
    renderFeedback(entry.controls, entry.state);
    if (mayCapture(run, { recorded: isReplay(state), support: isSupport(state.assistant) })) {
      view.feedbackSlot.appendChild(captureControls(doc, run.runId).element);
    }
  }

  function renderTrace(run, view) {
    if (!run.response || run.response === view.response) return;
    view.response = run.response;
    els.trace.replaceChildren(traceView(doc, run.response, run));
  }

  /** Thumbs up or down on a finished run (`POST /runs/{id}/feedback`, with the note typed): it shows what was kept. */
  async function giveFeedback(button) {
    const entry = feedback.get(button.closest('[data-role=feedback]').getAttribute('data-run-id'));
    if (!entry || entry.state.sending !== null) return;
    const score = button.getAttribute('data-feedback');
    entry.state = feedbackSending(entry.state, score);
    renderFeedback(entry.controls, entry.state);
    const answer = await sendFeedback(api, entry.state.runId, score, entry.controls.note.value);
    entry.state = feedbackSettled(entry.state, answer);
    if (answer.ok) entry.controls.note.value = entry.state.note ?? '';
    renderFeedback(entry.controls, entry.state);
  }

  /** A finished graph run saved as an eval case: the service's case, handed over as a one-line JSONL file. */
  function captureCase(button) {
    const element = button.closest('[data-role=capture]');
    const controls = { element, button, said: element.querySelector('[data-role=capture-said]') };
    if (button.getAttribute('aria-disabled') === 'true') return;
    saveCase(api, controls, element.getAttribute('data-run-id'), (name, text) => {
      const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      const link = doc.createElement('a');
      link.download = name;
      link.href = url; // a blob URL this page made: not the server's text, so not through render.js's URL rule
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 0);
    });
  }

  async function openDocument(docId, opener) {
    els.dialogBody.replaceChildren(h(doc, 'p', { class: 'hint' }, ['Loading the document…']));
    if (!els.dialog.open) els.dialog.showModal();
    const answer = await api.document(docId);
    if (answer.ok) {
      els.dialogBody.replaceChildren(...documentView(doc, answer.body));
    } else {
      const detail = explainProblem(answer.status, answer.body)?.detail || `No document ${docId}.`;
      els.dialogBody.replaceChildren(h(doc, 'p', { role: 'alert' }, [detail]));
    }
    els.dialog.addEventListener('close', () => opener?.focus(), { once: true });
  }

  els.transcript.addEventListener('click', (event) => {
    const action = event.target.closest('[data-action=approve], [data-action=reject]');
    if (action) {
      page.approval.decide(action.getAttribute('data-action'));
      return;
    }
    const rating = event.target.closest('button[data-feedback]');
    if (rating) {
      giveFeedback(rating);
      return;
    }
    const capture = event.target.closest('button[data-action=capture-case]');
    if (capture) {
      captureCase(capture);
      return;
    }
    const link = event.target.closest('a[data-doc-id]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    openDocument(link.getAttribute('data-doc-id'), link);
  });
  els.dialogClose.addEventListener('click', () => els.dialog.close());
  els.dialog.addEventListener('click', (event) => {
    if (event.target === els.dialog) els.dialog.close(); // a click on the backdrop
  });

  return {
    newTurn,
    clear,
    render,
    /** The approval card of the turn on screen, or null. */
    card: () => current?.card ?? null,
  };
}
