import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { captureWords, caseFile, mayCapture, saveCase } from '../capture.js';

const finished = { runId: 'r_0123456789abcdef', terminal: true, status: 'completed' };

describe('mayCapture', () => {
  test("a finished run of a registered graph may be saved; a support agent's turn, a recording or a live run not", () => {
    assert.equal(mayCapture(finished, { support: false }), true);
    assert.equal(mayCapture({ ...finished, status: 'failed' }, { support: false }), true);
    assert.equal(mayCapture(finished, { support: true }), false);
    assert.equal(mayCapture(finished, { support: false, recorded: true }), false);
    assert.equal(mayCapture({ ...finished, terminal: false, status: 'waiting' }, { support: false }), false);
    assert.equal(mayCapture({ ...finished, runId: '' }, { support: false }), false);
    assert.equal(mayCapture(null, { support: false }), false);
  });
});

describe('saving a case', () => {
  const body = { id: 'captured-r_0123456789abcdef', category: 'captured', input: { topic: 'x' }, expect: {} };

  test('the case is one JSON line named by its id', () => {
    assert.deepEqual(caseFile(body), { name: 'captured-r_0123456789abcdef.jsonl', text: `${JSON.stringify(body)}\n` });
  });

  test('a 200 hands the file over and says to review it; a problem says why, and nothing is handed over', async () => {
    const handed = [];
    const element = { attrs: {}, setAttribute(name, value) { this.attrs[name] = value; } };
    const controls = { element, button: { setAttribute() {} }, said: { textContent: '' } };
    const ok = { runCase: async () => ({ ok: true, status: 200, body }) };
    await saveCase(ok, controls, 'r_0123456789abcdef', (name, text) => handed.push([name, text]));
    assert.deepEqual(handed, [[caseFile(body).name, caseFile(body).text]]);
    assert.equal(element.attrs['data-state'], 'saved');
    assert.match(controls.said.textContent, /^Saved captured-r_0123456789abcdef\.jsonl: .*review it/);

    const problem = { type: 'about:blank', status: 409, code: 'run_not_capturable', detail: 'Run r_1 is a turn of /chat.' };
    const refused = { runCase: async () => ({ ok: false, status: 409, body: problem }) };
    await saveCase(refused, controls, 'r_1', (name, text) => handed.push([name, text]));
    assert.equal(handed.length, 1, 'nothing more handed over');
    assert.equal(element.attrs['data-state'], 'failed');
    assert.equal(controls.said.textContent, 'The case was not saved: Run r_1 is a turn of /chat.');
    assert.equal(captureWords({ ok: false, status: 0, body: null }), 'The case was not saved: the service did not say why.');
  });
});
