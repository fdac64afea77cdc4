import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  caseRows,
  categories,
  filterCases,
  headlineMetrics,
  heatLevel,
  mcnemarExact,
  nodeStats,
  pairCases,
  pairedTest,
  pairedVerdict,
  parseReport,
  signFlipPermutation,
  walkedTopology,
} from '../reports.js';

/** A report.json the way `harness eval` writes one for a registered graph (only the fields the viewer reads). */
function graphReport(cases, { epochs = 1 } = {}) {
  return {
    schema_version: 2,
    generated_at: '2026-12-07T10:00:00.000000Z',
    run: { graph: 'react_agent', dataset: 'eval', provider: 'stub', model: null, epochs, git_commit: 'c76513b88724b5386a8e' },
    metrics: {
      case_pass_rate: { value: 0.5, stderr: 0.2, ci95: [0.1, 0.9], n: cases.length },
      tokens: { value: 84, stderr: 0, ci95: [84, 84], n: cases.length },
      unknown_metric: { value: 1, stderr: 0, ci95: [1, 1], n: 1 },
    },
    cases: cases.map((item) => ({
      id: item.id,
      passed: item.passed.every(Boolean),
      epochs_passed: item.passed.filter(Boolean).length,
      epochs: item.passed.length,
      category: item.category ?? null,
      failures: item.failures ?? [],
      events: item.passed.map((_, index) => `events/${item.id}.${index + 1}.jsonl`),
    })),
    runs: [
      {
        provider: 'stub',
        records: cases.flatMap((item) =>
          item.passed.map((_, index) => ({ id: item.id, epoch: index + 1, trajectory: item.trajectory ?? [] })),
        ),
        cases: [],
      },
    ],
  };
}

const step = (node, latency_ms, outcome = 'ok') => ({ node, depth: 0, latency_ms, outcome });

describe('parseReport', () => {
  test('reads a report and names what is wrong with anything else', () => {
    const report = graphReport([{ id: 'a', passed: [true] }]);
    assert.deepEqual(parseReport(`\uFEFF${JSON.stringify(report)}`), report);
    assert.throws(() => parseReport('{oops', 'x.json'), /x\.json is not JSON/);
    assert.throws(() => parseReport('[1]', 'x.json'), /not an eval report \(it has no schema_version\)/);
    assert.throws(() => parseReport(JSON.stringify({ ...report, schema_version: 1 })), /schema_version 1; this viewer reads 2/);
    assert.throws(() => parseReport(JSON.stringify({ ...report, runs: [] })), /no cases or runs/);
  });
});

describe('cases of one report', () => {
  const report = graphReport(
    [
      { id: 'lookup', passed: [true, true], category: 'lookup' },
      { id: 'refund', passed: [true, false], category: 'action', failures: ['tools: expected issue_refund'] },
      { id: 'cancel', passed: [false, false], category: 'action', failures: ['state: messages.-1.content'] },
    ],
    { epochs: 2 },
  );

  test('each case has its verdict over the epochs, its pass rate and whether it flaked', () => {
    const rows = caseRows(report);
    assert.deepEqual(
      rows.map((row) => [row.id, row.passed, row.epochsPassed, row.passRate, row.flaky]),
      [
        ['lookup', true, 2, 1, false],
        ['refund', false, 1, 0.5, true],
        ['cancel', false, 0, 0, false],
      ],
    );
    assert.deepEqual(categories(rows), ['action', 'lookup']);
  });

  test('filters by verdict, category and words in the id or what the case missed', () => {
    const rows = caseRows(report);
    const ids = (filters) => filterCases(rows, filters).map((row) => row.id);
    assert.deepEqual(ids({}), ['lookup', 'refund', 'cancel']);
    assert.deepEqual(ids({ verdict: 'failed' }), ['refund', 'cancel']);
    assert.deepEqual(ids({ verdict: 'passed' }), ['lookup']);
    assert.deepEqual(ids({ verdict: 'flaky' }), ['refund']);
    assert.deepEqual(ids({ category: 'action' }), ['refund', 'cancel']);
    assert.deepEqual(ids({ text: 'ISSUE_REFUND' }), ['refund']);
    assert.deepEqual(ids({ text: '  look ' }), ['lookup']);
    assert.deepEqual(ids({ verdict: 'changed' }), [], 'one report has no changes');
  });

  test('the headline metrics come in order, with their intervals, and only the known ones', () => {
    assert.deepEqual(
      headlineMetrics(report).map((metric) => [metric.name, metric.value, metric.ci95]),
      [
        ['case_pass_rate', 0.5, [0.1, 0.9]],
        ['tokens', 84, [84, 84]],
      ],
    );
  });
});

describe('two reports', () => {
  const baseline = graphReport([
    { id: 'a', passed: [true] },
    { id: 'b', passed: [true] },
    { id: 'c', passed: [false] },
    { id: 'gone', passed: [true] },
  ]);
  const candidate = graphReport([
    { id: 'a', passed: [true] },
    { id: 'b', passed: [false] },
    { id: 'c', passed: [true] },
    { id: 'new', passed: [false] },
  ]);

  test('pairs cases by id and names each change', () => {
    const pairs = pairCases(baseline, candidate);
    assert.deepEqual(
      pairs.map((pair) => [pair.id, pair.change]),
      [
        ['a', 'same'],
        ['b', 'broken'],
        ['c', 'fixed'],
        ['new', 'added'],
        ['gone', 'removed'],
      ],
    );
    assert.deepEqual(
      filterCases(pairs, { verdict: 'changed' }).map((pair) => pair.id),
      ['b', 'c', 'new', 'gone'],
    );
  });

  test("the paired verdict uses McNemar's exact test on pass/fail cases, as harness eval compare does", () => {
    const verdict = pairedVerdict(pairCases(baseline, candidate));
    assert.equal(verdict.test, 'mcnemar_exact');
    assert.equal(verdict.n, 3);
    assert.equal(verdict.worse, 1);
    assert.equal(verdict.better, 1);
    assert.equal(verdict.pValue, 1);
    assert.equal(verdict.effect, 0);
    assert.equal(verdict.verdict, 'no significant change');
    assert.equal(verdict.unpaired, 2);
  });

  test('six cases that all broke are a significant regression', () => {
    const ids = ['1', '2', '3', '4', '5', '6'];
    const before = graphReport(ids.map((id) => ({ id, passed: [true] })));
    const after = graphReport(ids.map((id) => ({ id, passed: [false] })));
    const verdict = pairedVerdict(pairCases(before, after));
    assert.equal(verdict.pValue, 0.03125);
    assert.equal(verdict.verdict, 'regressed');
    assert.equal(pairedVerdict(pairCases(after, before)).verdict, 'improved');
  });

  test('the p-values are the ones agent/evaluation/significance.py computes', () => {
    // figures printed by significance.py's mcnemar_exact, sign_flip_permutation and paired_test
    assert.equal(mcnemarExact(0, 6), 0.03125);
    assert.equal(mcnemarExact(2, 5), 0.453125);
    assert.equal(mcnemarExact(3, 3), 1);
    assert.equal(signFlipPermutation([1 / 3, -2 / 3, 1, 2 / 3, 1 / 3, 0, 1]), 0.1875);
    const test = pairedTest([1, 2 / 3, 1, 0], [2 / 3, 1, 0, 0]);
    assert.equal(test.test, 'paired_permutation');
    assert.equal(test.effect, -0.25);
    assert.equal(test.pValue, 0.75);
    assert.throws(() => pairedTest([1], []), /differ in length/);
  });

  test('many non-zero differences get a seeded Monte Carlo estimate that is never 0', () => {
    const differences = Array.from({ length: 20 }, () => -0.5);
    const p = signFlipPermutation(differences, { resamples: 2000 });
    assert.ok(p > 0 && p < 0.01, p);
    assert.equal(signFlipPermutation(differences, { resamples: 2000 }), p, 'the same figure each time');
  });
});

describe('what each node did', () => {
  const report = graphReport(
    [
      { id: 'a', passed: [true, true], trajectory: [step('agent', 100), step('tools', 20), step('agent', 60)] },
      {
        id: 'b',
        passed: [false, true],
        trajectory: [step('agent', 40), { node: '__interrupt__', depth: 0, latency_ms: 0, outcome: 'interrupted' }, step('tools', 10, 'error')],
      },
    ],
    { epochs: 2 },
  );

  test('visits per run, mean latency and failure rate over every case and epoch', () => {
    const stats = nodeStats(report);
    assert.equal(stats.runs, 4);
    const agent = stats.nodes.get('agent');
    assert.equal(agent.runs, 4);
    assert.equal(agent.visitsPerRun, 6 / 4);
    assert.equal(agent.meanLatencyMs, (2 * (100 + 60) + 2 * 40) / 6);
    assert.equal(agent.failureRate, 0);
    const tools = stats.nodes.get('tools');
    assert.equal(tools.failureRate, 0.5);
    assert.ok(!stats.nodes.has('__interrupt__'), 'a pause is not a node');
    assert.equal(stats.transitions.get('agent→tools'), 4);
    assert.equal(stats.transitions.get('tools→agent'), 2);
  });

  test('the support agent is read from its turns node trace', () => {
    const support = {
      ...graphReport([{ id: 'x', passed: [true] }]),
      runs: [
        {
          records: [],
          cases: [
            {
              id: 'x',
              turns: [
                { nodes: [{ node: 'guardrail_pre', latency_ms: 2, outcome: 'pass' }, { node: 'retrieve_context', latency_ms: 5, outcome: 'ok' }] },
                { nodes: [{ node: 'execute_action', latency_ms: 3, outcome: 'error' }] },
              ],
            },
          ],
        },
      ],
    };
    const stats = nodeStats(support);
    assert.equal(stats.runs, 1);
    assert.deepEqual([...stats.nodes.keys()], ['guardrail_pre', 'retrieve_context', 'execute_action']);
    assert.equal(stats.nodes.get('execute_action').failureRate, 1);
  });

  test('the walked topology joins both reports, nodes in the order first seen', () => {
    const other = graphReport([{ id: 'a', passed: [true], trajectory: [step('agent', 1), step('review', 1)] }]);
    const topology = walkedTopology(nodeStats(report), nodeStats(other));
    assert.deepEqual(
      topology.nodes.map((node) => node.id),
      ['agent', 'tools', 'review'],
    );
    assert.deepEqual(
      topology.edges.map((edge) => `${edge.source}>${edge.target}`),
      ['agent>tools', 'tools>agent', 'agent>review'],
    );
  });

  test('heat levels run from 0 (none) to 4 (the largest)', () => {
    assert.equal(heatLevel(0, [0, 5, 10]), 0);
    assert.equal(heatLevel(10, [0, 5, 10]), 4);
    assert.equal(heatLevel(5, [0, 5, 10]), 2);
    assert.equal(heatLevel(0.1, [0.1, 10]), 1, 'a node that ran is never blank');
    assert.equal(heatLevel(3, [0, 0]), 0);
  });
});
