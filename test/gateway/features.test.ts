/**
 * Resources and prompts through the gateway, read-only, against the real server-everything
 * (stdio) behind the app and a real SDK Client as the agent: lists carry the server, a read and a
 * prompt get are decided by the permission engine (ASK → the person's approval, naming the agent;
 * Deny → refused, nothing read) and traced under the agent's name.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AgentVisibility } from '../../shared/agents.js';
import type { ApprovalView } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectAgent, startGatewayApp, saveServerListed } from './support.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const DOC = 'demo://resource/static/document/features.md';

describe('resources and prompts through the gateway', () => {
  const scratch = scratchDir('mh-gateway-features-');
  let app: GatewayApp;
  let client: Client;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'ev',
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      timeoutMs: 15_000,
    });
    const agent = await app.createAgent('Reader');
    client = await connectAgent(app.url, agent.token);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
    scratch.cleanup();
  });

  it('declares resources and prompts, and lists them with their server', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    const { resources } = await client.listResources();
    const doc = resources.find((r) => r.uri === DOC);
    expect(doc?._meta).toMatchObject({ 'io.miniharness/server': 'ev' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('ev__args-prompt');
  });

  it('a read asks the person (naming the agent); Allow reads it, traced as the agent', async () => {
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => a.toolName === 'resources/read' && (a.args as { uri?: string }).uri === DOC,
    );
    const pending = client.readResource({ uri: DOC });
    const approval = await asked;
    expect(approval.userId).toBe('Reader');
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
    const result = await pending;
    expect(result.contents[0]).toMatchObject({ uri: DOC, mimeType: 'text/markdown' });
    const { traces } = await app.call<{ traces: TraceSummary[] }>('traces.list', { userId: 'Reader' });
    expect(traces.map((t) => [t.toolName, t.serverId, t.status])).toContainEqual(['resources/read', 'ev', 'ok']);
  });

  it('Deny refuses the read with a sentence, and a template-made URI is routed to its server', async () => {
    const uri = 'demo://resource/dynamic/text/3';
    const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => (a.args as { uri?: string }).uri === uri);
    const pending = client.readResource({ uri });
    await app.call('approvals.answer', { requestId: (await asked).requestId, answer: 'deny' });
    await expect(pending).rejects.toThrow(/The user denied this call/);
  });

  it('a prompt get is decided too, and an agent that may not see the server sees nothing of it', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'ev', toolName: 'prompts/get', level: 'ALLOW' });
    const result = await client.getPrompt({ name: 'ev__args-prompt', arguments: { city: 'Paris', state: 'Texas' } });
    expect(JSON.stringify(result.messages)).toContain('Paris');
    const none: AgentVisibility = { allServers: false, serverIds: [], localTools: false };
    const blind = await app.createAgent('Blind', none);
    const other = await connectAgent(app.url, blind.token);
    try {
      expect((await other.listResources()).resources).toEqual([]);
      expect((await other.listPrompts()).prompts).toEqual([]);
      await expect(other.readResource({ uri: DOC })).rejects.toMatchObject({
        code: -32602,
        data: { uri: DOC },
        message: expect.stringMatching(/Unknown resource/),
      });
      await expect(other.getPrompt({ name: 'ev__args-prompt', arguments: { city: 'Paris' } })).rejects.toThrow(
        /Unknown prompt/,
      );
    } finally {
      await other.close();
    }
  });

  it('a read waiting for approval when the agent is revoked is answered with the sentence at once', async () => {
    const doomed = await app.createAgent('Revoked reader');
    const other = await connectAgent(app.url, doomed.token);
    try {
      const uri = 'demo://resource/dynamic/text/7';
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => a.userId === 'Revoked reader' && (a.args as { uri?: string }).uri === uri,
      );
      const pending = other.readResource({ uri }, { timeout: 600_000 });
      await asked;
      await app.call('agents.revoke', { id: doomed.id });
      await expect(pending).rejects.toThrow(
        /This agent’s access was revoked in MiniHarness while this call of resources\/read of demo:\/\/resource\/dynamic\/text\/7 waited for approval; nothing ran/,
      );
    } finally {
      await other.close().catch(() => undefined);
    }
  });
});
