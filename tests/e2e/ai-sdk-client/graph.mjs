// Drives POST /ai-sdk/{assistant_id}/chat (any registered graph) with the AI SDK's own chat client (`ai`):
// DefaultChatTransport under an AbstractChat, the way useChat drives it: a message, an approval answered with
// addToolApprovalResponse, a follow-up, and a replay of the chat's run from the start (reconnectToStream).
// Prints one JSON report.
//
//   node graph.mjs <base-url> <assistant> <chat-id> <spec-json>
//   spec: {"message": str, "body"?: {...}, "decision"?: "approve"|"reject", "followUp"?: str, "token"?: str,
//          "approverToken"?: str, "replay"?: true}
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
} from 'ai';

const [baseUrl, assistant, chatId, specJson] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const warnings = [];
console.warn = (...args) => warnings.push(args.join(' '));

class State {
  constructor(messages = []) {
    this.requests = 0; // how many times the chat left 'ready': a request it sent on its own is seen by this
    this._status = 'ready';
    this.error = undefined;
    this.messages = messages;
  }
  get status() {
    return this._status;
  }
  set status(status) {
    if (this._status === 'ready' && status !== 'ready') this.requests++;
    this._status = status;
  }
  pushMessage = (message) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index, message) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = (thing) => structuredClone(thing);
}

class Chat extends AbstractChat {
  constructor({ messages, ...options }) {
    super({ ...options, state: new State(messages) });
  }
}

const api = `${baseUrl}/ai-sdk/${assistant}/chat`;

function transportFor(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  return new DefaultChatTransport({ api, headers, body: spec.body ?? {} });
}

function chatFor(token, messages) {
  const transport = transportFor(token);
  const seen = [];
  const process = transport.processResponseStream.bind(transport);
  transport.processResponseStream = (stream) =>
    process(stream).pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          seen.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
  const chat = new Chat({
    id: chatId,
    transport,
    messages,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: () => {},
  });
  return { chat, seen };
}

function summary(message) {
  if (message == null) return null;
  return {
    id: message.id,
    role: message.role,
    metadata: message.metadata ?? null,
    text: message.parts
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
    textParts: message.parts.filter((part) => part.type === 'text').length,
    steps: message.parts.filter((part) => part.type === 'step-start').length,
    data: message.parts.filter((part) => part.type.startsWith('data-')).map((part) => ({ type: part.type, data: part.data })),
    tools: message.parts
      .filter((part) => part.type.startsWith('tool-'))
      .map(({ type, toolCallId, state, input, output, approval }) => ({ type, toolCallId, state, input, output, approval })),
  };
}

async function settled(chat) {
  for (let i = 0; i < 600 && (chat.status === 'submitted' || chat.status === 'streaming'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// addToolApprovalResponse returns before the request it sends on its own (sendAutomaticallyWhen) has started:
// wait for that request to start, then for it to settle.
async function answered(chat, requestsBefore) {
  for (let i = 0; i < 600 && chat.state.requests === requestsBefore; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await settled(chat);
}

const report = { chatId, warnings };
const { chat, seen } = chatFor(spec.token);
await chat.sendMessage({ text: spec.message });
await settled(chat);
report.first = { status: chat.status, error: chat.error?.message ?? null, message: summary(chat.lastMessage) };

let current = chat;
if (spec.decision) {
  const part = chat.lastMessage.parts.find((candidate) => candidate.state === 'approval-requested');
  report.requested = part ? { type: part.type, toolCallId: part.toolCallId, input: part.input } : null;
  if (part) {
    if (spec.approverToken) current = chatFor(spec.approverToken, chat.messages).chat;
    const requestsBefore = current.state.requests;
    await current.addToolApprovalResponse({ id: part.approval.id, approved: spec.decision === 'approve' });
    await answered(current, requestsBefore);
    report.decided = { status: current.status, error: current.error?.message ?? null, message: summary(current.lastMessage) };
  }
}
if (spec.followUp) {
  await current.sendMessage({ text: spec.followUp });
  await settled(current);
  report.followed = { status: current.status, error: current.error?.message ?? null, message: summary(current.lastMessage) };
}
if (spec.replay) {
  // the chat's active run (a paused one) replayed from its start, as a reload's resumeStream reads it
  const stream = await transportFor(spec.token).reconnectToStream({ chatId });
  if (stream === null) {
    report.replayed = null;
  } else {
    let last;
    for await (const message of readUIMessageStream({ stream })) last = message;
    report.replayed = summary(last);
  }
}
report.status = current.status;
report.messages = current.messages.map(summary);
report.chunkTypes = seen.map((chunk) => chunk.type);
process.stdout.write(JSON.stringify(report));
process.exit(0);
