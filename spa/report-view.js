// The eval report viewer: one report.json of `harness eval`, or a baseline and a candidate, read in the page
// (nothing is sent anywhere). It draws what ran with the headline metrics and their intervals, the paired
// verdict of two reports, the cases with their verdicts (filtered by verdict, category and words), and the graph
// as the runs walked it, each node shaded by its visits, latency or failure rate: baseline on the left half of a
// node, candidate on the right. A case's run is replayed on the live graph from its `events/` log (replay.js).

import { formatMoment, formatMs } from './format.js';
import { arrowDefs } from './graph.js';
import { layoutGraph } from './layout.js';
import { h, setText, svg } from './render.js';
import {
  caseRows,
  categories,
  filterCases,
  headlineMetrics,
  heatLevel,
  nodeStats,
  pairCases,
  pairedVerdict,
  parseReport,
  reportHeading,
  walkedTopology,
} from './reports.js';

const METRIC_NAMES = {
  case_pass_rate: 'case pass rate',
  pass_at_k: 'pass@k',
  pass_hat_k: 'pass^k',
  errors: 'errors',
  latency_ms: 'latency',
  tokens: 'tokens',
};
const HEAT_METRICS = {
  visits: { label: 'visits per run', of: (figures) => figures.visitsPerRun, words: (v) => v.toFixed(2) },
  latency: { label: 'mean latency', of: (figures) => figures.meanLatencyMs, words: (v) => formatMs(v) },
  failures: { label: 'failure rate', of: (figures) => figures.failureRate, words: (v) => `${Math.round(v * 100)}%` },
};
const TEST_NAMES = { mcnemar_exact: "McNemar's exact test", paired_permutation: 'a sign-flip permutation test', none: 'no test' };

/** Wire the viewer's controls inside `root` (the `[data-region=reports]` section of index.html). */
export function mountReportViewer(doc, root) {
  const $ = (selector) => root.querySelector(selector);
  const els = {
    base: $('[data-role=report-base]'),
    cand: $('[data-role=report-cand]'),
    clear: $('[data-action=clear-reports]'),
    note: $('[data-role=reports-note]'),
    body: $('[data-region=report-body]'),
    summary: $('[data-region=report-summary]'),
    verdict: $('[data-region=report-verdict]'),
    filterVerdict: $('[data-role=case-verdict]'),
    filterCategory: $('[data-role=case-category]'),
    filterText: $('[data-role=case-text]'),
    changed: $('[data-role=case-verdict] option[value=changed]'),
    cases: $('[data-region=report-cases]'),
    count: $('[data-role=case-count]'),
    heatMetric: $('[data-role=heat-metric]'),
    heat: $('[data-region=report-heat]'),
  };
  const shown = { base: null, cand: null };

  async function open(which, input) {
    const [file] = input.files;
    input.value = ''; // the same file can be chosen again
    if (!file) return;
    try {
      shown[which] = { name: file.name, report: parseReport(await file.text(), file.name) };
      setText(els.note, '');
    } catch (error) {
      setText(els.note, `${file.name} cannot be shown: ${error.message}`);
      return;
    }
    redraw();
  }

  function redraw() {
    const only = shown.base ?? shown.cand;
    els.body.hidden = only === null;
    root.setAttribute('data-reports', String((shown.base ? 1 : 0) + (shown.cand ? 1 : 0)));
    if (only === null) return;
    const pair = shown.base && shown.cand ? [shown.base, shown.cand] : null;
    renderSummary(doc, els.summary, pair ?? [only]);
    const rows = pair ? pairCases(pair[0].report, pair[1].report) : caseRows(only.report);
    renderVerdict(els.verdict, pair ? pairedVerdict(rows) : null);
    els.changed.hidden = pair === null;
    els.changed.disabled = pair === null;
    if (pair === null && els.filterVerdict.value === 'changed') els.filterVerdict.value = 'all';
    renderCategories(doc, els.filterCategory, categories(rows));
    const filters = { verdict: els.filterVerdict.value, category: els.filterCategory.value, text: els.filterText.value };
    const visible = filterCases(rows, filters);
    setText(els.count, `${visible.length} of ${rows.length} cases`);
    renderCases(doc, els.cases, visible, pair !== null);
    const stats = (pair ?? [only]).map((side) => nodeStats(side.report));
    drawHeatMap(doc, els.heat, stats, els.heatMetric.value);
  }

  els.base.addEventListener('change', () => open('base', els.base));
  els.cand.addEventListener('change', () => open('cand', els.cand));
  els.clear.addEventListener('click', () => {
    shown.base = null;
    shown.cand = null;
    setText(els.note, '');
    redraw();
  });
  for (const control of [els.filterVerdict, els.filterCategory, els.heatMetric]) control.addEventListener('change', redraw);
  els.filterText.addEventListener('input', redraw);
  redraw();
}

function renderSummary(doc, element, sides) {
  const cards = sides.map((side, index) => {
    const heading = reportHeading(side.report);
    const role = sides.length === 1 ? 'Report' : index === 0 ? 'Baseline' : 'Candidate';
    const facts = [
      heading.graph,
      heading.dataset,
      heading.model ? `${heading.provider} (${heading.model})` : heading.provider,
      `${heading.cases} cases × ${heading.epochs} epoch${heading.epochs === 1 ? '' : 's'}`,
      heading.generatedAt ? formatMoment(heading.generatedAt) : null,
      heading.commit ? `commit ${heading.commit}` : null,
    ].filter(Boolean);
    const metrics = headlineMetrics(side.report).map((metric) =>
      h(doc, 'li', { 'data-metric': metric.name }, [
        h(doc, 'span', { class: 'metric-name' }, [METRIC_NAMES[metric.name] ?? metric.name]),
        ' ',
        h(doc, 'strong', {}, [metricWords(metric.name, metric.value)]),
        metric.ci95 ? ` [${metricWords(metric.name, metric.ci95[0])}, ${metricWords(metric.name, metric.ci95[1])}]` : '',
        metric.n !== null ? h(doc, 'span', { class: 'metric-n' }, [` n ${metric.n}`]) : '',
      ]),
    );
    return h(doc, 'article', { class: 'report-card', 'data-side': sides.length === 1 ? 'report' : index === 0 ? 'base' : 'cand' }, [
      h(doc, 'h3', {}, [`${role}: ${side.name}`]),
      h(doc, 'p', { class: 'report-facts' }, [facts.join(' · ')]),
      h(doc, 'ul', { class: 'report-metrics', 'aria-label': `${role} metrics with 95% intervals` }, metrics),
    ]);
  });
  element.replaceChildren(...cards);
}

function metricWords(name, value) {
  if (name === 'latency_ms') return formatMs(value);
  if (name === 'tokens' || name === 'errors') return value.toFixed(1);
  return value.toFixed(2);
}

function renderVerdict(element, verdict) {
  element.hidden = verdict === null;
  if (verdict === null) return;
  element.setAttribute('data-verdict', verdict.verdict);
  const parts = [`Case pass rate: ${verdict.verdict}`];
  if (verdict.test !== 'none') {
    const effect = `${verdict.effect > 0 ? '+' : ''}${verdict.effect.toFixed(3)}`;
    parts.push(` (${TEST_NAMES[verdict.test]}, p = ${verdict.pValue.toFixed(4)}, effect ${effect} over ${verdict.n} paired cases`);
    if (verdict.test === 'mcnemar_exact') parts.push(`; ${verdict.worse} worse, ${verdict.better} better`);
    parts.push(')');
  } else {
    parts.push(' (no case is in both reports)');
  }
  if (verdict.unpaired > 0) parts.push(`; ${verdict.unpaired} case${verdict.unpaired === 1 ? '' : 's'} in one report only`);
  setText(element, `${parts.join('')}.`);
}

function renderCategories(doc, select, names) {
  const chosen = select.value;
  const options = [h(doc, 'option', { value: '' }, ['every category']), ...names.map((name) => h(doc, 'option', { value: name }, [name]))];
  select.replaceChildren(...options);
  select.value = names.includes(chosen) ? chosen : '';
  select.disabled = names.length === 0;
}

function verdictWords(row) {
  if (row === null) return '–';
  const flaky = row.flaky ? ' (flaky)' : '';
  return `${row.passed ? 'passed' : 'failed'} ${row.epochsPassed}/${row.epochs}${flaky}`;
}

function renderCases(doc, table, rows, paired) {
  const head = paired
    ? ['Case', 'Category', 'Baseline', 'Candidate', 'Change', 'What it missed']
    : ['Case', 'Category', 'Verdict', 'What it missed', 'Recorded runs'];
  const body = rows.map((row) => {
    const own = paired ? row.cand ?? row.base : row;
    const cells = paired
      ? [row.id, row.category ?? '–', verdictWords(row.base), verdictWords(row.cand), row.change]
      : [row.id, row.category ?? '–', verdictWords(row)];
    const missed = own.failures.length > 0 ? own.failures.join('; ') : own.knownIssue ? `known issue: ${own.knownIssue}` : '';
    cells.push(missed);
    if (!paired) cells.push(row.events.join(' '));
    return h(
      doc,
      'tr',
      { 'data-case': row.id, 'data-passed': String(own.passed), 'data-change': paired ? row.change : null },
      cells.map((cell) => h(doc, 'td', {}, [cell])),
    );
  });
  table.replaceChildren(
    h(doc, 'thead', {}, [h(doc, 'tr', {}, head.map((name) => h(doc, 'th', { scope: 'col' }, [name])))]),
    h(doc, 'tbody', {}, body),
  );
}

/** The walked graph in `root` (an <svg>), each node shaded by `metric` (a key of `HEAT_METRICS`) per report. */
export function drawHeatMap(doc, root, stats, metric) {
  const heat = HEAT_METRICS[metric] ?? HEAT_METRICS.visits;
  const topology = walkedTopology(...stats);
  root.replaceChildren();
  if (topology.nodes.length === 0) {
    root.setAttribute('viewBox', '0 0 320 40');
    root.setAttribute('width', '320');
    root.setAttribute('height', '40');
    root.appendChild(svg(doc, 'text', { class: 'heat-empty', x: 8, y: 24 }, ['No node ran in these reports.']));
    return;
  }
  const layout = layoutGraph(topology);
  root.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  root.setAttribute('width', String(layout.width));
  root.setAttribute('height', String(layout.height));
  root.appendChild(arrowDefs(doc, 'heat-arrow'));
  const edges = svg(doc, 'g', { class: 'edges', 'aria-hidden': 'true' });
  for (const edge of layout.edges) {
    edges.appendChild(svg(doc, 'path', { class: 'edge', d: edge.d, 'marker-end': 'url(#heat-arrow)' }));
  }
  root.appendChild(edges);
  const values = stats.flatMap((one) => [...one.nodes.values()].map(heat.of));
  const nodes = svg(doc, 'g', { class: 'nodes' });
  for (const node of layout.nodes) {
    const figures = stats.map((one) => one.nodes.get(node.id) ?? null);
    const sides = figures.map((one) => (one === null ? null : heat.of(one)));
    const words = sides.map((value) => (value === null ? 'did not run' : heat.words(value)));
    const label = `${node.label}: ${heat.label} ${words.join(' → ')}`;
    const half = node.width / figures.length;
    const cells = sides.map((value, index) =>
      svg(doc, 'rect', {
        class: 'heat-cell',
        'data-side': figures.length === 1 ? 'report' : index === 0 ? 'base' : 'cand',
        'data-heat': String(value === null ? 0 : heatLevel(value, values)),
        x: node.x + index * half,
        y: node.y,
        width: half,
        height: node.height,
      }),
    );
    nodes.appendChild(
      svg(doc, 'g', { class: 'heat-node', 'data-node': node.id, role: 'img', 'aria-label': label }, [
        svg(doc, 'title', {}, [heatTitle(node.label, figures)]),
        ...cells,
        svg(doc, 'rect', { class: 'heat-frame', x: node.x, y: node.y, width: node.width, height: node.height, rx: 10 }),
        svg(doc, 'text', { class: 'node-label', x: node.x + 12, y: node.y + 24 }, [node.label]),
        svg(doc, 'text', { class: 'node-status', x: node.x + 12, y: node.y + 46 }, [words.join(' → ')]),
      ]),
    );
  }
  root.appendChild(nodes);
}

function heatTitle(label, figures) {
  const lines = figures.map((one, index) => {
    const side = figures.length === 1 ? '' : index === 0 ? 'baseline: ' : 'candidate: ';
    if (one === null) return `${side}did not run`;
    const parts = Object.values(HEAT_METRICS).map((metric) => `${metric.label} ${metric.words(metric.of(one))}`);
    return `${side}${parts.join(', ')}, in ${one.runs} runs`;
  });
  return [label, ...lines].join('\n');
}
