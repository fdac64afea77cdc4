// Drives the service through a TypeScript client generated from docs/openapi.json: openapi-typescript's
// types for every path, operation and schema, called with openapi-fetch. Type-checked (tsc --strict) with
// the generated types before it runs, so a wrong field name or status is a compile error, not a test failure.
//
//   node generated/js/drive.js <base-url> <bearer-token>
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';

type ChatResponse = components['schemas']['ChatResponse'];
type Problem = components['schemas']['Problem'];
type RunSnapshot = components['schemas']['RunSnapshot'];

const [baseUrl, token] = process.argv.slice(2);
if (baseUrl === undefined || token === undefined) {
  throw new Error('usage: node generated/js/drive.js <base-url> <bearer-token>');
}
// the JSON side of the content negotiation: answers typed as their JSON (or problem+json) schemas
const client = createClient<paths, 'application/json' | 'application/problem+json'>({
  baseUrl,
  headers: { Authorization: `Bearer ${token}` },
});

function answered(value: ChatResponse | undefined, error: Problem | undefined): ChatResponse {
  if (value === undefined) throw new Error(`expected a ChatResponse, got ${JSON.stringify(error)}`);
  return value;
}

const ask = async (message: string): Promise<ChatResponse> => {
  const { data, error } = await client.POST('/chat', { body: { message } });
  return answered(data, error);
};

const question = await ask('How do I reset my password?');
const paused = await ask('Please refund invoice INV-1001.');
const approval = paused.pending_approval;
if (approval === null) throw new Error('the refund was not paused for approval');

const decision = { run_id: paused.run_id, approval_id: approval.approval_id, decision: 'approve' as const };
const resumed = await client.POST('/chat/resume', { body: decision });
const again = await client.POST('/chat/resume', { body: decision });
const snapshot = await client.GET('/runs/{run_id}', { params: { path: { run_id: paused.run_id } } });
const run: RunSnapshot | undefined = snapshot.data;
const conflict: Problem | undefined = again.error;
const erased = await client.DELETE('/sessions/{session_id}', { params: { path: { session_id: paused.session_id } } });
const gone = await client.GET('/runs/{run_id}', { params: { path: { run_id: paused.run_id } } });

process.stdout.write(
  JSON.stringify({
    question: { status: question.status, citations: question.citations.map((c) => c.doc_id) },
    paused: { status: paused.status, action: approval.action, run_id: paused.run_id },
    resumed: {
      status: answered(resumed.data, resumed.error).status,
      kind: answered(resumed.data, resumed.error).answer.kind,
      run_id: answered(resumed.data, resumed.error).run_id,
    },
    again: { status_code: again.response.status, code: conflict?.code ?? null },
    snapshot: { status: run?.status ?? null },
    erased: { status_code: erased.response.status, read_after: gone.response.status },
  }),
);
