// Drives the service's Agent Protocol with the official LangGraph JS SDK, @langchain/langgraph-sdk's Client, the
// way an application would: find the assistant, make a thread, stream a run of the ReAct example until it stops
// at its interrupt, read the thread's state, then resume the run with a command. Prints one JSON line per step.
//
//   node drive.mjs <base-url>
import { Client } from '@langchain/langgraph-sdk';

const [apiUrl] = process.argv.slice(2);
const client = new Client({ apiUrl });
const print = (line) => console.log(JSON.stringify(line));

async function stream(threadId, payload) {
  const parts = [];
  for await (const part of client.runs.stream(threadId, 'react_agent', {
    streamMode: ['values', 'messages-tuple'],
    ...payload,
  })) {
    parts.push(part);
  }
  const texts = new Map();
  for (const { data } of parts.filter((part) => part.event === 'messages')) {
    const [chunk, metadata] = data;
    if (metadata.langgraph_node === 'agent') texts.set(chunk.id, (texts.get(chunk.id) ?? '') + chunk.content);
  }
  const values = parts.filter((part) => part.event === 'values').map((part) => part.data);
  return {
    events: parts.map((part) => part.event),
    metadata: parts[0].data,
    end: parts.at(-1).data,
    said: [...texts.values()],
    interrupts: values.flatMap((value) => value.__interrupt__ ?? []),
    messages: values.at(-1)?.messages?.map(({ type, content }) => ({ type, content })) ?? [],
  };
}

const assistants = await client.assistants.search({ limit: 10 });
print({
  step: 'assistants',
  assistants: assistants.map(({ assistant_id, graph_id }) => ({ assistant_id, graph_id })),
});

const thread = await client.threads.create({ metadata: { client: 'langgraph-js' } });
print({ step: 'thread', thread_id: thread.thread_id, status: thread.status });

const input = { messages: [{ role: 'user', content: 'Please refund order A-1001.' }] };
print({ step: 'paused', ...(await stream(thread.thread_id, { input })) });

const state = await client.threads.getState(thread.thread_id);
const waiting = await client.threads.get(thread.thread_id);
print({ step: 'state', next: state.next, interrupts: state.interrupts, status: waiting.status });

const command = { resume: { decision: 'approve' } };
print({ step: 'resumed', ...(await stream(thread.thread_id, { command })) });

const runs = await client.runs.list(thread.thread_id);
print({ step: 'runs', runs: runs.map(({ run_id, status }) => ({ run_id, status })) });
