/**
 * A 2025 server's question during an agent's call reaches the agent that made the call, end to
 * end: the real app core and gateway, the real server-everything over stdio behind it
 * (`trigger-elicitation-request`, `trigger-sampling-request`: it asks with a request of its own,
 * related to the call), and agents as the v2 SDK client that declared both capabilities.
 *
 * - a 2025-era agent (the v2 client's default `legacy` mode) gets the question as a real
 *   server→client request; a 2026-07-28 agent (`auto`) gets it as `input_required` of its own
 *   call — in both the person is never asked, and the call's trace says the agent answered;
 * - two calls in flight to the one stdio server: nothing says which call asked, so the person
 *   answers (the agent is not asked).
 *
 * Before the fix every one of these questions opened the person's dialog (the agent waited until
 * its own request timed out).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { META_CALL_ID } from '../../shared/agents.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectModernAgent, saveServerListed, startGatewayApp } from './support.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface ServerRequestView {
  kind: string;
  requestId: string;
  serverId: string;
  message?: string;
}

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

const BOTH = { elicitation: { form: {} }, sampling: {} };

describe('server-everything asks during an agent call: the agent that made it answers', () => {
  const scratch = scratchDir('mh-everything-asks-');
  let app: GatewayApp;
  let token: string;
  const closers: Array<() => Promise<void>> = [];

  function personRequests(): ServerRequestView[] {
    return app.events.filter((e) => e.event === 'serverRequest.opened').map((e) => e.payload as ServerRequestView);
  }

  /** The rounds the call's one trace recorded: what was asked and who answered. */
  async function roundsOf(toolName: string, callId: string): Promise<unknown[]> {
    const { traces } = await app.call<{ traces: TraceSummary[] }>('traces.list', { toolName, serverId: 'ev' });
    const matching = traces.filter((t) => t.callId === callId);
    expect(matching).toHaveLength(1);
    const detail = await app.call<TraceDetail>('traces.get', { traceId: matching[0]!.traceId });
    return detail.events.filter((e) => e.type === 'input_requested').map((e) => e.data);
  }

  /** A 2025-era agent: the v2 client in its default (legacy) mode, with both capabilities. */
  async function legacyAgent(name: string): Promise<Client> {
    const agent = new Client({ name, version: '2.0.0' }, { capabilities: BOTH });
    await agent.connect(
      new StreamableHTTPClientTransport(app.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    closers.push(() => agent.close());
    return agent;
  }

  /** The call's outcome — or, if the person's dialog opens first (the defect), a failure saying so at once. */
  function unlessThePersonIsAsked<T>(call: Promise<T>): Promise<T> {
    const before = personRequests().length;
    const asked = app
      .nextEvent<ServerRequestView>('serverRequest.opened', (p) => personRequests().indexOf(p) >= before)
      .then((p): never => {
        throw new Error(`the person was asked (${p.kind}) instead of the agent`);
      });
    return Promise.race([call, asked]);
  }

  async function modernAgent(name: string): Promise<Client> {
    const agent = await connectModernAgent(app.url, token, name, BOTH);
    closers.push(() => agent.close());
    return agent;
  }

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'ev',
      name: 'ev',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      env: {},
    });
    for (const toolName of [
      'trigger-elicitation-request',
      'trigger-sampling-request',
      'trigger-long-running-operation',
    ])
      await app.call('permissions.setToolLevel', { serverId: 'ev', toolName, level: 'ALLOW' });
    token = (await app.createAgent('Everything askers')).token;
  }, 60_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await app?.close();
    scratch.cleanup();
  });

  for (const era of ['2025', '2026-07-28'] as const) {
    it(`a ${era} agent answers the elicitation itself; the person is never asked`, async () => {
      const agent = era === '2025' ? await legacyAgent(`elicit-${era}`) : await modernAgent(`elicit-${era}`);
      expect(agent.getProtocolEra()).toBe(era === '2025' ? 'legacy' : 'modern');
      const questions: string[] = [];
      agent.setRequestHandler('elicitation/create', (request) => {
        questions.push(request.params.message);
        return { action: 'accept', content: { name: `Agent ${era}`, check: true } };
      });
      const before = personRequests().length;
      const callId = `elicit-call-${era}`;
      const result = await unlessThePersonIsAsked(
        agent.callTool({ name: 'ev__trigger-elicitation-request', arguments: {}, _meta: { [META_CALL_ID]: callId } }),
      );
      expect(textOf(result)).toContain(`- Name: Agent ${era}`);
      expect(questions).toEqual(['Please provide inputs for the following fields:']);
      expect(personRequests().length).toBe(before);
      const rounds = await roundsOf('trigger-elicitation-request', callId);
      expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] }]);
    });

    it(`a ${era} agent answers the sampling request with its model; the person is never asked`, async () => {
      const agent = era === '2025' ? await legacyAgent(`sample-${era}`) : await modernAgent(`sample-${era}`);
      const prompts: string[] = [];
      agent.setRequestHandler('sampling/createMessage', (request) => {
        prompts.push(JSON.stringify(request.params.messages));
        return { role: 'assistant', content: { type: 'text', text: `teal from ${era}` }, model: 'agent-model' };
      });
      const before = personRequests().length;
      const result = await unlessThePersonIsAsked(
        agent.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'Name a colour', maxTokens: 12 } }),
      );
      expect(textOf(result)).toContain(`"text": "teal from ${era}"`);
      expect(textOf(result)).toContain('"model": "agent-model"');
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toContain('Name a colour');
      expect(personRequests().length).toBe(before);
    });
  }

  it('two calls in flight to the stdio server: the question cannot be tied to one, so the person answers', async () => {
    const agent = await legacyAgent('two-calls');
    let agentAsked = 0;
    agent.setRequestHandler('elicitation/create', () => {
      agentAsked++;
      return { action: 'decline' };
    });
    // The first call runs (its progress says it reached the server) while the second one asks.
    const stop = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const long = agent
      .callTool(
        { name: 'ev__trigger-long-running-operation', arguments: { duration: 120, steps: 120 } },
        { signal: stop.signal, onprogress: () => started() },
      )
      .catch(() => undefined);
    await running;
    const before = personRequests().length;
    const asking = agent.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} });
    const ask = await app.nextEvent<ServerRequestView>(
      'serverRequest.opened',
      (p) => personRequests().indexOf(p) >= before && p.serverId === 'ev',
    );
    expect(ask.kind).toBe('elicitation-form');
    await app.call('serverRequests.answer', {
      requestId: ask.requestId,
      answer: { action: 'accept', content: { name: 'The Person' } },
    });
    expect(textOf(await asking)).toContain('- Name: The Person');
    expect(agentAsked).toBe(0);
    stop.abort();
    await long;
  });
});
