// The page's panels, each drawn from the run state with the safe builders of render.js:
// the activity list, the usage counter, the outcome line, citations, the approval card (and the card of
// a registered graph's interrupts), the assistant picker, the backend trace and the document view. No
// module state; the caller owns the elements.

import { documentPath } from './api.js';
import { formatCost, formatMs, formatTokens } from './format.js';
import { describeInterrupt } from './messages.js';
import { h, setText, syncList } from './render.js';
import { runStatus } from './state.js';

const OUTCOME_WORDS = {
  completed: 'Completed',
  refused: 'Refused by the input guardrail',
  paused: 'Paused: waiting for your approval',
  rejected: 'Rejected: the action was not taken',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The activity panel: the last confirmed fact of every step, updated in place. */
export function renderActivity(doc, list, activity) {
  syncList(doc, list, activity, {
    key: (row) => row.key,
    create: () => h(doc, 'li', { class: 'fact' }, [h(doc, 'span', { class: 'fact-label' }), h(doc, 'span', { class: 'fact-text' })]),
    update: (item, row) => {
      item.setAttribute('data-tone', row.tone);
      item.setAttribute('data-step-node', row.node);
      setText(item.firstChild, `${row.label}: `);
      setText(item.lastChild, row.text);
    },
  });
}

/** The turn outcome: `data-status` is the run status, `data-outcome` the turn's outcome. */
export function renderOutcome(element, state, connection) {
  if (state === null) {
    element.setAttribute('data-status', 'idle');
    element.setAttribute('data-outcome', 'idle');
    setText(element, 'No turn yet. Ask something below.');
    return;
  }
  const status = runStatus(state);
  element.setAttribute('data-status', status);
  element.setAttribute('data-outcome', state.terminal || state.outcome === 'paused' ? state.outcome : 'running');
  setText(element, outcomeWords(state, status, connection));
}

export function outcomeWords(state, status, connection) {
  if (state.terminal) {
    const words = OUTCOME_WORDS[state.outcome] ?? state.outcome;
    return state.error ? `${words}: ${state.error.message} (${state.error.code})` : words;
  }
  if (connection === 'lost') return 'Connection lost: the run may still be going, its outcome is unknown';
  if (state.interrupted || connection === 'reconnecting') return 'Running (stream interrupted, catching up)';
  if (status === 'waiting') return OUTCOME_WORDS.paused;
  return 'Running…';
}

/** Tokens and cost: confirmed figures from `cost_updated`, an estimate from the chunks while streaming. */
export function renderUsage(element, state) {
  if (state === null) {
    setText(element, 'Tokens: – · Cost: –');
    return;
  }
  const usage = state.usage;
  if (usage) {
    const model = usage.model ? ` · ${usage.model}` : '';
    setText(
      element,
      `Tokens: ${formatTokens(usage.input_tokens)} in · ${formatTokens(usage.output_tokens)} out · ` +
        `Cost: ${formatCost(usage.cost_usd)}${model}`,
    );
    element.setAttribute('data-confirmed', 'true');
  } else {
    const streaming = state.streamedChunks > 0 ? `~${formatTokens(state.streamedChunks)} out so far` : '–';
    setText(element, `Tokens: ${streaming} · Cost: –`);
    element.setAttribute('data-confirmed', 'false');
  }
}

/** Citations as links to the documents (same-origin `/kb/{id}`; the page opens them in its document view). */
export function citationList(doc, citations) {
  return h(
    doc,
    'ul',
    { class: 'citations', 'aria-label': 'Sources' },
    citations.map((citation) =>
      h(doc, 'li', {}, [
        h(doc, 'a', { href: documentPath(citation.doc_id), 'data-doc-id': citation.doc_id, class: 'citation' }, [
          citation.title || citation.doc_id,
        ]),
        citation.snippet ? h(doc, 'span', { class: 'snippet' }, [citation.snippet]) : null,
      ]),
    ),
  );
}

/** The approval card; `seq` keeps its ids unique on the page. */
export function approvalCard(doc, approval, seq) {
  const titleId = `approval-title-${seq}`;
  const commentId = `approval-comment-${seq}`;
  return h(
    doc,
    'section',
    { class: 'approval', 'data-role': 'approval', 'aria-labelledby': titleId, tabindex: '-1' },
    [
      h(doc, 'h3', { id: titleId }, ['Your approval is needed']),
      h(doc, 'p', { class: 'approval-summary' }, [approval.summary]),
      h(doc, 'p', { class: 'approval-action' }, ['Action: ', h(doc, 'code', {}, [approval.action])]),
      h(doc, 'label', { for: commentId }, ['Comment (optional, kept with the decision)']),
      h(doc, 'textarea', { id: commentId, 'data-region': 'approval-comment', rows: '2', maxlength: '1000' }),
      h(doc, 'div', { class: 'approval-buttons' }, [
        h(doc, 'button', { type: 'button', 'data-action': 'approve', class: 'primary' }, ['Approve']),
        h(doc, 'button', { type: 'button', 'data-action': 'reject', class: 'danger' }, ['Reject']),
      ]),
      h(doc, 'p', { class: 'approval-error', role: 'alert', 'data-region': 'approval-error' }),
    ],
  );
}

/**
 * The card of a registered graph's run paused at `interrupt()`: every interrupt's value (its summary,
 * action and arguments when it names them, else the value as JSON), one comment, and Approve / Reject,
 * with the same hooks as the approval card.
 */
export function interruptCard(doc, interrupts, seq) {
  const titleId = `approval-title-${seq}`;
  const commentId = `approval-comment-${seq}`;
  const items = interrupts.map((interrupt) => {
    const shown = describeInterrupt(interrupt.value);
    return h(doc, 'li', { class: 'interrupt', 'data-role': 'interrupt', 'data-interrupt-id': interrupt.id }, [
      shown.summary ? h(doc, 'p', { class: 'approval-summary' }, [shown.summary]) : null,
      shown.action ? h(doc, 'p', { class: 'approval-action' }, ['Action: ', h(doc, 'code', {}, [shown.action])]) : null,
      shown.args ? h(doc, 'pre', { class: 'interrupt-value', 'aria-label': 'Arguments' }, [shown.args]) : null,
      shown.json ? h(doc, 'pre', { class: 'interrupt-value', 'aria-label': 'Value' }, [shown.json]) : null,
    ]);
  });
  const heading =
    interrupts.length > 1 ? `Your decision is needed (${interrupts.length} requests)` : 'Your decision is needed';
  return h(
    doc,
    'section',
    { class: 'approval', 'data-role': 'approval', 'aria-labelledby': titleId, tabindex: '-1' },
    [
      h(doc, 'h3', { id: titleId }, [heading]),
      h(doc, 'ul', { class: 'interrupts' }, items),
      h(doc, 'label', { for: commentId }, ['Comment (optional, sent with the decision)']),
      h(doc, 'textarea', { id: commentId, 'data-region': 'approval-comment', rows: '2', maxlength: '1000' }),
      h(doc, 'div', { class: 'approval-buttons' }, [
        h(doc, 'button', { type: 'button', 'data-action': 'approve', class: 'primary' }, ['Approve']),
        h(doc, 'button', { type: 'button', 'data-action': 'reject', class: 'danger' }, ['Reject']),
      ]),
      h(doc, 'p', { class: 'approval-error', role: 'alert', 'data-region': 'approval-error' }),
    ],
  );
}

/** The assistant picker's choices: one radio per assistant, keyed by graph id, the chosen one checked. */
export function renderAssistants(doc, list, assistants, chosenGraphId) {
  syncList(doc, list, assistants, {
    key: (assistant) => assistant.graph_id,
    create: (assistant) => {
      const id = `assistant-${assistant.graph_id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      return h(doc, 'li', { class: 'assistant-choice' }, [
        h(doc, 'input', {
          type: 'radio',
          name: 'assistant',
          id,
          value: assistant.graph_id,
          'data-assistant': assistant.graph_id,
        }),
        h(doc, 'label', { for: id }, [
          h(doc, 'span', { class: 'assistant-name' }, [assistant.name]),
          assistant.description ? h(doc, 'span', { class: 'assistant-description' }, [assistant.description]) : null,
        ]),
      ]);
    },
    update: (item, assistant) => {
      item.firstChild.checked = assistant.graph_id === chosenGraphId;
    },
  });
}

/** The backend trace of a final ChatResponse: per node latency and outcome, usage, ids, the human wait. */
export function traceView(doc, response, { humanWaitMs = null, interactionId = null } = {}) {
  const trace = Array.isArray(response.trace) ? response.trace : [];
  const slowest = Math.max(0, ...trace.map((entry) => entry.latency_ms ?? 0));
  const usage = response.usage ?? {};
  const rows = trace.map((entry) =>
    h(doc, 'tr', { 'data-trace-node': entry.node }, [
      h(doc, 'th', { scope: 'row' }, [entry.node]),
      h(doc, 'td', {}, [entry.outcome]),
      h(doc, 'td', { class: 'num' }, [formatMs(entry.latency_ms)]),
      h(doc, 'td', {}, [
        h(doc, 'meter', { min: '0', max: String(slowest || 1), value: String(entry.latency_ms ?? 0) }, [
          formatMs(entry.latency_ms),
        ]),
      ]),
    ]),
  );
  const facts = [
    ['Status', response.status],
    ['Model', usage.model],
    ['Input tokens', formatTokens(usage.input_tokens)],
    ['Output tokens', formatTokens(usage.output_tokens)],
    ['Cost', formatCost(usage.cost_usd)],
    ['Run', response.run_id],
    ['Session', response.session_id],
  ];
  if (interactionId) facts.push(['Interaction', interactionId]);
  if (typeof humanWaitMs === 'number') facts.push(['Human wait', formatMs(humanWaitMs)]);
  return h(doc, 'div', { class: 'trace' }, [
    h(doc, 'table', {}, [
      h(doc, 'caption', {}, ['Nodes as the backend traced them']),
      h(doc, 'thead', {}, [
        h(doc, 'tr', {}, [
          h(doc, 'th', { scope: 'col' }, ['Node']),
          h(doc, 'th', { scope: 'col' }, ['Outcome']),
          h(doc, 'th', { scope: 'col' }, ['Latency']),
          h(doc, 'th', { scope: 'col' }, ['Relative']),
        ]),
      ]),
      h(doc, 'tbody', {}, rows),
    ]),
    h(
      doc,
      'dl',
      { class: 'facts' },
      facts.map(([term, value]) => [h(doc, 'dt', {}, [term]), h(doc, 'dd', {}, [value ?? '–'])]),
    ),
  ]);
}

/** A knowledge-base document, its body as paragraphs of text. */
export function documentView(doc, document) {
  const paragraphs = String(document.body ?? '')
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .filter(Boolean);
  return [
    h(doc, 'h2', { id: 'document-title' }, [document.title || document.doc_id]),
    h(doc, 'p', { class: 'doc-id' }, [document.doc_id]),
    ...paragraphs.map((part) => h(doc, 'p', {}, [part])),
  ];
}
