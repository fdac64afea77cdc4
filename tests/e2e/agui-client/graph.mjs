// Drives POST /ag-ui/{assistant_id} (any registered graph) with the official AG-UI client, @ag-ui/client's
// HttpAgent: one agent per thread, the user's message appended (or forwardedProps for a graph that takes no
// messages), runAgent(), and for an interrupt a second runAgent() whose resume entries answer it, then (with
// a follow-up) a second turn on the same thread. Prints one JSON report of what the client saw.
//
//   node graph.mjs <base-url> <assistant> <thread-id> <spec-json>
//   spec: {"message"?: str, "forwardedProps"?: {...}, "decision"?: "approve"|"reject", "followUp"?: str,
//          "token"?: str, "approverToken"?: str}
import { HttpAgent, buildResumeArray } from '@ag-ui/client';

const [baseUrl, assistant, threadId, specJson] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const warnings = [];
console.warn = (...args) => warnings.push(args.join(' '));

function agentFor(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return new HttpAgent({ url: `${baseUrl}/ag-ui/${assistant}`, threadId, headers });
}

async function run(agent, parameters) {
  const events = [];
  const outcome = {};
  const subscriber = {
    onEvent: ({ event }) => {
      events.push(event);
    },
    onRunFinishedEvent: (params) => {
      outcome.kind = params.outcome;
      outcome.interrupts = params.interrupts ?? null;
      outcome.result = params.result ?? null;
    },
    onRunErrorEvent: ({ event }) => {
      outcome.kind = 'error';
      outcome.error = event.message;
      outcome.code = event.code;
    },
  };
  let failure = null;
  try {
    await agent.runAgent(parameters, subscriber);
  } catch (error) {
    failure = String(error?.message ?? error);
  }
  const texts = {};
  for (const event of events) {
    if (event.type === 'TEXT_MESSAGE_CONTENT') texts[event.messageId] = (texts[event.messageId] ?? '') + event.delta;
  }
  return {
    failure,
    types: events.map((event) => event.type),
    steps: events.filter((event) => event.type === 'STEP_STARTED').map((event) => event.stepName),
    custom: events.filter((event) => event.type === 'CUSTOM').map((event) => ({ name: event.name, value: event.value })),
    texts,
    toolCalls: events.filter((event) => event.type === 'TOOL_CALL_START').map((event) => event.toolCallName),
    toolResults: events.filter((event) => event.type === 'TOOL_CALL_RESULT').map((event) => event.content),
    snapshots: events.filter((event) => event.type === 'STATE_SNAPSHOT').length,
    lastSnapshot: events.filter((event) => event.type === 'STATE_SNAPSHOT').at(-1)?.snapshot ?? null,
    harnessRunId: events[0]?.metadata?.harness_run_id ?? null,
    outcome,
  };
}

const agent = agentFor(spec.token);
const forwardedProps = spec.forwardedProps ?? {};
const report = { threadId, runs: [] };
if (spec.message) agent.addMessage({ id: 'user-1', role: 'user', content: spec.message });
report.runs.push(await run(agent, { runId: 'run-1', forwardedProps }));
if (spec.decision && agent.pendingInterrupts.length) {
  const decider = spec.approverToken ? agentFor(spec.approverToken) : agent;
  const [interrupt] = agent.pendingInterrupts;
  report.interrupt = interrupt;
  const resume = buildResumeArray(agent.pendingInterrupts, {
    [interrupt.id]: { status: 'resolved', payload: { decision: spec.decision } },
  });
  if (decider !== agent) decider.setMessages(agent.messages);
  report.runs.push(await run(decider, { runId: 'run-2', resume }));
}
if (spec.followUp) {
  agent.addMessage({ id: 'user-2', role: 'user', content: spec.followUp });
  report.runs.push(await run(agent, { runId: 'run-3', forwardedProps }));
}
report.messages = agent.messages.map(({ id, role, content, toolCalls, toolCallId }) => ({
  id,
  role,
  content,
  toolCalls: toolCalls?.map((call) => call.function.name) ?? null,
  toolCallId: toolCallId ?? null,
}));
report.warnings = warnings;
process.stdout.write(JSON.stringify(report));
