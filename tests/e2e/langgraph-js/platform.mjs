// What a graph's platform offers, driven with the official LangGraph JS SDK (@langchain/langgraph-sdk's Client) the
// way a TypeScript application does: the long-term store (put, get, search by filter, namespaces, delete), crons on
// a thread (create, search, count, update, delete) and a second message on a busy thread queued
// (multitaskStrategy 'enqueue') then cancelled while pending. Prints one JSON line per step.
//
//   node platform.mjs <base-url>
import { Client } from '@langchain/langgraph-sdk';

const [apiUrl] = process.argv.slice(2);
const client = new Client({ apiUrl });
const print = (line) => console.log(JSON.stringify(line));

await client.store.putItem(['memories', 'js'], 'drink', { drink: 'tea', n: 1 });
await client.store.putItem(['memories', 'js'], 'pet', { pet: 'cat', n: 2 });
const item = await client.store.getItem(['memories', 'js'], 'drink');
const found = await client.store.searchItems(['memories'], { filter: { drink: 'tea' } });
const namespaces = await client.store.listNamespaces({ prefix: ['memories'] });
await client.store.deleteItem(['memories', 'js'], 'drink');
const gone = await client.store.getItem(['memories', 'js'], 'drink').catch((error) => ({ status: error.status }));
print({
  step: 'store',
  item: { namespace: item.namespace, key: item.key, value: item.value, createdAt: typeof item.createdAt },
  found: found.items.map(({ key }) => key),
  namespaces: namespaces.namespaces,
  gone,
});

const thread = await client.threads.create();
const yearly = await client.crons.createForThread(thread.thread_id, 'react_agent', {
  schedule: '0 9 1 1 *',
  timezone: 'Europe/Paris',
  input: { messages: [{ role: 'user', content: 'What is the status of order A-1002?' }] },
  metadata: { owner: 'js' },
});
const searched = await client.crons.search({ threadId: thread.thread_id });
const counted = await client.crons.count({ threadId: thread.thread_id });
const updated = await client.crons.update(yearly.cron_id, { enabled: false });
await client.crons.delete(yearly.cron_id);
const after = await client.crons.count({ threadId: thread.thread_id });
print({
  step: 'crons',
  created: { thread_id: yearly.thread_id, schedule: yearly.schedule, timezone: yearly.timezone, enabled: yearly.enabled },
  nextRun: yearly.next_run_date,
  searched: searched.map(({ cron_id }) => cron_id === yearly.cron_id),
  counted,
  updated: { enabled: updated.enabled, next_run_date: updated.next_run_date },
  after,
});

const refund = { messages: [{ role: 'user', content: 'Please refund order A-1001.' }] };
const first = await client.runs.wait(thread.thread_id, 'react_agent', { input: refund });
const busy = await client.threads.get(thread.thread_id);
const queued = await client.runs.create(thread.thread_id, 'react_agent', {
  input: { messages: [{ role: 'user', content: 'What is the status of order A-1002?' }] },
  multitaskStrategy: 'enqueue',
});
const listed = await client.runs.list(thread.thread_id);
await client.runs.cancel(thread.thread_id, queued.run_id);
const cancelled = await client.runs.get(thread.thread_id, queued.run_id);
print({
  step: 'enqueue',
  paused: (first.__interrupt__ ?? []).length,
  busy: busy.status,
  queued: queued.status,
  listed: listed.map(({ run_id, status }) => ({ queued: run_id === queued.run_id, status })),
  cancelled: cancelled.status,
});
