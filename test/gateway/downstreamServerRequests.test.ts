/**
 * A downstream 2026-07-28 server's question during an agent's call reaches the agent that made
 * the call, end to end: the real app core and gateway, the v2 dual-era fixture as the downstream
 * server (stdio, pinned modern, as eraPeers.ts's modernStdioConfig runs it; its `ask_name` answers `input_required` with an elicitation, then
 * `hello <name>`), agents as real SDK clients of both eras.
 *
 * - a 2026-07-28 agent that declared elicitation answers it (as `input_required` of its own
 *   call) — the person is never asked;
 * - a 2025 agent that declared it gets it as a real `elicitation/create` request;
 * - an agent that declared nothing, and a call made from the GUI: the person is asked;
 * - the call's one trace lists each round: what was asked and who answered, never the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MAX_INPUT_ROUNDS } from '../../electron/mcp/negotiation.js';
import { META_CALL_ID } from '../../shared/agents.js';
import type { CallOutcome } from '../../shared/contract.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { BUILT_MODERN_FIXTURE, buildModernFixture } from '../doubles/servers/eraPeers.js';
import type { GatewayApp } from './support.js';
import { connectAgent, connectModernAgent, startGatewayApp, saveServerListed } from './support.js';

interface ServerRequestView {
  kind: string;
  requestId: string;
  serverId: string;
  message?: string;
}

interface RoundData {
  round: number;
  requests: Array<{ kind: string; answeredBy: string }>;
}

function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  return content?.[0]?.text;
}

describe('a downstream server asks during a call: the agent that made it answers, else the person', () => {
  const scratch = scratchDir('mh-downstream-asks-');
  let app: GatewayApp;
  let token: string;
  const closers: Array<() => Promise<void>> = [];

  /** The rounds the trace of one call recorded (its input_requested events, in order), and the trace's own status. */
  async function roundsOf(
    callId: string,
    toolName = 'ask_name',
  ): Promise<{ trace: TraceSummary; rounds: RoundData[] }> {
    const { traces } = await app.call<{ traces: TraceSummary[] }>('traces.list', { toolName, serverId: 'dn' });
    const matching = traces.filter((t) => t.callId === callId);
    expect(matching).toHaveLength(1); // one call, one trace
    const detail = await app.call<TraceDetail>('traces.get', { traceId: matching[0]!.traceId });
    const rounds = detail.events.filter((e) => e.type === 'input_requested').map((e) => e.data as RoundData);
    return { trace: detail.trace, rounds };
  }

  function personRequests(): ServerRequestView[] {
    return app.events.filter((e) => e.event === 'serverRequest.opened').map((e) => e.payload as ServerRequestView);
  }

  beforeAll(async () => {
    await buildModernFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'dn',
      name: 'dn',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_MODERN_FIXTURE],
      cwd: PROJECT_ROOT,
      env: {},
      protocolEra: 'modern',
    });
    await app.call('permissions.setToolLevel', { serverId: 'dn', toolName: 'ask_name', level: 'ALLOW' });
    await app.call('permissions.setToolLevel', { serverId: 'dn', toolName: 'ask_sample', level: 'ALLOW' });
    await app.call('permissions.setToolLevel', { serverId: 'dn', toolName: 'ask_forever', level: 'ALLOW' });
    token = (await app.createAgent('Askers')).token;
  }, 60_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await app?.close();
    scratch.cleanup();
  });

  it('a 2026-07-28 agent that declared elicitation answers the question itself; the person is never asked', async () => {
    const agent: ModernClient = await connectModernAgent(app.url, token, 'modern-asker', { elicitation: { form: {} } });
    closers.push(() => agent.close());
    const questions: string[] = [];
    agent.setRequestHandler('elicitation/create', (request) => {
      questions.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const before = personRequests().length;
    const result = await agent.callTool({
      name: 'dn__ask_name',
      arguments: {},
      _meta: { [META_CALL_ID]: 'modern-agent-call' },
    });
    expect(textOf(result)).toBe('hello Ada');
    expect(questions).toEqual(['What is your name?']);
    expect(personRequests().length).toBe(before);
    const { trace, rounds } = await roundsOf('modern-agent-call');
    expect(trace.status).toBe('ok');
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] }]);
    expect(JSON.stringify(rounds)).not.toContain('Ada');
  });

  it('a 2026-07-28 agent that declared sampling answers with its model: the text is relayed; other content is refused clearly', async () => {
    const agent: ModernClient = await connectModernAgent(app.url, token, 'modern-sampler', { sampling: {} });
    closers.push(() => agent.close());
    let reply: 'text' | 'image' = 'text';
    agent.setRequestHandler('sampling/createMessage', () =>
      reply === 'text'
        ? { role: 'assistant', content: { type: 'text', text: 'hi from the agent' }, model: 'agent-model' }
        : { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' }, model: 'agent-model' },
    );
    const before = personRequests().length;
    expect(textOf(await agent.callTool({ name: 'dn__ask_sample', arguments: {} }))).toBe(
      'model said: hi from the agent',
    );
    reply = 'image';
    const refused = (await agent.callTool({ name: 'dn__ask_sample', arguments: {} })) as { isError?: boolean };
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/image.*only a single text response is relayed/);
    expect(personRequests().length).toBe(before);
  });

  it('a server that keeps asking the agent is stopped after the bounded rounds; the trace holds every round', async () => {
    const agent: ModernClient = await connectModernAgent(app.url, token, 'modern-patient', {
      elicitation: { form: {} },
    });
    closers.push(() => agent.close());
    let asked = 0;
    agent.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: `round ${++asked}` } }));
    const result = (await agent.callTool({
      name: 'dn__ask_forever',
      arguments: {},
      _meta: { [META_CALL_ID]: 'forever-call' },
    })) as { isError?: boolean };
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/kept asking for more input/);
    expect(asked).toBe(MAX_INPUT_ROUNDS);
    const { trace, rounds } = await roundsOf('forever-call', 'ask_forever');
    expect(trace.status).toBe('error');
    expect(rounds.map((r) => r.round)).toEqual(Array.from({ length: MAX_INPUT_ROUNDS }, (_, i) => i + 1));
    expect(rounds.every((r) => r.requests.length === 1 && r.requests[0]?.answeredBy === 'agent')).toBe(true);
  });

  it('a 2025 agent that declared elicitation gets the question as a real request', async () => {
    const agent = new LegacyClient({ name: 'legacy-asker', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const questions: string[] = [];
    agent.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params.message);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    await agent.connect(new LegacyHttp(app.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    closers.push(() => agent.close());
    const before = personRequests().length;
    const result = await agent.callTool({
      name: 'dn__ask_name',
      arguments: {},
      _meta: { [META_CALL_ID]: 'legacy-agent-call' },
    });
    expect(textOf(result)).toBe('hello Grace');
    expect(questions).toEqual(['What is your name?']);
    expect(personRequests().length).toBe(before);
    expect((await roundsOf('legacy-agent-call')).rounds).toEqual([
      { round: 1, requests: [{ kind: 'elicitation', answeredBy: 'agent' }] },
    ]);
  });

  it('an agent that declared nothing: the person is asked, and their answer reaches the server', async () => {
    const agent = await connectAgent(app.url, token, 'mute-agent');
    closers.push(() => agent.close());
    const before = personRequests().length;
    const call = agent.callTool({ name: 'dn__ask_name', arguments: {}, _meta: { [META_CALL_ID]: 'mute-agent-call' } });
    const ask = await app.nextEvent<ServerRequestView>(
      'serverRequest.opened',
      (p) => personRequests().indexOf(p) >= before && p.serverId === 'dn',
    );
    expect(ask).toMatchObject({ kind: 'elicitation-form', message: 'What is your name?' });
    await app.call('serverRequests.answer', {
      requestId: ask.requestId,
      answer: { action: 'accept', content: { name: 'X' } },
    });
    expect(textOf(await call)).toBe('hello X');
    expect((await roundsOf('mute-agent-call')).rounds).toEqual([
      { round: 1, requests: [{ kind: 'elicitation', answeredBy: 'person' }] },
    ]);
  });

  it('a call made from the GUI asks the person; its trace holds the round', async () => {
    const before = personRequests().length;
    const call = app.call<CallOutcome>('tools.call', {
      name: 'ask_name',
      serverId: 'dn',
      args: {},
      callId: 'gui-call',
    });
    const ask = await app.nextEvent<ServerRequestView>(
      'serverRequest.opened',
      (p) => personRequests().indexOf(p) >= before && p.serverId === 'dn',
    );
    await app.call('serverRequests.answer', {
      requestId: ask.requestId,
      answer: { action: 'accept', content: { name: 'Lin' } },
    });
    const outcome = await call;
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'hello Lin' }]);
    const { trace, rounds } = await roundsOf('gui-call');
    expect(trace.traceId).toBe(outcome.traceId);
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'person' }] }]);
  });
});
