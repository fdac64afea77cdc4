// Drives the service's /mcp with the official MCP TypeScript SDK (@modelcontextprotocol/sdk's Client over its
// StreamableHTTPClientTransport) the way an MCP host would, and prints one JSON report of what the client made of
// every answer. The client lists the tools first, so that it checks each call's structuredContent against the
// tool's outputSchema itself (and fails the call when it does not match).
//
//   node drive.mjs <base-url> examples [token]   the examples: the handshake, ping, the tools, a call with its
//                                                progress, a call that stops at an interrupt, refused requests
//   node drive.mjs <base-url> elicit             a client that declares elicitation approves the refund it is asked
//   node drive.mjs <base-url> cancel <gate>      the gated graph's call, aborted once its run holds
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [baseUrl, scenario, extra] = process.argv.slice(2);
const TOPIC = { topic: 'How do clouds make rain?' };
const REFUND = { messages: [{ role: 'user', content: 'Please refund order A-1001.' }] };
const LONG = { timeout: 60_000 };

async function connect({ token, capabilities = {} } = {}) {
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit });
  const client = new Client({ name: 'agent-harness-check', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, transport };
}

/** The error a call fails with: its MCP code (when the server answered one) and its message. */
async function failure(call) {
  try {
    await call();
  } catch (error) {
    return { name: error.constructor.name, code: error.code ?? null, message: String(error.message) };
  }
  return null;
}

const result = ({ content, structuredContent, isError }) => ({ content, structuredContent, isError: isError ?? false });

async function examples() {
  const token = extra;
  const { client, transport } = await connect({ token });
  const handshake = {
    protocolVersion: transport.protocolVersion,
    sessionId: transport.sessionId,
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions(),
  };
  const ping = await client.ping();
  const { tools } = await client.listTools();
  const listed = tools.map(({ name, title, description, inputSchema, outputSchema }) => ({
    name,
    title,
    description,
    inputKeys: Object.keys(inputSchema.properties ?? {}),
    outputKeys: Object.keys(outputSchema?.properties ?? {}),
  }));

  const progress = [];
  const onprogress = ({ progress: done, total, message }) => progress.push({ done, total, message });
  const research = result(await client.callTool({ name: 'research', arguments: TOPIC }, undefined, { ...LONG, onprogress }));
  const paused = result(await client.callTool({ name: 'react_agent', arguments: REFUND }, undefined, LONG));
  const refused = {
    unknownTool: await failure(() => client.callTool({ name: 'no_such_tool', arguments: {} })),
    resources: await failure(() => client.listResources()),
    prompts: await failure(() => client.listPrompts()),
  };
  await client.close();
  const anonymous = token ? await failure(() => connect()) : null;
  return { handshake, ping, tools: listed, research, progress, paused, refused, anonymous };
}

async function elicit() {
  const asked = [];
  const { client } = await connect({ capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
    asked.push(params);
    return { action: 'accept', content: { decision: 'approve' } };
  });
  await client.listTools();
  const approved = result(await client.callTool({ name: 'react_agent', arguments: REFUND }, undefined, LONG));
  await client.close();
  return { asked, approved };
}

async function cancel() {
  const gate = extra;
  const { client, transport } = await connect();
  await client.listTools();
  const aborting = new AbortController();
  const progress = [];
  const onprogress = ({ message }) => {
    progress.push(message);
    if (message?.includes('holding')) aborting.abort('the test cancels the call');
  };
  const call = client.callTool({ name: 'gated', arguments: { gate } }, undefined, { ...LONG, onprogress, signal: aborting.signal });
  const cancelled = await failure(() => call);
  // The client sent notifications/cancelled without waiting for its answer: keep the session open until the run
  // has ended (closing it aborts whatever it still sends).
  const status = await settled('mcp-');
  await client.close();
  return { progress, cancelled, sessionId: transport.sessionId, status };
}

/** The status of the run on the thread whose id starts with `prefix`, once it is no longer running. */
async function settled(prefix) {
  const get = async (path, init) => (await fetch(`${baseUrl}${path}`, init)).json();
  for (let attempt = 0; attempt < 400; attempt++) {
    const threads = await get('/threads/search', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    const thread = threads.find(({ thread_id }) => thread_id.startsWith(prefix));
    const [run] = thread ? await get(`/threads/${thread.thread_id}/runs`) : [];
    const status = run ? (await get(`/runs/${run.run_id}`)).status : 'none';
    if (status !== 'running' && status !== 'none') return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'still running';
}

const scenarios = { examples, elicit, cancel };
console.log(JSON.stringify(await scenarios[scenario]()));
