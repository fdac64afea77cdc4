import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { formatCost, formatMs, formatTokens } from '../format.js';
import { h, isSafeUrl, setAttributes, streamText, svg } from '../render.js';
import { applyEnvelope, newRun } from '../state.js';
import { approvalCard, citationList, documentView, renderActivity, renderOutcome, traceView } from '../views.js';
import { FakeElement, FakeText, envelopes, fakeDocument, parseChunks, serialize } from './support.js';

const HOSTILE = '</p><script>alert(1)</script><img src=x onerror="alert(2)">&amp; "quotes" \'single\'';
const SPA = new URL('../', import.meta.url);

describe('safe rendering', () => {
  test('strings become text nodes: markup in them shows as characters, never as elements', () => {
    const doc = fakeDocument();
    const paragraph = h(doc, 'p', { class: 'answer' }, [HOSTILE]);
    assert.equal(paragraph.children.length, 0);
    assert.equal(paragraph.childNodes.length, 1);
    assert.ok(paragraph.firstChild instanceof FakeText);
    assert.equal(paragraph.textContent, HOSTILE);
    assert.equal(
      serialize(paragraph),
      '<p class="answer">&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror="alert(2)"&gt;' +
        '&amp;amp; "quotes" \'single\'</p>',
    );
  });

  test('attribute values are set as values, whatever they hold', () => {
    const doc = fakeDocument();
    const element = h(doc, 'span', { title: HOSTILE, 'data-doc-id': '"><script>' });
    assert.equal(element.getAttribute('title'), HOSTILE);
    assert.match(serialize(element), /title="&lt;\/p&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  test('event handler attributes, style attributes and off-site or script URLs are refused', () => {
    const doc = fakeDocument();
    for (const attrs of [{ onclick: 'x()' }, { ONerror: 'x()' }, { style: 'color:red' }]) {
      assert.throws(() => h(doc, 'a', attrs), TypeError);
    }
    for (const href of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', '//evil.example/', '/\\evil.example', 'data:text/html,x']) {
      assert.equal(isSafeUrl(href), false, href);
      assert.throws(() => setAttributes(new FakeElement(doc, 'a'), { href }), TypeError);
    }
    for (const href of ['/kb/kb-password-reset', '/kb/a%2Fb', '#top']) assert.equal(isSafeUrl(href), true, href);
  });

  test('the streaming answer appends only what is new, and replaces when the text is not a continuation', () => {
    const doc = fakeDocument();
    const answer = h(doc, 'p');
    streamText(doc, answer, 'If you');
    streamText(doc, answer, 'If you forgot <b>');
    streamText(doc, answer, 'If you forgot <b>');
    assert.deepEqual(
      answer.childNodes.map((node) => node.data),
      ['If you', ' forgot <b>'],
    );
    streamText(doc, answer, 'Refund issued.');
    assert.equal(answer.textContent, 'Refund issued.');
    assert.equal(answer.children.length, 0);
  });

  test('answer text decoded from a JSON envelope keeps its characters, escapes and all', () => {
    const doc = fakeDocument();
    const frame =
      'id: r_x:2\nevent: token_delta\ndata: {"type":"token_delta","v":1,"run_id":"r_x","seq":2,"status":"running",' +
      '"at":"2026-01-01T00:00:00.000000Z","data":{"delta":"\\"\\u003cimg src=x onerror=alert(1)\\u003e","text":' +
      '"\\u003cimg src=x onerror=alert(1)\\u003e \\"quoted\\" \\\\n not a newline \\u2028","finish_reason":null,' +
      '"input_tokens":0,"output_tokens":0,"latency_ms":1.0,"model":"m","metadata":{}}}\n\n';
    const { events } = parseChunks([new TextEncoder().encode(frame)]);
    const run = applyEnvelope(newRun(), JSON.parse(events[0].data));
    const answer = h(doc, 'p');
    streamText(doc, answer, run.answer);
    assert.equal(answer.textContent, '<img src=x onerror=alert(1)> "quoted" \\n not a newline \u2028');
    assert.equal(answer.children.length, 0);
  });

  test('citations link to same-origin document paths, their text as text', () => {
    const doc = fakeDocument();
    const list = citationList(doc, [
      { doc_id: 'kb-password-reset', title: 'Reset your password', snippet: 'If you forgot…' },
      { doc_id: 'javascript:alert(1)', title: HOSTILE, snippet: '<i>x</i>' },
      { doc_id: '../../etc/passwd?x#y', title: '', snippet: '' },
    ]);
    const links = list.findAll((element) => element.tagName === 'a');
    assert.deepEqual(
      links.map((link) => link.getAttribute('href')),
      ['/kb/kb-password-reset', '/kb/javascript%3Aalert(1)', '/kb/..%2F..%2Fetc%2Fpasswd%3Fx%23y'],
    );
    assert.equal(links[1].textContent, HOSTILE);
    assert.equal(links[1].children.length, 0);
    assert.equal(links[2].textContent, '../../etc/passwd?x#y');
    assert.equal(links[0].getAttribute('data-doc-id'), 'kb-password-reset');
  });

  test('the approval card carries the stable hooks and shows the summary as text', () => {
    const doc = fakeDocument();
    const card = approvalCard(doc, { approval_id: 'apv_1', action: 'issue_refund', summary: HOSTILE }, 3);
    assert.equal(card.getAttribute('data-role'), 'approval');
    const actions = card.findAll((element) => element.hasAttribute('data-action'));
    assert.deepEqual(
      actions.map((button) => [button.tagName, button.getAttribute('data-action'), button.textContent]),
      [
        ['button', 'approve', 'Approve'],
        ['button', 'reject', 'Reject'],
      ],
    );
    assert.ok(card.textContent.includes(HOSTILE));
    const comment = card.find((element) => element.tagName === 'textarea');
    const label = card.find((element) => element.tagName === 'label');
    assert.equal(label.getAttribute('for'), comment.getAttribute('id'));
  });

  test('the trace panel and the document view are text', () => {
    const doc = fakeDocument();
    const response = envelopes('normal').at(-1).data.response;
    const trace = traceView(doc, { ...response, run_id: HOSTILE }, { humanWaitMs: 5249.12, interactionId: 'int_1' });
    const rows = trace.findAll((element) => element.tagName === 'tr' && element.hasAttribute('data-trace-node'));
    assert.deepEqual(
      rows.map((row) => row.getAttribute('data-trace-node')),
      response.trace.map((entry) => entry.node),
    );
    assert.ok(trace.textContent.includes(HOSTILE));
    assert.ok(trace.textContent.includes('5.2 s'));
    assert.ok(trace.textContent.includes('int_1'));
    const parts = documentView(doc, { doc_id: 'kb-x', title: HOSTILE, body: `one\n\n${HOSTILE}\n\nthree` });
    assert.deepEqual(
      parts.map((part) => part.textContent),
      [HOSTILE, 'kb-x', 'one', HOSTILE, 'three'],
    );
    assert.ok(parts.every((part) => part.children.length === 0));
  });

  test('the activity list updates rows in place, so unchanged facts are not announced again', () => {
    const doc = fakeDocument();
    const list = h(doc, 'ol');
    const events = envelopes('normal');
    let run = newRun();
    const seen = new Map();
    for (const envelope of events) {
      run = applyEnvelope(run, envelope);
      renderActivity(doc, list, run.activity);
      for (const item of list.children) {
        const key = item.getAttribute('data-key');
        if (seen.has(key)) assert.equal(seen.get(key), item, `row ${key} was replaced`);
        seen.set(key, item);
      }
    }
    assert.deepEqual(
      list.children.map((item) => item.textContent),
      run.activity.map((row) => `${row.label}: ${row.text}`),
    );
  });

  test('the outcome line: data-status is the run status, never success before the terminal event', () => {
    const doc = fakeDocument();
    const outcome = h(doc, 'p');
    renderOutcome(outcome, null, 'idle');
    assert.equal(outcome.getAttribute('data-status'), 'idle');
    const events = envelopes('normal');
    let run = newRun();
    for (const envelope of events.slice(0, -1)) run = applyEnvelope(run, envelope);
    renderOutcome(outcome, run, 'reconnecting');
    assert.equal(outcome.getAttribute('data-status'), 'running');
    assert.match(outcome.textContent, /interrupted/);
    renderOutcome(outcome, run, 'lost');
    assert.equal(outcome.getAttribute('data-status'), 'running');
    assert.match(outcome.textContent, /unknown/);
    run = applyEnvelope(run, events.at(-1));
    renderOutcome(outcome, run, 'closed');
    assert.equal(outcome.getAttribute('data-status'), 'completed');
    assert.equal(outcome.getAttribute('data-outcome'), 'completed');
  });

  test('SVG elements are built in the SVG namespace', () => {
    const doc = fakeDocument();
    assert.equal(svg(doc, 'rect', { width: 3 }).namespaceURI, 'http://www.w3.org/2000/svg');
  });
});

describe('formatting', () => {
  test('latencies, tokens and costs', () => {
    assert.equal(formatMs(0.215), '0.2 ms');
    assert.equal(formatMs(238.782), '239 ms');
    assert.equal(formatMs(5249.12), '5.2 s');
    assert.equal(formatMs(125_000), '2 min 5 s');
    assert.equal(formatMs(null), '–');
    assert.equal(formatTokens(12345), '12,345');
    assert.equal(formatCost(null), 'price unknown');
    assert.equal(formatCost(0), '$0.00');
    assert.equal(formatCost(0.000123), '$0.000123');
    assert.equal(formatCost(0.0000001), '< $0.000001');
    assert.equal(formatCost(1.5), '$1.50');
  });
});

describe('the page source', () => {
  const modules = readdirSync(SPA).filter((name) => name.endsWith('.js'));
  const source = modules.map((name) => readFileSync(new URL(name, SPA), 'utf8')).join('\n');
  const html = readFileSync(new URL('index.html', SPA), 'utf8');

  test('no module parses strings as HTML or code', () => {
    assert.ok(modules.includes('app.js') && modules.includes('sse.js'));
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'srcdoc']) {
      assert.ok(!source.includes(sink), `spa/*.js uses ${sink}`);
    }
  });

  test('the page has no inline script, style or handler, and loads nothing from elsewhere', () => {
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i);
    assert.doesNotMatch(html, /<style/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//i);
    assert.match(html, /<script type="module" src="\/spa\/app\.js"><\/script>/);
  });

  test('the stable hooks for outside end-to-end tests are there', () => {
    for (const hook of ['data-role="input"', 'data-role="send"', 'data-role="outcome"', 'data-role="connection"']) {
      assert.ok(html.includes(hook), hook);
    }
    assert.ok(html.includes('data-role="input"') && /<textarea[^>]*data-role="input"/.test(html));
    for (const hook of ["'data-role': 'answer'", "'data-role': 'approval'", "'data-action': 'approve'", "'data-action': 'reject'"]) {
      assert.ok(source.includes(hook), hook);
    }
    assert.ok(source.includes("'data-node': node.id") && source.includes("'data-state'"));
  });
});
