// The live Agent Execution Graph in SVG. `layoutGraph` is pure geometry (ranks left to right by the
// longest path, arcs for edges that skip a rank); `drawGraph` builds the SVG once per topology and
// `paintGraph` moves it along with the run: node states, latencies scaled to the slowest node, the
// edges the run took, and the outcome that colours the whole pipeline.

import { formatMs } from './format.js';
import { setText, svg } from './render.js';
import { runStatus, slowestLatency, takenEdges } from './state.js';

export const NODE_WIDTH = 156;
export const NODE_HEIGHT = 70;
const GAP_X = 30;
const GAP_Y = 24;
const PAD = 12;
const ARC_STEP = 26;
const BAR_INSET = 12;
const BAR_MIN = 2;

/** Where every node and edge goes. */
export function layoutGraph(topology) {
  const ids = topology.nodes.map((node) => node.id);
  const rank = ranks(ids, topology.edges);
  const rowOf = new Map();
  const rowsInRank = new Map();
  for (const id of ids) {
    const row = rowsInRank.get(rank.get(id)) ?? 0;
    rowOf.set(id, row);
    rowsInRank.set(rank.get(id), row + 1);
  }
  const rankCount = Math.max(1, ...[...rank.values()].map((r) => r + 1));
  const rowCount = Math.max(1, ...rowsInRank.values());

  // edges between neighbouring ranks go straight across; the rest arc above or below, alternately
  const arcs = topology.edges.filter((e) => rank.get(e.target) - rank.get(e.source) !== 1 || e.source === e.target);
  arcs.sort((a, b) => span(rank, a) - span(rank, b));
  const side = new Map();
  const level = new Map();
  const used = { above: 0, below: 0 };
  arcs.forEach((edge, index) => {
    const where = index % 2 === 0 ? 'above' : 'below';
    used[where] += 1;
    side.set(edge, where);
    level.set(edge, used[where]);
  });
  const top = PAD + used.above * ARC_STEP * 0.75 + (used.above ? PAD : 0);
  const rowsHeight = rowCount * NODE_HEIGHT + (rowCount - 1) * GAP_Y;
  const height = Math.ceil(top + rowsHeight + used.below * ARC_STEP * 0.75 + (used.below ? PAD : 0) + PAD);
  const width = PAD * 2 + rankCount * NODE_WIDTH + (rankCount - 1) * GAP_X;

  const nodes = topology.nodes.map((node) => ({
    id: node.id,
    label: node.label,
    rank: rank.get(node.id),
    x: PAD + rank.get(node.id) * (NODE_WIDTH + GAP_X),
    y: top + rowOf.get(node.id) * (NODE_HEIGHT + GAP_Y),
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
  }));
  const at = new Map(nodes.map((node) => [node.id, node]));
  const edges = topology.edges.map((edge) => ({
    source: edge.source,
    target: edge.target,
    conditional: edge.conditional,
    d: side.has(edge)
      ? arcPath(at.get(edge.source), at.get(edge.target), side.get(edge), level.get(edge))
      : straightPath(at.get(edge.source), at.get(edge.target)),
  }));
  return { width, height, nodes, edges };
}

/** Longest-path layering: a node's rank is one more than its furthest predecessor's (cycles fall back to order). */
export function ranks(ids, edges) {
  const rank = new Map(ids.map((id) => [id, 0]));
  const incoming = new Map(ids.map((id) => [id, 0]));
  for (const edge of edges) incoming.set(edge.target, (incoming.get(edge.target) ?? 0) + 1);
  const queue = ids.filter((id) => incoming.get(id) === 0);
  const done = new Set();
  while (queue.length > 0) {
    const id = queue.shift();
    done.add(id);
    for (const edge of edges) {
      if (edge.source !== id) continue;
      rank.set(edge.target, Math.max(rank.get(edge.target), rank.get(id) + 1));
      incoming.set(edge.target, incoming.get(edge.target) - 1);
      if (incoming.get(edge.target) === 0) queue.push(edge.target);
    }
  }
  let next = Math.max(0, ...[...done].map((id) => rank.get(id) + 1));
  for (const id of ids) if (!done.has(id)) rank.set(id, next++);
  return rank;
}

function span(rank, edge) {
  return Math.abs(rank.get(edge.target) - rank.get(edge.source));
}

function straightPath(from, to) {
  const x1 = from.x + from.width;
  const y1 = from.y + from.height / 2;
  const x2 = to.x;
  const y2 = to.y + to.height / 2;
  if (y1 === y2) return `M${x1},${y1} L${x2},${y2}`;
  const mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}

function arcPath(from, to, where, level) {
  const lift = ARC_STEP * level;
  const sign = where === 'above' ? -1 : 1;
  const x1 = from.x + from.width * 0.75;
  const x2 = to.x + to.width * 0.25;
  const y1 = where === 'above' ? from.y : from.y + from.height;
  const y2 = where === 'above' ? to.y : to.y + to.height;
  return `M${x1},${y1} C${x1},${y1 + sign * lift} ${x2},${y2 + sign * lift} ${x2},${y2}`;
}

/** Build the SVG for a topology inside `root` (an <svg>); answers the handles `paintGraph` needs. */
export function drawGraph(doc, root, topology) {
  const layout = layoutGraph(topology);
  root.replaceChildren();
  root.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  root.setAttribute('width', String(layout.width));
  root.setAttribute('height', String(layout.height));
  const arrow = svg(doc, 'marker', {
    id: 'graph-arrow',
    viewBox: '0 0 10 10',
    refX: '9',
    refY: '5',
    markerWidth: '9',
    markerHeight: '9',
    markerUnits: 'userSpaceOnUse',
    orient: 'auto-start-reverse',
  });
  arrow.appendChild(svg(doc, 'path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }));
  root.appendChild(svg(doc, 'defs', {}, [arrow]));

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
  return { root, nodes, edges };
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
