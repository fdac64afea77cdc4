// The live Agent Execution Graph in SVG. The geometry is layout.js's (any topology: layers from the
// entry, cycles as arcs, subgraphs boxed); `drawGraph` builds the SVG once per topology and
// `paintGraph` moves it along with the run: node and subgraph states, latencies scaled to the slowest
// node, the edges the run took, and the outcome that colours the whole pipeline.

import { formatMs } from './format.js';
import { layoutGraph } from './layout.js';
import { setText, svg } from './render.js';
import { runStatus, slowestLatency, takenEdges } from './state.js';

export { NODE_HEIGHT, NODE_WIDTH, layoutGraph, ranks } from './layout.js';

const BAR_INSET = 12;
const BAR_MIN = 2;

/** Build the SVG for a topology inside `root` (an <svg>); answers the handles `paintGraph` needs. */
export function drawGraph(doc, root, topology) {
  const layout = layoutGraph(topology);
  root.replaceChildren();
  root.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  root.setAttribute('width', String(layout.width));
  root.setAttribute('height', String(layout.height));
  root.appendChild(arrowDefs(doc, 'graph-arrow'));

  const groupLayer = svg(doc, 'g', { class: 'groups' });
  const groups = new Map();
  for (const box of layout.groups) {
    const title = svg(doc, 'title', {}, [`Subgraph ${box.label}`]);
    const group = svg(doc, 'g', { class: 'subgraph', 'data-group': box.id, 'data-state': 'idle' }, [
      title,
      svg(doc, 'rect', { class: 'subgraph-box', x: box.x, y: box.y, width: box.width, height: box.height, rx: 12 }),
      svg(doc, 'text', { class: 'subgraph-label', x: box.x + 10, y: box.y + 17 }, [box.label]),
    ]);
    groupLayer.appendChild(group);
    groups.set(box.id, { group, title, label: box.label });
  }
  root.appendChild(groupLayer);

  const edgeLayer = svg(doc, 'g', { class: 'edges', 'aria-hidden': 'true' });
  const edges = layout.edges.map((edge) => {
    const path = svg(doc, 'path', {
      class: 'edge',
      d: edge.d,
      'data-source': edge.source,
      'data-target': edge.target,
      'data-conditional': String(edge.conditional),
      'marker-end': 'url(#graph-arrow)',
    });
    edgeLayer.appendChild(path);
    return { edge, path };
  });
  root.appendChild(edgeLayer);

  const nodeLayer = svg(doc, 'g', { class: 'nodes' });
  const nodes = new Map();
  for (const node of layout.nodes) {
    const title = svg(doc, 'title', {}, [node.label]);
    const status = svg(doc, 'text', { class: 'node-status', x: node.x + 12, y: node.y + 44 }, ['idle']);
    const barWidth = node.width - BAR_INSET * 2;
    const bar = svg(doc, 'rect', {
      class: 'latency-bar',
      x: node.x + BAR_INSET,
      y: node.y + node.height - 14,
      width: 0,
      height: 5,
      rx: 2,
    });
    const group = svg(doc, 'g', { class: 'node', 'data-node': node.id, 'data-state': 'idle', role: 'img' }, [
      title,
      svg(doc, 'rect', { class: 'node-box', x: node.x, y: node.y, width: node.width, height: node.height, rx: 10 }),
      svg(doc, 'text', { class: 'node-label', x: node.x + 12, y: node.y + 24 }, [node.label]),
      status,
      svg(doc, 'rect', {
        class: 'latency-track',
        x: node.x + BAR_INSET,
        y: node.y + node.height - 14,
        width: barWidth,
        height: 5,
        rx: 2,
      }),
      bar,
    ]);
    nodeLayer.appendChild(group);
    nodes.set(node.id, { group, title, status, bar, barWidth, label: node.label });
  }
  root.appendChild(nodeLayer);
  return { root, nodes, edges, groups };
}

/** The `<defs>` of the arrowhead a drawn graph's edges end in (`marker-end: url(#<id>)`). */
export function arrowDefs(doc, id) {
  const arrow = svg(doc, 'marker', {
    id,
    viewBox: '0 0 10 10',
    refX: '9',
    refY: '5',
    markerWidth: '9',
    markerHeight: '9',
    markerUnits: 'userSpaceOnUse',
    orient: 'auto-start-reverse',
  });
  arrow.appendChild(svg(doc, 'path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }));
  return svg(doc, 'defs', {}, [arrow]);
}

/** Bring the drawn graph up to date with the run's state. */
export function paintGraph(handles, state) {
  const slowest = slowestLatency(state);
  const taken = takenEdges(state);
  handles.root.setAttribute('data-outcome', state.outcome ?? 'running');
  handles.root.setAttribute('data-status', runStatus(state));
  for (const [id, handle] of handles.nodes) {
    const node = state.nodes[id] ?? { state: 'idle', latencyMs: null, summary: '', outcome: '' };
    const words = nodeWords(node);
    handle.group.setAttribute('data-state', node.state);
    handle.group.setAttribute('aria-label', `${handle.label}: ${words}`);
    setText(handle.status, words);
    setText(handle.title, node.summary ? `${handle.label}: ${node.summary}` : `${handle.label}: ${node.state}`);
    handle.bar.setAttribute('width', String(barWidth(node.latencyMs, slowest, handle.barWidth)));
  }
  for (const [id, handle] of handles.groups ?? []) {
    const node = state.nodes[id];
    handle.group.setAttribute('data-state', node?.state ?? 'idle');
    setText(handle.title, `Subgraph ${handle.label}: ${node ? nodeWords(node) : 'idle'}`);
  }
  for (const { edge, path } of handles.edges) {
    path.setAttribute('data-taken', String(taken.has(`${edge.source}→${edge.target}`)));
  }
}

/** The length of a latency bar: proportional to the slowest node, never invisible for a node that ran. */
export function barWidth(latencyMs, slowestMs, fullWidth) {
  if (typeof latencyMs !== 'number' || slowestMs <= 0) return 0;
  return Math.max(BAR_MIN, Math.round((latencyMs / slowestMs) * fullWidth * 10) / 10);
}

function nodeWords(node) {
  switch (node.state) {
    case 'completed':
      return node.latencyMs === null ? node.outcome || 'done' : `${formatMs(node.latencyMs)} · ${node.outcome || 'done'}`;
    case 'running':
      return 'running…';
    case 'waiting':
      return 'waiting for approval';
    case 'failed':
      return 'failed';
    case 'skipped':
      return 'skipped';
    default:
      return 'idle';
  }
}
