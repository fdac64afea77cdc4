// Reading the service's values into what a run's state holds: envelopes, topologies, approvals, interrupts, errors,
// citations. Nothing from the wire is trusted: a value of the wrong shape reads as absent.

export function stepOf(data) {
  return Number.isInteger(data.step) ? data.step : null;
}

/** A node of a subgraph counts its own steps: its facts are kept per node, not per (root) step. */
export function inSubgraph(data) {
  return Array.isArray(data.ns) && data.ns.length > 0;
}

export function interruptsOf(value) {
  return (Array.isArray(value) ? value : [])
    .filter((item) => isObject(item) && text(item.id))
    .map((item) => ({ id: item.id, value: item.value ?? null, ns: Array.isArray(item.ns) ? item.ns : [] }));
}

export function approvalOfInterrupt(interrupt) {
  if (interrupt === undefined) return null;
  const value = isObject(interrupt.value) ? interrupt.value : {};
  const action = text(value.action) || 'interrupt';
  const summary = text(value.summary) || (typeof interrupt.value === 'string' ? interrupt.value : action);
  return { approval_id: interrupt.id, action, summary };
}

/** The graph's shape when only a trace is known (JSON path, no earlier topology): the nodes that ran. */
export function topologyFromTrace(trace) {
  const ids = [];
  for (const entry of trace) {
    if (isObject(entry) && text(entry.node) && !ids.includes(entry.node)) ids.push(entry.node);
  }
  return {
    nodes: ids.map((id) => ({ id, label: humanize(id) })),
    edges: ids.slice(1).map((id, i) => ({ source: ids[i], target: id, conditional: false })),
  };
}

export function topologyOf(data) {
  if (!Array.isArray(data.nodes)) return null;
  const nodes = data.nodes
    .filter((n) => isObject(n) && text(n.id))
    .map((n) => ({ id: n.id, label: text(n.label) || humanize(n.id) }));
  const ids = new Set(nodes.map((n) => n.id));
  const edges = (Array.isArray(data.edges) ? data.edges : [])
    .filter((e) => isObject(e) && ids.has(e.source) && ids.has(e.target))
    .map((e) => ({ source: e.source, target: e.target, conditional: e.conditional === true }));
  return { nodes, edges };
}

export function approvalOf(value) {
  if (!isObject(value) || !text(value.approval_id)) return null;
  const action = text(value.action);
  return { approval_id: value.approval_id, action, summary: text(value.summary) || action };
}

export function errorOf(value) {
  return {
    code: text(value.code) || 'unknown_error',
    message: text(value.message) || 'The run failed.',
    retryable: value.retryable === true,
    node: text(value.node) || null,
  };
}

export function isEnvelope(value) {
  return (
    isObject(value) &&
    typeof value.type === 'string' &&
    Number.isInteger(value.seq) &&
    value.seq >= 1 &&
    text(value.run_id) !== ''
  );
}

export function isCitation(value) {
  return isObject(value) && text(value.doc_id) !== '';
}

export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value) {
  return typeof value === 'string' ? value : '';
}

export function number(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function humanize(id) {
  const words = String(id).replaceAll('_', ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
