// The assistant picker above the conversation: the registered graphs, asked for only when it first opens
// (`POST /assistants/search`); picking another one starts a new conversation with it.

import { explainProblem } from './access.js';
import { SUPPORT_GRAPH, assistantsOf, isSupport } from './assistants.js';
import { setText } from './render.js';
import { assistantsLoaded, conversationChanged, isActive, pickerChanged } from './store.js';
import { renderAssistants } from './views.js';

export function mountPicker(page) {
  const { doc, store, els, api } = page;
  const state = () => store.state;
  const EMPTY_HINT = els.empty.textContent;
  const PLACEHOLDER = els.input.placeholder;

  /** The picker opens on demand: the assistants are asked for only when someone looks for another agent. */
  async function toggle() {
    store.update(pickerChanged, { open: !state().picker.open });
    if (state().picker.open && state().assistants === null) await loadAssistants();
  }

  async function loadAssistants() {
    store.update(pickerChanged, { note: 'Loading the agents…' });
    const answer = await api.assistants();
    if (answer.ok) {
      const assistants = assistantsOf(answer.body);
      store.update(assistantsLoaded, assistants, assistants.length > 0 ? '' : 'No agents are registered.');
    } else {
      const detail = explainProblem(answer.status, answer.body)?.detail || `HTTP ${answer.status}`;
      store.update(pickerChanged, { note: `The agents could not be loaded: ${detail}` });
    }
  }

  /** Talk to another assistant: a new conversation with it (a thread of its own, once the first message goes). */
  function pick(graphId) {
    const chosen = state().assistants?.find((assistant) => assistant.graph_id === graphId);
    if (!chosen || isActive(state())) {
      page.render(); // the radio pressed goes back to the assistant talked to
      return;
    }
    if (graphId !== (state().assistant?.graph_id ?? SUPPORT_GRAPH)) {
      page.turns.resetConversation();
      store.update(conversationChanged, { assistant: isSupport(chosen) ? null : chosen });
    }
    store.update(pickerChanged, { open: false });
    els.input.focus();
  }

  els.pickerToggle.addEventListener('click', toggle);
  els.pickerList.addEventListener('change', (event) => {
    if (event.target.name === 'assistant') pick(event.target.value);
  });

  return {
    render(current) {
      const { assistant } = current;
      const graphId = assistant?.graph_id ?? SUPPORT_GRAPH;
      setText(els.pickerName, assistant?.name ?? 'Support agent');
      els.pickerToggle.setAttribute('data-chosen', graphId);
      els.pickerToggle.setAttribute('aria-expanded', String(current.picker.open));
      els.picker.hidden = !current.picker.open;
      renderAssistants(doc, els.pickerList, current.assistants ?? [], graphId);
      const active = isActive(current);
      for (const radio of els.pickerList.querySelectorAll('input')) radio.disabled = active;
      setText(els.pickerNote, active ? 'Another agent can be picked once this turn ends.' : current.picker.note);
      const hint = isSupport(assistant)
        ? EMPTY_HINT
        : `Talking to ${assistant.name}${assistant.description ? `: ${assistant.description}` : '.'}`;
      setText(els.empty, hint);
      els.input.placeholder = isSupport(assistant) ? PLACEHOLDER : `Your message to ${assistant.name}`;
    },
  };
}
