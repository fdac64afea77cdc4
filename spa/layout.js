// Pure geometry for any graph's topology: where every node, subgraph box and edge goes. Nodes are
// layered left to right by the longest path from the graph's entry (`__start__` when the topology has
// it, else the nodes nothing leads to, else the first node); an edge that closes a cycle (a loop back
// to a node already on the way) does not count for layering and is drawn as an arc, like an edge that
// skips a layer. A node whose id is `<subgraph>:<node>` belongs to that subgraph: its members share a
// lane, framed by one box named after it, and no other node is placed inside that box.

export const NODE_WIDTH = 156;
export const NODE_HEIGHT = 70;
const GAP_X = 30;
const GAP_Y = 24;
const PAD = 12;
const ARC_STEP = 26;
const GROUP_PAD = 8;
const GROUP_LABEL = 16;
const START = '__start__';

/** Where every node, subgraph box and edge goes. */
export function layoutGraph(topology) {
  const ids = topology.nodes.map((node) => node.id);
  const rank = ranks(ids, topology.edges);
  const rowOf = placeRows(ids, rank);
  const rankCount = Math.max(1, ...[...rank.values()].map((r) => r + 1));
  const rowCount = Math.max(1, ...[...rowOf.values()].map((r) => r + 1));
  const hasGroups = ids.some((id) => groupOf(id) !== null);

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
  const groupRoom = hasGroups ? GROUP_PAD + GROUP_LABEL : 0;
  const top = PAD + used.above * ARC_STEP * 0.75 + (used.above ? PAD : 0) + groupRoom;
  const gapY = hasGroups ? GAP_Y + groupRoom : GAP_Y;
  const rowsHeight = rowCount * NODE_HEIGHT + (rowCount - 1) * gapY;
  const bottomRoom = hasGroups ? GROUP_PAD : 0;
  const height = Math.ceil(top + rowsHeight + bottomRoom + used.below * ARC_STEP * 0.75 + (used.below ? PAD : 0) + PAD);
  const width = PAD * 2 + rankCount * NODE_WIDTH + (rankCount - 1) * GAP_X;

  const nodes = topology.nodes.map((node) => ({
    id: node.id,
    label: node.label,
    group: groupOf(node.id),
    rank: rank.get(node.id),
    x: PAD + rank.get(node.id) * (NODE_WIDTH + GAP_X),
    y: top + rowOf.get(node.id) * (NODE_HEIGHT + gapY),
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
  return { width, height, nodes, edges, groups: groupBoxes(nodes) };
}

/** The subgraph a node belongs to (`research_step` for `research_step:search`), or null for the root graph. */
export function groupOf(id) {
  const colon = String(id).lastIndexOf(':');
  return colon > 0 ? String(id).slice(0, colon) : null;
}

/**
 * Longest-path layering from the graph's entry: a node's rank is one more than its furthest predecessor's,
 * counting only the edges that do not close a cycle. Nodes no walk from the entry reaches come after.
 */
export function ranks(ids, edges) {
  const known = new Set(ids);
  const out = new Map(ids.map((id) => [id, []]));
  for (const edge of edges) {
    if (known.has(edge.source) && known.has(edge.target)) out.get(edge.source).push(edge);
  }
  const back = backEdges(ids, edges, out);
  const forward = edges.filter((edge) => !back.has(edge) && out.has(edge.source) && known.has(edge.target));
  const rank = new Map(ids.map((id) => [id, 0]));
  const incoming = new Map(ids.map((id) => [id, 0]));
  for (const edge of forward) incoming.set(edge.target, incoming.get(edge.target) + 1);
  const queue = ids.filter((id) => incoming.get(id) === 0);
  const done = new Set();
  while (queue.length > 0) {
    const id = queue.shift();
    done.add(id);
    for (const edge of forward) {
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

/** The edges that lead back to a node still on the walk's path: what makes a cycle. */
function backEdges(ids, edges, out) {
  const targeted = new Set(edges.filter((e) => e.source !== e.target).map((e) => e.target));
  let roots = ids.includes(START) ? [START] : ids.filter((id) => !targeted.has(id));
  if (roots.length === 0) roots = ids.slice(0, 1);
  const back = new Set();
  const state = new Map(); // 1: on the path, 2: done
  const walk = (root) => {
    const stack = [[root, 0]];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack.at(-1);
      const [id, index] = top;
      const edge = out.get(id)[index];
      if (edge === undefined) {
        state.set(id, 2);
        stack.pop();
        continue;
      }
      top[1] += 1;
      const seen = state.get(edge.target);
      if (seen === 1) back.add(edge);
      else if (seen === undefined) {
        state.set(edge.target, 1);
        stack.push([edge.target, 0]);
      }
    }
  };
  for (const root of roots) if (!state.has(root)) walk(root);
  for (const id of ids) if (!state.has(id)) walk(id);
  return back;
}

/**
 * A row for every node. Subgraphs first: each takes the lowest lane free across all its ranks (one row
 * per member sharing a rank), so its box holds only its own; the other nodes then take the lowest free row.
 */
function placeRows(ids, rank) {
  const taken = new Set();
  const free = (r, row) => !taken.has(`${r}:${row}`);
  const rowOf = new Map();
  const members = new Map();
  for (const id of ids) {
    const group = groupOf(id);
    if (group === null) continue;
    if (!members.has(group)) members.set(group, []);
    members.get(group).push(id);
  }
  for (const group of members.values()) {
    const spanned = group.map((id) => rank.get(id));
    const first = Math.min(...spanned);
    const last = Math.max(...spanned);
    const depth = Math.max(...spanned.map((r) => spanned.filter((other) => other === r).length));
    let row = 0;
    const fits = (start) => {
      for (let r = first; r <= last; r += 1) for (let k = 0; k < depth; k += 1) if (!free(r, start + k)) return false;
      return true;
    };
    while (!fits(row)) row += 1;
    for (let r = first; r <= last; r += 1) for (let k = 0; k < depth; k += 1) taken.add(`${r}:${row + k}`);
    const next = new Map();
    for (const id of group) {
      const offset = next.get(rank.get(id)) ?? 0;
      next.set(rank.get(id), offset + 1);
      rowOf.set(id, row + offset);
    }
  }
  for (const id of ids) {
    if (rowOf.has(id)) continue;
    let row = 0;
    while (!free(rank.get(id), row)) row += 1;
    taken.add(`${rank.get(id)}:${row}`);
    rowOf.set(id, row);
  }
  return rowOf;
}

/** One box per subgraph, around its members, with room for its name above them. */
function groupBoxes(nodes) {
  const boxes = new Map();
  for (const node of nodes) {
    if (node.group === null) continue;
    const box = boxes.get(node.group);
    const left = node.x - GROUP_PAD;
    const topEdge = node.y - GROUP_PAD - GROUP_LABEL;
    const right = node.x + node.width + GROUP_PAD;
    const bottom = node.y + node.height + GROUP_PAD;
    if (box === undefined) {
      boxes.set(node.group, { id: node.group, label: node.group, left, top: topEdge, right, bottom });
    } else {
      Object.assign(box, {
        left: Math.min(box.left, left),
        top: Math.min(box.top, topEdge),
        right: Math.max(box.right, right),
        bottom: Math.max(box.bottom, bottom),
      });
    }
  }
  return [...boxes.values()].map(({ id, label, left, top, right, bottom }) => ({
    id,
    label,
    x: left,
    y: top,
    width: right - left,
    height: bottom - top,
  }));
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
