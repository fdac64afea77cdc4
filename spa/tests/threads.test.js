import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  THREAD_SEARCH,
  assistantOfThread,
  lastQuestion,
  latestRun,
  recentThreads,
  renderThreads,
  statusWords,
} from '../threads.js';
import { fakeDocument, serialize } from './support.js';

const A2A_THREAD = {
  thread_id: 'ctx_a2a',
  created_at: '2026-12-01T06:40:00.000Z',
  updated_at: '2026-12-01T06:41:00.000Z',
  metadata: { graph_id: 'react_agent', assistant_id: 'asst_react' },
  status: 'interrupted',
  values: {
    messages: [
      { type: 'human', content: 'What is the refund policy?' },
      { type: 'ai', content: 'Thirty days.' },
      { type: 'human', content: [{ type: 'text', text: 'Please refund order A-1001.' }] },
    ],
  },
  interrupts: {},
};
const RESEARCH_THREAD = {
  thread_id: 'ctx_research',
  updated_at: '2026-12-01T06:39:00.000Z',
  metadata: { graph_id: 'research' },
  status: 'idle',
  values: { topic: 'shipping', report: '' },
};

describe('the recent threads', () => {
  test('are asked for newest first, a few', () => {
    assert.deepEqual(THREAD_SEARCH, { limit: 10, sort_by: 'updated_at', sort_order: 'desc' });
  });

  test('rows name the graph, the assistant, the status and what was last asked', () => {
    const rows = recentThreads([A2A_THREAD, RESEARCH_THREAD, { metadata: {} }, null, 'x']);
    assert.deepEqual(rows, [
      {
        thread_id: 'ctx_a2a',
        graph_id: 'react_agent',
        assistant_id: 'asst_react',
        status: 'interrupted',
        updated_at: '2026-12-01T06:41:00.000Z',
        question: 'Please refund order A-1001.',
      },
      {
        thread_id: 'ctx_research',
        graph_id: 'research',
        assistant_id: 'research',
        status: 'idle',
        updated_at: '2026-12-01T06:39:00.000Z',
        question: 'shipping',
      },
    ]);
    assert.deepEqual(recentThreads({ detail: 'not a list' }), []);
  });

  test('the question: the last person message, else the first text field, else nothing', () => {
    assert.equal(lastQuestion({ messages: [{ role: 'user', content: 'hi' }] }), 'hi');
    assert.equal(lastQuestion({ messages: [{ type: 'ai', content: 'hello' }] }), '');
    assert.equal(lastQuestion({ count: 3, topic: ' tides ' }), 'tides');
    assert.equal(lastQuestion(null), '');
  });

  test('a thread opens to its newest run', () => {
    const runs = [
      { run_id: 'r_old', created_at: '2026-12-01T06:00:00Z' },
      { run_id: 'r_new', created_at: '2026-12-01T07:00:00Z' },
      { created_at: '2026-12-01T08:00:00Z' },
    ];
    assert.equal(latestRun(runs).run_id, 'r_new');
    assert.equal(latestRun([]), null);
    assert.equal(latestRun({ code: 'x' }), null);
  });

  test('its runs are continued with the graph known assistant, or one made of the metadata', () => {
    const [row] = recentThreads([A2A_THREAD]);
    const known = { assistant_id: 'a1', graph_id: 'react_agent', name: 'ReAct', description: '' };
    assert.equal(assistantOfThread(row, [known]), known);
    assert.deepEqual(assistantOfThread(row, null), {
      assistant_id: 'asst_react',
      graph_id: 'react_agent',
      name: 'react_agent',
      description: '',
    });
  });

  test('drawn keyed by thread, text from the server as text, the open one marked', () => {
    const doc = fakeDocument();
    const list = doc.createElement('ol');
    const hostile = { ...RESEARCH_THREAD, values: { topic: '<img src=x onerror=alert(1)>' } };
    const rows = recentThreads([A2A_THREAD, hostile]);
    renderThreads(doc, list, rows, { openId: 'ctx_a2a', names: new Map([['react_agent', 'ReAct agent']]) });
    const items = list.children;
    assert.deepEqual(
      items.map((item) => [item.getAttribute('data-thread-id'), item.getAttribute('data-graph-id'), item.getAttribute('data-status')]),
      [
        ['ctx_a2a', 'react_agent', 'interrupted'],
        ['ctx_research', 'research', 'idle'],
      ],
    );
    assert.match(items[0].textContent, /Please refund order A-1001\.ReAct agent · waiting for a decision · 2026-12-01 06:41 UTC/);
    assert.equal(items[0].firstChild.getAttribute('aria-current'), 'true');
    assert.equal(items[1].firstChild.getAttribute('aria-current'), null);
    assert.equal(items[1].findAll((element) => element.tagName === 'img').length, 0);
    assert.match(serialize(items[1]), /&lt;img src=x onerror=alert\(1\)&gt;/);

    const first = items[0];
    renderThreads(doc, list, recentThreads([{ ...A2A_THREAD, status: 'idle' }]), { disabled: true });
    assert.equal(list.children.length, 1);
    assert.equal(list.children[0], first, 'the same row, updated in place');
    assert.equal(first.getAttribute('data-status'), 'idle');
    assert.match(first.textContent, / · ended · /);
    assert.equal(first.firstChild.disabled, true);
    assert.equal(first.firstChild.getAttribute('aria-current'), null);
  });

  test('statuses as words', () => {
    assert.equal(statusWords('busy'), 'running');
    assert.equal(statusWords('error'), 'failed');
    assert.equal(statusWords('new'), 'new');
  });
});
