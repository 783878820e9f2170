/**
 * A 2026-07-28 server's `input_required` round reaches a 2026-07-28 agent whole (issue 28.15),
 * through the real app core and gateway, our conformance double behind it over stdio, the agent
 * the official v2 client in manual mode (it sees each `input_required` as the wire carries it):
 *
 * - all of a round's inputRequests, under the server's own keys, in one `input_required` (before:
 *   one request per round, under a key the gateway minted, `question`);
 * - extra keys in the agent's inputResponses are ignored, and responses sent with the first
 *   request answer the questions under the same keys (before: not matched, the call hung);
 * - a prompts/get is relayed the same way (before: the person was asked, the agent waited);
 * - roots/list goes to an agent that declared roots (before: answered with the Settings folders);
 * - sampling the agent did not declare: -32021 MissingRequiredClientCapability naming sampling
 *   (before: the person was asked, and the agent waited);
 * - what the agent did not declare but the person can answer (a form) still goes to the person,
 *   after the agent's share of the round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { ClientCapabilities, InputRequest } from '@modelcontextprotocol/client';
import { Client as ModernClient, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ApprovalView } from '../../shared/contract.js';
import { bundledOnce } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { saveServerListed, startGatewayApp } from './support.js';

const BUILT = join(PROJECT_ROOT, '.cache', 'fixtures', 'conformance-server.mjs');
const build = bundledOnce(join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'conformance-server.ts'), BUILT);

let app: GatewayApp;
let scratch: ReturnType<typeof scratchDir>;
let token: string;
const agents: ModernClient[] = [];

interface Round {
  resultType?: string;
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  content?: Array<{ type: string; text?: string }>;
}

beforeAll(async () => {
  await build();
  scratch = scratchDir('mh-round-relay-');
  app = await startGatewayApp(scratch.dir);
  // The test plays the person for approvals: each is allowed once.
  app.core.onEvent((event, payload) => {
    if (event === 'approval.requested')
      void app
        .call('approvals.answer', { requestId: (payload as ApprovalView).requestId, answer: 'allow-once' })
        .catch(() => undefined);
  });
  await saveServerListed(app, {
    id: 'c',
    name: 'Double',
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT],
    cwd: PROJECT_ROOT,
    protocolEra: 'modern',
  });
  token = (await app.createAgent('Relay')).token;
}, 60_000);

afterAll(async () => {
  for (const agent of agents) await agent.close().catch(() => undefined);
  await app?.close();
  scratch?.cleanup();
});

/** A 2026-07-28 agent that handles each input_required itself (the SDK's auto-fulfilment off). */
async function modernAgent(capabilities: ClientCapabilities): Promise<ModernClient> {
  const agent = new ModernClient(
    { name: 'manual-agent', version: '2.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities, inputRequired: { autoFulfill: false } },
  );
  await agent.connect(
    new StreamableHTTPClientTransport(app.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  agents.push(agent);
  return agent;
}

function call(agent: ModernClient, name: string, extra: Record<string, unknown> = {}): Promise<Round> {
  return agent.callTool(
    { name: `c__${name}`, arguments: {}, ...extra },
    { allowInputRequired: true },
  ) as Promise<Round>;
}

const methodsOf = (round: Round): Record<string, string> =>
  Object.fromEntries(Object.entries(round.inputRequests ?? {}).map(([key, request]) => [key, request.method]));

describe('a 2026-07-28 server asks a 2026-07-28 agent during its call', () => {
  it('gets all of the round’s inputRequests under the server’s own keys; extra response keys are ignored', async () => {
    const agent = await modernAgent({ elicitation: {}, sampling: {}, roots: {} });
    const first = await call(agent, 'test_input_required_result_multiple_inputs');
    expect(first.resultType).toBe('input_required');
    expect(methodsOf(first)).toEqual({
      user_name: 'elicitation/create',
      greeting: 'sampling/createMessage',
      client_roots: 'roots/list',
    });
    const done = await call(agent, 'test_input_required_result_multiple_inputs', {
      requestState: first.requestState,
      inputResponses: {
        user_name: { action: 'accept', content: { name: 'Ada' } },
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hello!' }, model: 'agent-model' },
        client_roots: { roots: [{ uri: 'file:///agent/work', name: 'work' }] },
        not_asked: { action: 'accept', content: { name: 'ignored' } },
      },
    });
    expect(done.content?.[0]?.text).toBe('All three answers received');
  });

  it('responses sent with the first request answer the question under the same key', async () => {
    const agent = await modernAgent({ elicitation: {} });
    const done = await call(agent, 'test_input_required_result_elicitation', {
      inputResponses: {
        user_name: { action: 'accept', content: { name: 'Alice' } },
        unknown_extra_key: { action: 'accept', content: { foo: 'bar' } },
      },
    });
    expect(done.resultType ?? 'complete').toBe('complete');
    expect(done.content?.[0]?.text).toBe('Hello, Alice!');
  });

  it('roots/list goes to an agent that declared roots; its roots reach the server', async () => {
    const agent = await modernAgent({ roots: {} });
    const first = await call(agent, 'test_input_required_result_list_roots');
    expect(methodsOf(first)).toEqual({ client_roots: 'roots/list' });
    const done = await call(agent, 'test_input_required_result_list_roots', {
      requestState: first.requestState,
      inputResponses: { client_roots: { roots: [{ uri: 'file:///agent/project', name: 'project' }] } },
    });
    expect(done.content?.[0]?.text).toBe('Roots: file:///agent/project');
  });

  it('a prompts/get is relayed too: the server’s question is the agent’s input_required, its answer completes the get', async () => {
    const agent = await modernAgent({ elicitation: {} });
    const get = (extra: Record<string, unknown> = {}) =>
      agent.getPrompt(
        { name: 'c__test_input_required_result_prompt', ...extra },
        {
          allowInputRequired: true,
        },
      ) as Promise<Round & { messages?: Array<{ content: { text?: string } }> }>;
    const first = await get();
    expect(first.resultType).toBe('input_required');
    expect(methodsOf(first)).toEqual({ user_context: 'elicitation/create' });
    const done = await get({
      requestState: first.requestState,
      inputResponses: { user_context: { action: 'accept', content: { context: 'test context' } } },
    });
    expect(done.messages?.length).toBeGreaterThan(0);
    expect(JSON.stringify(done.messages)).toContain('test context');
  });

  it('sampling the agent did not declare: -32021 naming sampling, and the person is not asked', async () => {
    const agent = await modernAgent({});
    const personAsked = app
      .nextEvent<{ serverId: string }>('serverRequest.opened', (p) => p.serverId === 'c')
      .then(() => 'the person was asked');
    const outcome = await Promise.race([
      call(agent, 'test_missing_capability').then(
        () => 'completed',
        (error: unknown) => error,
      ),
      personAsked,
    ]);
    expect(outcome).toBeInstanceOf(ProtocolError);
    const error = outcome as ProtocolError;
    expect(error.code).toBe(-32021);
    expect((error.data as { requiredCapabilities?: unknown }).requiredCapabilities).toEqual({ sampling: {} });
  });

  it('a form the agent did not declare goes to the person after the agent’s share of the round', async () => {
    const agent = await modernAgent({ sampling: {} });
    const first = await call(agent, 'test_input_required_result_capabilities');
    // The server asked a form, sampling and roots (the app declares them): the agent gets only its sampling.
    expect(methodsOf(first)).toEqual({ greeting: 'sampling/createMessage' });
    const personAsked = app.nextEvent<{ requestId: string; serverId: string; message?: string }>(
      'serverRequest.opened',
      (p) => p.serverId === 'c' && p.message === 'What is your name?',
    );
    const done = call(agent, 'test_input_required_result_capabilities', {
      requestState: first.requestState,
      inputResponses: {
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'agent-model' },
      },
    });
    const ask = await personAsked;
    await app.call('serverRequests.answer', {
      requestId: ask.requestId,
      answer: { action: 'accept', content: { name: 'Grace' } },
    });
    expect((await done).content?.[0]?.text).toBe('Answered what the client could');
  });
});
