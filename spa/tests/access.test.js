import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { explainEndedSignIn, explainProblem } from '../access.js';

describe('plain words for identity’s refusals', () => {
  test('401s ask for a sign-in, whatever the reason code', () => {
    assert.match(explainProblem(401, { code: 'token_missing' }).detail, /^Sign in to continue/);
    assert.match(explainProblem(401, { code: 'token_unknown' }).detail, /not accepted/);
    assert.match(explainProblem(401, { code: 'token_expired' }).detail, /expired/);
    assert.match(explainProblem(401, { code: 'token_audience_invalid' }).detail, /Sign in again/);
    assert.match(explainProblem(401, null).detail, /Sign in again/);
  });

  test('403 and 404 say who may and what is missing, keeping the rest of the problem', () => {
    const refused = explainProblem(403, { code: 'not_an_approver', detail: '{"raw": true}', status: 403 });
    assert.deepEqual(refused, { code: 'not_an_approver', detail: 'Only approvers decide: your decision was not recorded.', status: 403 });
    assert.equal(explainProblem(404, { code: 'run_not_found' }).detail, 'This run does not exist, or it is not yours.');
    assert.match(explainProblem(404, { code: 'session_not_found' }).detail, /next message starts a new one/);
    assert.equal(explainProblem(403, { code: 'something_new' }).detail, 'You are not allowed to do that.');
  });

  test('a sign-in that ended says so, and that a cut run goes on', () => {
    assert.equal(
      explainEndedSignIn({ code: 'token_unknown' }, { watching: true }),
      'Your sign-in has ended: your access token was withdrawn. The run goes on without this page: sign in again to keep watching it.',
    );
    assert.equal(
      explainEndedSignIn({ code: 'token_expired' }),
      'Your sign-in has ended: your access token expired. Sign in again to continue.',
    );
    assert.match(explainEndedSignIn(null), /^Your sign-in has ended: your access token is no longer accepted/);
  });

  test('anything else passes through unchanged', () => {
    const busy = { code: 'session_busy', detail: 'busy' };
    assert.equal(explainProblem(409, busy), busy);
    const noDocument = { code: 'document_not_found', detail: 'No document kb-x.' };
    assert.equal(explainProblem(404, noDocument), noDocument);
    assert.equal(explainProblem(500, undefined), undefined);
  });
});
