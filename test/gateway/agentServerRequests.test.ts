/**
 * A question a downstream server asks during an agent's call (an elicitation, or a sampling
 * request), handed by the call
 * path to the agent, crosses the eras: a modern agent (v2 Client, 2026-07-28) gets it as
 * `input_required` with the gateway's sealed requestState and retries the same call; a legacy
 * agent (v1 Client) gets a real `elicitation/create` request on its session. The gateway is real
 * (its HTTP server, agents, catalog, SDK handlers); the app's call path is a test double that
 * asks through `ask` as the registry would (the app does not hand downstream questions to agents
 * yet: the wiring is the call path's). Tampered state, and state minted for another agent, are
 * refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { toErrorShape } from '../../electron/core/errors.js';
import type { GatewayCalls } from '../../electron/gateway/agentServer.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import type { AgentQuestion } from '../../electron/gateway/modernRounds.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type { HarnessToolInfo } from '../../electron/harness/application.js';
import { META_CALL_ID } from '../../shared/agents.js';
import type { CallOutcome } from '../../shared/contract.js';
import { scratchDir } from '../helpers/fixtures.js';

const ALL = { allServers: true, serverIds: [], localTools: false };
const FORM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] };

function tool(name: string): HarnessToolInfo {
  return {
    name,
    source: 'mcp',
    serverId: 'dn',
    description: name,
    inputSchema: { type: 'object' },
    outputSchema: undefined,
    annotations: undefined,
    shadowedBy: undefined,
    schemaFingerprint: name,
  };
}

/** The call path's double: `confirm` asks once, `twice` asks two questions in a row; each records the key it ran under. */
class ServerRequestCalls implements GatewayCalls {
  readonly runs: Array<{ callId: string; sessionId: string; asked: boolean }> = [];
  async call(
    request: { name: string; callId: string },
    caller: { sessionId: string },
    options: Parameters<GatewayCalls['call']>[2],
  ): Promise<CallOutcome> {
    this.runs.push({ callId: request.callId, sessionId: caller.sessionId, asked: options.elicit !== undefined });
    if (request.name === 'summarize') {
      if (!options.sample) return outcome(request.callId, caller.sessionId, 'no model to ask');
      const reply = await options.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: a b c' } }], maxTokens: 20 },
        options.signal,
      );
      return outcome(
        request.callId,
        caller.sessionId,
        `${reply.model}: ${(reply.content as { text?: string }).text ?? '?'}`,
      );
    }
    const answers: string[] = [];
    const questions = request.name === 'twice' ? ['First?', 'Second?'] : ['Confirm?'];
    for (const message of questions) {
      if (!options.elicit) {
        answers.push('no one to ask');
        break;
      }
      const question: AgentQuestion = { mode: 'form', message, requestedSchema: FORM };
      const answer = await options.elicit(question, options.signal);
      answers.push(`${answer.action}${answer.content ? `:${JSON.stringify(answer.content)}` : ''}`);
    }
    return outcome(request.callId, caller.sessionId, answers.join(' | '));
  }
}

function outcome(callId: string, sessionId: string, text: string): CallOutcome {
  return {
    callId,
    traceId: `trace-${callId}`,
    sessionId,
    toolName: 'x',
    serverId: 'dn',
    replayed: false,
    attempts: 1,
    result: { content: [{ type: 'text', text }], isError: false },
    warnings: [],
  };
}

interface RawReply {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

async function post(url: URL, token: string, body: unknown, method = 'tools/call'): Promise<RawReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2026-07-28',
      'Mcp-Method': method,
      'Mcp-Name': (body as { params?: { name?: string } }).params?.name ?? 'dn__confirm',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as RawReply['body'] };
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

describe('a downstream question during an agent’s call, in each era', () => {
  const scratch = scratchDir('mh-gateway-asks-');
  const calls = new ServerRequestCalls();
  let gateway: Gateway;
  let url: URL;
  let token: string;
  let otherToken: string;
  let store: AgentStore;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    store = agents;
    token = agents.create('Asked', ALL).token;
    otherToken = agents.create('Other', ALL).token;
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(() => [tool('confirm'), tool('twice'), tool('summarize')]),
      calls,
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
    });
    const status = await gateway.start(0);
    url = new URL(status.url);
  });

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await gateway?.stop();
    scratch.cleanup();
  });

  async function modernAgent(
    answer: (message: string) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, string | number | boolean>;
    },
  ): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'modern', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', (request) => answer(request.params.message));
    await client.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    return client;
  }

  it('modern: the question comes back as input_required, the answer continues the same call (one run, one key)', async () => {
    const asked: string[] = [];
    const client = await modernAgent((message) => {
      asked.push(message);
      return { action: 'accept', content: { ok: true } };
    });
    const before = calls.runs.length;
    const result = await client.callTool({
      name: 'dn__confirm',
      arguments: {},
      _meta: { [META_CALL_ID]: 'modern-confirm' },
    });
    expect(asked).toEqual(['Confirm?']);
    expect(result.content).toEqual([{ type: 'text', text: 'accept:{"ok":true}' }]);
    expect(calls.runs.slice(before)).toEqual([
      { callId: 'modern-confirm', sessionId: expect.stringContaining(':default'), asked: true },
    ]);
  });

  it('modern: two questions are two rounds of one call; a call without a callId keeps the key of its first round', async () => {
    const client = await modernAgent((message) =>
      message === 'First?' ? { action: 'accept', content: { ok: true } } : { action: 'decline' },
    );
    const before = calls.runs.length;
    const result = await client.callTool({ name: 'dn__twice', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'accept:{"ok":true} | decline' }]);
    const runs = calls.runs.slice(before);
    expect(runs).toHaveLength(1);
    expect(result._meta?.[META_CALL_ID]).toBe(runs[0]?.callId);
  });

  it('legacy: the question is a real elicitation request on the agent’s session', async () => {
    const client = new LegacyClient({ name: 'legacy', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { ok: false } };
    });
    await client.connect(new LegacyHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'dn__confirm', arguments: {} });
    expect(asked).toEqual(['Confirm?']);
    expect(result.content).toEqual([{ type: 'text', text: 'accept:{"ok":false}' }]);
  });

  it('sampling crosses the eras too: input_required to a modern agent, a real request to a legacy one; none to an agent without sampling', async () => {
    const modern = new ModernClient(
      { name: 'modern-sampler', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { sampling: {} } },
    );
    modern.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      content: { type: 'text', text: 'abc' },
      model: 'modern-model',
    }));
    await modern.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => modern.close());
    expect((await modern.callTool({ name: 'dn__summarize', arguments: {} })).content).toEqual([
      { type: 'text', text: 'modern-model: abc' },
    ]);

    const legacy = new LegacyClient({ name: 'legacy-sampler', version: '1' }, { capabilities: { sampling: {} } });
    legacy.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'a-b-c' },
      model: 'legacy-model',
    }));
    await legacy.connect(new LegacyHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => legacy.close());
    expect((await legacy.callTool({ name: 'dn__summarize', arguments: {} })).content).toEqual([
      { type: 'text', text: 'legacy-model: a-b-c' },
    ]);

    const mute = await modernAgent(() => ({ action: 'cancel' }));
    expect((await mute.callTool({ name: 'dn__summarize', arguments: {} })).content).toEqual([
      { type: 'text', text: 'no model to ask' },
    ]);
  });

  it('an agent that declared no elicitation is not asked', async () => {
    const client = new ModernClient({ name: 'mute', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'dn__confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'no one to ask' }]);
  });

  it('tampered state is refused before anything runs; state minted for another agent is refused', async () => {
    const first = await post(url, token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'dn__confirm', arguments: {}, _meta: ENVELOPE },
    });
    expect(first.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { question: expect.any(Object) },
      requestState: expect.any(String),
    });
    const state = first.body.result?.requestState as string;
    const runs = calls.runs.length;

    const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    const refused = await post(url, token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'dn__confirm',
        arguments: {},
        requestState: tampered,
        inputResponses: { question: { action: 'accept', content: { ok: true } } },
        _meta: ENVELOPE,
      },
    });
    expect(refused.body.error).toMatchObject({ code: -32602 });

    const stolen = await post(url, otherToken, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'dn__confirm',
        arguments: {},
        requestState: state,
        inputResponses: { question: { action: 'accept', content: { ok: true } } },
        _meta: ENVELOPE,
      },
    });
    expect(stolen.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/another agent/) });
    expect(calls.runs.length).toBe(runs);

    // The rightful agent still continues it.
    const done = await post(url, token, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        name: 'dn__confirm',
        arguments: {},
        requestState: state,
        inputResponses: { question: { action: 'decline' } },
        _meta: ENVELOPE,
      },
    });
    expect(done.body.result).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
  });

  it('a flight whose agent is closed ends; continuing it runs the same key again as a first round (a checkpoint would answer it)', async () => {
    const first = await post(url, token, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'dn__confirm', arguments: {}, _meta: { ...ENVELOPE, [META_CALL_ID]: 'parked-1' } },
    });
    const state = first.body.result?.requestState as string;
    expect(state).toEqual(expect.any(String));
    const agentId = store.list().find((a) => a.name === 'Asked')?.id as string;
    await gateway.closeAgent(agentId);
    const again = await post(url, token, {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: {
        name: 'dn__confirm',
        arguments: {},
        requestState: state,
        inputResponses: { question: { action: 'accept', content: { ok: true } } },
        _meta: ENVELOPE,
      },
    });
    // The double has no checkpoint: it runs again under the same key, and asks again.
    expect(again.body.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(calls.runs.filter((r) => r.callId === 'parked-1')).toHaveLength(2);
    const state2 = again.body.result?.requestState as string;
    const done = await post(url, token, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'dn__confirm',
        arguments: {},
        requestState: state2,
        inputResponses: { question: { action: 'accept', content: { ok: true } } },
        _meta: ENVELOPE,
      },
    });
    expect(done.body.result).toMatchObject({
      content: [{ type: 'text', text: 'accept:{"ok":true}' }],
      _meta: { [META_CALL_ID]: 'parked-1' },
    });
  });
});

describe('concurrent continuations of one requestState (issue 28.7)', () => {
  const scratch = scratchDir('mh-gateway-asks-again-');
  const calls = new ServerRequestCalls();
  let gateway: Gateway;
  let url: URL;
  let token: string;

  beforeAll(async () => {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    token = agents.create('Retrying', ALL).token;
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(() => [tool('confirm'), tool('twice')]),
      calls,
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
    });
    url = new URL((await gateway.start(0)).url);
  });
  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const start = async (name: string, callId: string): Promise<string> => {
    const first = await post(url, token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: `dn__${name}`, arguments: {}, _meta: { ...ENVELOPE, [META_CALL_ID]: callId } },
    });
    expect(first.body.result).toMatchObject({ resultType: 'input_required' });
    return first.body.result?.requestState as string;
  };
  const answer = (name: string, state: string, id: number, ok: boolean): Promise<RawReply> =>
    post(url, token, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: `dn__${name}`,
        arguments: {},
        requestState: state,
        inputResponses: { question: { action: 'accept', content: { ok } } },
        _meta: ENVELOPE,
      },
    });

  // Before: ModernRounds kept one wake slot, so 9 of the 10 copies were never answered (this test timed out).
  it('the same answer sent 10 times at once: every copy is answered with the one call’s outcome', async () => {
    const state = await start('confirm', 'retried-1');
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => answer('confirm', state, 10 + i, true)));
    for (const reply of replies)
      expect(reply.body.result).toMatchObject({
        content: [{ type: 'text', text: 'accept:{"ok":true}' }],
        _meta: { [META_CALL_ID]: 'retried-1' },
      });
    expect(calls.runs.filter((r) => r.callId === 'retried-1')).toHaveLength(1);
  }, 20_000);

  it('copies of a first answer get the second question; a late copy answers nothing; the second answer ends the call', async () => {
    const state = await start('twice', 'retried-2');
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => answer('twice', state, 30 + i, true)));
    for (const reply of replies)
      expect(reply.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { question: { params: { message: 'Second?' } } },
      });
    // A copy of the first answer arriving now (saying otherwise) does not answer the second question.
    const late = await answer('twice', state, 40, false);
    expect(late.body.result).toMatchObject({ inputRequests: { question: { params: { message: 'Second?' } } } });
    const done = await answer('twice', replies[0]?.body.result?.requestState as string, 41, false);
    expect(done.body.result).toMatchObject({
      content: [{ type: 'text', text: 'accept:{"ok":true} | accept:{"ok":false}' }],
    });
    expect(calls.runs.filter((r) => r.callId === 'retried-2')).toHaveLength(1);
  }, 20_000);
});
