// Drives the service's A2A 1.0 endpoints with the official A2A JavaScript SDK (@a2a-js/sdk's ClientFactory, its
// JSON-RPC transport chosen from the card) the way a calling agent would, and prints one JSON report of what the
// client made of every answer.
//
//   node drive.mjs <base-url> examples          the examples: cards, a blocking and a streamed message of the
//                                               research graph, the ReAct agent's interrupt answered, errors
//   node drive.mjs <base-url> cancel <gate>     the gated graph: a streamed task left holding, then cancelled
import { DefaultAgentCardResolver, ClientFactory } from '@a2a-js/sdk/client';
import { Role, taskStateToJSON } from '@a2a-js/sdk';
import * as errors from '@a2a-js/sdk/errors';

const [baseUrl, scenario, gate] = process.argv.slice(2);
const TOPIC = { topic: 'How do clouds make rain?' };
const REFUND = 'Please refund order A-1001.';
let counter = 0;

const message = (parts, ids = {}) => ({
  message: { messageId: `js-${process.pid}-${++counter}`, role: Role.ROLE_USER, parts, ...ids },
});
const text = (value, ids) => message([{ content: { $case: 'text', value } }], ids);
const data = (value, ids) => message([{ content: { $case: 'data', value } }], ids);

/** A part as plain JSON: its kind, its value and its metadata. */
const part = ({ content, metadata }) => ({ kind: content?.$case, value: content?.value, metadata: metadata ?? {} });
const texts = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);
const datas = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'data').map((p) => p.content.value);

function task(found) {
  return {
    id: found.id,
    contextId: found.contextId,
    state: taskStateToJSON(found.status.state),
    seq: found.metadata?.seq,
    statusText: texts(found.status.message?.parts).join(''),
    artifacts: found.artifacts.map((a) => ({ artifactId: a.artifactId, name: a.name, parts: a.parts.map(part) })),
    historyRoles: found.history.map((m) => (m.role === Role.ROLE_USER ? 'user' : 'agent')),
  };
}

/** One stream event as the client received it, reduced to what a caller reads from it. */
function event({ payload }) {
  const { $case: kind, value } = payload;
  if (kind === 'task') return { kind, ...task(value) };
  if (kind === 'statusUpdate') {
    const { status, metadata } = value;
    const parts = status.message?.parts ?? [];
    return {
      kind,
      taskId: value.taskId,
      contextId: value.contextId,
      state: taskStateToJSON(status.state),
      seq: metadata?.seq,
      step: metadata?.step?.node ?? null,
      text: texts(parts).join(''),
      custom: parts.filter((p) => p.content?.$case === 'data' && p.metadata?.name === 'custom').map((p) => p.content.value),
      data: datas(parts),
      messageMetadata: status.message?.metadata ?? {},
    };
  }
  if (kind === 'artifactUpdate') {
    const { artifact, metadata } = value;
    return { kind, taskId: value.taskId, seq: metadata?.seq, artifactId: artifact.artifactId, parts: artifact.parts.map(part) };
  }
  return { kind, parts: value.parts.map(part) };
}

/** A stream's events, to its end, or through the first that `until` accepts (then the stream is left). */
async function collect(stream, until = () => false) {
  const events = [];
  for await (const received of stream) {
    events.push(event(received));
    if (until(events.at(-1))) break;
  }
  return events;
}

/** A2A's errors, as the SDK's transport-neutral classes name them. */
const KINDS = ['TaskNotFoundError', 'TaskNotCancelableError', 'UnsupportedOperationError', 'VersionNotSupportedError'];

/** The error a call fails with: which of A2A's errors the SDK made of it (null: none), its class and message. */
async function failure(call) {
  try {
    await call();
  } catch (error) {
    const kind = KINDS.find((name) => error instanceof errors[name]) ?? null;
    return { kind, className: error.constructor.name, message: String(error.message) };
  }
  return null;
}

// The SDK resolves the card's path (.well-known/agent-card.json) against the URL it is given, as a relative URL:
// an agent's URL is given with its trailing slash, or the last segment (the assistant) would be replaced.
async function examples() {
  const factory = new ClientFactory();
  const defaultCard = await new DefaultAgentCardResolver().resolve(baseUrl);
  const research = await factory.createFromUrl(`${baseUrl}/a2a/research/`);
  const react = await factory.createFromUrl(`${baseUrl}/a2a/react_agent/`);
  const card = await research.getAgentCard();
  const cards = {
    default: defaultCard.name,
    research: {
      name: card.name,
      interfaces: card.supportedInterfaces.map(({ url, protocolBinding, protocolVersion }) => ({ url, protocolBinding, protocolVersion })),
      streaming: card.capabilities.streaming,
      skills: card.skills.map(({ id, inputModes }) => ({ id, inputModes })),
      extensions: card.capabilities.extensions.map(({ uri, params }) => ({ uri, inputKeys: Object.keys(params.inputSchema.properties) })),
    },
    protocolVersion: research.protocolVersion,
  };

  const answered = await research.sendMessage(data(TOPIC));
  const blocking = { task: task(answered), got: task(await research.getTask({ id: answered.id })) };

  const streamed = await collect(research.sendMessageStream(data(TOPIC)));

  const paused = await collect(react.sendMessageStream(text(REFUND)));
  const { taskId, contextId } = paused.at(-1);
  const waiting = task(await react.getTask({ id: taskId }));
  const resumed = await collect(react.sendMessageStream(text('approve', { taskId, contextId })));
  const finished = task(await react.getTask({ id: taskId }));
  const interrupt = {
    paused,
    waiting,
    resumed,
    finished,
    endedTaskAnswered: await failure(() => react.sendMessage(text('approve', { taskId }))),
    unknownTask: await failure(() => react.getTask({ id: 'no-such-task' })),
  };
  return { cards, blocking, streamed, interrupt };
}

async function cancel() {
  const client = await new ClientFactory().createFromUrl(`${baseUrl}/a2a/gated/`);
  const holding = (e) => e.kind === 'statusUpdate' && e.custom.some((value) => value.holding === gate);
  const started = await collect(client.sendMessageStream(data({ gate })), holding);
  const { id } = started[0];
  const cancelled = task(await client.cancelTask({ id }));
  const got = task(await client.getTask({ id }));
  const again = await failure(() => client.cancelTask({ id }));
  return { started, cancelled, got, again };
}

const scenarios = { examples, cancel };
console.log(JSON.stringify(await scenarios[scenario]()));
