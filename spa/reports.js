// Reading `harness eval`'s report.json, one or two: the cases with their verdicts, the headline metrics with
// their intervals, what each node of the graph did over every case and epoch, and, for two reports, each
// case's change and the paired verdict on the case pass rate, by the test `harness eval compare` uses
// (McNemar's exact test when every case is pass/fail, else the sign-flip permutation test). No DOM.

/** The report schema this viewer reads (agent/evaluation/report.py's REPORT_SCHEMA_VERSION). */
export const REPORT_SCHEMA_VERSION = 2;
/** A change is significant when its two-sided p-value is below this (`[tool.harness.gate.compare]`'s default). */
export const ALPHA = 0.05;
/** The headline metrics shown first, in this order, when the report has them. */
export const HEADLINE = ['case_pass_rate', 'pass_at_k', 'pass_hat_k', 'errors', 'latency_ms', 'tokens'];
/** What a trajectory writes where the run paused at an interrupt: not a node. */
const INTERRUPT_MARKER = '__interrupt__';
/** Up to this many non-zero differences the permutation test enumerates every sign (as significance.py). */
const EXACT_FLIPS = 14;
const MONTE_CARLO_RESAMPLES = 10000;
const TOLERANCE = 1e-9;

/** A report.json's text as an object; an error in words when it is not one this viewer reads. */
export function parseReport(text, name = 'the file') {
  let value;
  try {
    value = JSON.parse(String(text).replace(/^\uFEFF/, ''));
  } catch {
    throw new Error(`${name} is not JSON.`);
  }
  if (value === null || typeof value !== 'object' || !('schema_version' in value)) {
    throw new Error(`${name} is not an eval report (it has no schema_version).`);
  }
  if (value.schema_version !== REPORT_SCHEMA_VERSION) {
    throw new Error(`${name} has report schema_version ${value.schema_version}; this viewer reads ${REPORT_SCHEMA_VERSION}.`);
  }
  if (!Array.isArray(value.cases) || !Array.isArray(value.runs) || value.runs.length === 0) {
    throw new Error(`${name} is not an eval report (it has no cases or runs).`);
  }
  return value;
}

/** What ran: graph, dataset, provider, epochs, when, and from which commit. */
export function reportHeading(report) {
  const run = report.run ?? {};
  return {
    graph: run.graph ?? 'support',
    dataset: run.dataset ?? report.dataset?.name ?? '',
    provider: run.provider ?? '',
    model: run.model ?? null,
    epochs: run.epochs ?? 1,
    generatedAt: report.generated_at ?? null,
    commit: run.git_commit ? String(run.git_commit).slice(0, 10) : null,
    cases: report.cases.length,
  };
}

/** The headline metrics the report has, in `HEADLINE` order: name, value, 95% interval, n. */
export function headlineMetrics(report) {
  const metrics = report.metrics ?? {};
  return HEADLINE.filter((name) => metrics[name] && typeof metrics[name].value === 'number').map((name) => ({
    name,
    value: metrics[name].value,
    ci95: Array.isArray(metrics[name].ci95) ? metrics[name].ci95 : null,
    n: metrics[name].n ?? null,
  }));
}

/** One row per case: its verdict over the epochs, its pass rate, whether it flaked, what it missed. */
export function caseRows(report) {
  return report.cases.map((item) => {
    const epochs = Number(item.epochs) || 1;
    const epochsPassed = Number(item.epochs_passed) || 0;
    return {
      id: String(item.id),
      category: item.category ?? null,
      passed: Boolean(item.passed),
      epochs,
      epochsPassed,
      passRate: epochsPassed / epochs,
      flaky: Boolean(item.flaky) || (epochsPassed > 0 && epochsPassed < epochs),
      knownIssue: item.known_issue ?? null,
      failures: Array.isArray(item.failures) ? item.failures.map(String) : [],
      events: Array.isArray(item.events) ? item.events.map(String) : [],
    };
  });
}

/**
 * Each case of two reports side by side, paired by id, in the candidate's order then the baseline's cases it
 * lost: `change` is `fixed` (failed, now passes every epoch), `broken` (passed, now fails), `better` / `worse`
 * (its pass rate over epochs moved), `same`, `added` or `removed`.
 */
export function pairCases(baseline, candidate) {
  const before = new Map(caseRows(baseline).map((row) => [row.id, row]));
  const after = caseRows(candidate);
  const rows = after.map((row) => ({ id: row.id, category: row.category, base: before.get(row.id) ?? null, cand: row }));
  const seen = new Set(after.map((row) => row.id));
  for (const row of before.values()) {
    if (!seen.has(row.id)) rows.push({ id: row.id, category: row.category, base: row, cand: null });
  }
  return rows.map((row) => ({ ...row, change: caseChange(row.base, row.cand) }));
}

function caseChange(base, cand) {
  if (base === null) return 'added';
  if (cand === null) return 'removed';
  if (!base.passed && cand.passed) return 'fixed';
  if (base.passed && !cand.passed) return 'broken';
  if (cand.passRate > base.passRate + TOLERANCE) return 'better';
  if (cand.passRate < base.passRate - TOLERANCE) return 'worse';
  return 'same';
}

/**
 * The paired verdict on the case pass rate over the cases both reports have (each case's share of epochs
 * passed): `improved` / `regressed` when p < `ALPHA`, else `no significant change`; the test, n, the effect
 * (candidate minus baseline) and, for pass/fail pairs, how many cases got worse and better.
 */
export function pairedVerdict(pairs) {
  const paired = pairs.filter((pair) => pair.base !== null && pair.cand !== null);
  const base = paired.map((pair) => pair.base.passRate);
  const cand = paired.map((pair) => pair.cand.passRate);
  const result = pairedTest(base, cand);
  let verdict = 'no significant change';
  if (result.pValue !== null && result.pValue < ALPHA && result.effect !== 0) {
    verdict = result.effect > 0 ? 'improved' : 'regressed';
  }
  return { ...result, verdict, unpaired: pairs.length - paired.length };
}

/** `harness eval compare`'s test for per-case values paired by position (agent/evaluation/significance.py). */
export function pairedTest(base, cand) {
  if (base.length !== cand.length) throw new Error(`paired values differ in length: ${base.length} and ${cand.length}`);
  if (base.length === 0) return { test: 'none', n: 0, effect: null, pValue: null, worse: 0, better: 0 };
  const differences = cand.map((value, index) => value - base[index]);
  const effect = round6(differences.reduce((sum, d) => sum + d, 0) / differences.length);
  const binary = [...base, ...cand].every((value) => value === 0 || value === 1);
  if (binary) {
    const worse = base.filter((value, index) => value === 1 && cand[index] === 0).length;
    const better = base.filter((value, index) => value === 0 && cand[index] === 1).length;
    return { test: 'mcnemar_exact', n: base.length, effect, pValue: round6(mcnemarExact(worse, better)), worse, better };
  }
  return { test: 'paired_permutation', n: base.length, effect, pValue: round6(signFlipPermutation(differences)), worse: 0, better: 0 };
}

/** Two-sided exact McNemar p-value: the binomial(worse + better, 1/2) tail of the rarer flip, doubled. */
export function mcnemarExact(worse, better) {
  const flips = worse + better;
  if (flips === 0) return 1;
  let tail = 0;
  for (let k = 0; k <= Math.min(worse, better); k += 1) tail += binomial(flips, k);
  return Math.min(1, (2 * tail) / 2 ** flips);
}

/**
 * Two-sided p-value of the mean paired difference under random signs: exact up to `EXACT_FLIPS` non-zero
 * differences (the same figure as `harness eval compare`), else a Monte Carlo estimate that counts the
 * observed assignment ((hits + 1) / (R + 1)), close to but not the same draws as the Python one.
 */
export function signFlipPermutation(differences, { resamples = MONTE_CARLO_RESAMPLES, random = seededRandom(20261202) } = {}) {
  const nonzero = differences.filter((d) => Math.abs(d) > TOLERANCE);
  if (nonzero.length === 0) return 1;
  const observed = Math.abs(nonzero.reduce((sum, d) => sum + d, 0));
  if (nonzero.length <= EXACT_FLIPS) {
    let hits = 0;
    const assignments = 2 ** nonzero.length;
    for (let signs = 0; signs < assignments; signs += 1) {
      let total = 0;
      nonzero.forEach((d, index) => {
        total += (signs >> index) & 1 ? -d : d;
      });
      if (Math.abs(total) >= observed - TOLERANCE) hits += 1;
    }
    return hits / assignments;
  }
  let hits = 0;
  for (let draw = 0; draw < resamples; draw += 1) {
    const total = nonzero.reduce((sum, d) => sum + (random() < 0.5 ? d : -d), 0);
    if (Math.abs(total) >= observed - TOLERANCE) hits += 1;
  }
  return (hits + 1) / (resamples + 1);
}

/** Rows narrowed by a verdict (`all`, `passed`, `failed`, `flaky`, `changed`), a category and words in the id or
 * what it missed. Works on `caseRows` and on `pairCases` rows (judged by the candidate's side). */
export function filterCases(rows, { verdict = 'all', category = '', text = '' } = {}) {
  const words = text.trim().toLowerCase();
  return rows.filter((row) => {
    const own = 'cand' in row ? row.cand ?? row.base : row;
    if (category && row.category !== category) return false;
    if (verdict === 'passed' && !own.passed) return false;
    if (verdict === 'failed' && own.passed) return false;
    if (verdict === 'flaky' && !own.flaky) return false;
    if (verdict === 'changed' && (!('change' in row) || row.change === 'same')) return false;
    if (!words) return true;
    return [row.id, ...own.failures].some((part) => part.toLowerCase().includes(words));
  });
}

/** The categories the rows name, sorted. */
export function categories(rows) {
  return [...new Set(rows.map((row) => row.category).filter((category) => typeof category === 'string'))].sort();
}

/**
 * What each node did over every case and epoch of the report's first run: how many runs (case epochs) it ran
 * in, its visits per run, its mean latency, and its failure rate (visits whose outcome was an error); and the
 * transitions from one node to the next as the runs went. A registered graph's trajectories, or the support
 * agent's per-turn node trace.
 */
export function nodeStats(report) {
  const runs = nodeRuns(report.runs[0]);
  const nodes = new Map();
  const transitions = new Map();
  for (const steps of runs) {
    const ranIn = new Set();
    steps.forEach((step, index) => {
      const stats = nodes.get(step.node) ?? { node: step.node, visits: 0, runs: 0, latencyMs: 0, failures: 0 };
      stats.visits += 1;
      stats.latencyMs += Number(step.latency_ms) || 0;
      if (step.outcome === 'error' || step.outcome === 'failed') stats.failures += 1;
      if (!ranIn.has(step.node)) {
        stats.runs += 1;
        ranIn.add(step.node);
      }
      nodes.set(step.node, stats);
      const next = steps[index + 1];
      if (next) {
        const key = `${step.node}→${next.node}`;
        transitions.set(key, (transitions.get(key) ?? 0) + 1);
      }
    });
  }
  const total = runs.length;
  const figures = new Map();
  for (const stats of nodes.values()) {
    figures.set(stats.node, {
      node: stats.node,
      runs: stats.runs,
      visitsPerRun: total > 0 ? stats.visits / total : 0,
      meanLatencyMs: stats.visits > 0 ? stats.latencyMs / stats.visits : 0,
      failureRate: stats.visits > 0 ? stats.failures / stats.visits : 0,
    });
  }
  return { runs: total, nodes: figures, transitions };
}

function nodeRuns(run) {
  if (Array.isArray(run?.records) && run.records.length > 0) {
    return run.records.map((record) =>
      (record.trajectory ?? []).filter((step) => step && typeof step.node === 'string' && step.node !== INTERRUPT_MARKER),
    );
  }
  return (run?.cases ?? []).map((item) =>
    (item.turns ?? []).flatMap((turn) => (turn.nodes ?? []).filter((step) => step && typeof step.node === 'string')),
  );
}

/** A topology (as `graph_topology` has it) of the nodes and transitions the runs of one or two reports took. */
export function walkedTopology(...stats) {
  const ids = [];
  for (const one of stats) for (const node of one.nodes.keys()) if (!ids.includes(node)) ids.push(node);
  const edges = [];
  const seen = new Set();
  for (const one of stats) {
    for (const key of one.transitions.keys()) {
      if (seen.has(key)) continue;
      seen.add(key);
      const [source, target] = key.split('→');
      edges.push({ source, target, conditional: false });
    }
  }
  return { nodes: ids.map((id) => ({ id, label: id })), edges };
}

/** A value's place on a five-step scale from 0 (none) to 4 (the largest of `values`). */
export function heatLevel(value, values) {
  const largest = Math.max(0, ...values.filter((v) => Number.isFinite(v)));
  if (!(value > 0) || largest <= 0) return 0;
  return Math.max(1, Math.min(4, Math.ceil((value / largest) * 4)));
}

function binomial(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return Math.round(result);
}

function round6(value) {
  return Math.round(value * 1e6) / 1e6;
}

/** A small seeded generator (mulberry32), so the same reports give the same Monte Carlo figure. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
