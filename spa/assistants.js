// The registered graphs the page can talk to (`POST /assistants/search`, one assistant per graph) and
// what a run of one is sent: its input from the message typed (shaped by the graph's input schema) and
// the resume that answers its interrupts. The support agent is one of them, and stays on its own `/chat`.
// Pure functions; no DOM, no requests.

export const SUPPORT_GRAPH = 'support';

/** The stream modes a run of a registered graph is asked to log: the answer forms from `messages`. */
export const STREAM_MODES = Object.freeze(['values', 'messages-tuple']);

/** The assistants of a search answer that can be picked; malformed entries are left out, the support agent first. */
export function assistantsOf(body) {
  const found = (Array.isArray(body) ? body : []).filter(
    (item) => isObject(item) && isNonEmpty(item.assistant_id) && isNonEmpty(item.graph_id),
  );
  const assistants = found.map((item) => ({
    assistant_id: item.assistant_id,
    graph_id: item.graph_id,
    name: isNonEmpty(item.name) ? item.name : item.graph_id,
    description: typeof item.description === 'string' ? item.description : '',
  }));
  return [...assistants.filter(isSupport), ...assistants.filter((item) => !isSupport(item))];
}

/** The built-in support agent (or no choice at all) talks through `/chat`; every other graph through its runs. */
export function isSupport(assistant) {
  return assistant === null || assistant === undefined || assistant.graph_id === SUPPORT_GRAPH;
}

/**
 * A run's input from the message typed: `{"messages": [{"role": "user", "content": text}]}` for a graph
 * whose input has `messages` (or whose schema is unknown); for one whose input has no messages, its first
 * text field (`{"topic": text}`).
 */
export function inputFor(schema, text) {
  const properties = isObject(schema?.properties) ? schema.properties : null;
  const messages = { messages: [{ role: 'user', content: text }] };
  if (properties === null || 'messages' in properties) return messages;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const isText = (name) => isObject(properties[name]) && properties[name].type === 'string';
  const names = Object.keys(properties).filter(isText);
  const name = names.find((candidate) => required.includes(candidate)) ?? names[0];
  return name === undefined ? messages : { [name]: text };
}

/**
 * The `command.resume` answering a paused run's interrupts with one decision: the decision itself for one
 * interrupt, and for several a map from each interrupt's id to it (LangGraph's way to answer them at once).
 */
export function resumeFor(interrupts, decision, comment = '') {
  const value = comment ? { decision, comment } : { decision };
  if (!Array.isArray(interrupts) || interrupts.length <= 1) return value;
  return Object.fromEntries(interrupts.map((interrupt) => [interrupt.id, value]));
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmpty(value) {
  return typeof value === 'string' && value !== '';
}
