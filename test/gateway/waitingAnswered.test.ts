/**
 * Every request an agent sends is answered, whatever the person does meanwhile: revoking or
 * removing the agent, removing or disabling the server, or the server going away for good, while
 * the agent's call waits for approval answers that call at once with a sentence saying what
 * happened and that nothing ran —
 * in both eras (a v1 SDK client in a 2025 session, a v2 client on 2026-07-28), the request never
 * left to the client's own timeout. Real app core + gateway, real SDK agents, the stdio fixture.
 */
import { symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, readLines, scratchDir, sandboxWritingTo } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, connectModernAgent, startGatewayApp } from './support.js';

interface ToolResult {
  content: unknown[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

type CallAgent = (params: { name: string; arguments: Record<string, unknown> }) => Promise<ToolResult>;

function text(result: ToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/** A client of the era that calls tools (the client's own timeout far away: the answer must come from the gateway). */
async function agentOf(
  era: 'legacy' | 'modern',
  url: URL,
  token: string,
): Promise<{ call: CallAgent; close(): Promise<void> }> {
  if (era === 'modern') {
    const client = await connectModernAgent(url, token);
    return {
      call: async (params) => (await client.callTool(params, { timeout: 600_000 })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = await connectAgent(url, token);
  return {
    call: async (params) => (await client.callTool(params, undefined, { timeout: 600_000 })) as ToolResult,
    close: () => client.close(),
  };
}

describe('requests waiting for approval are answered when what they wait on goes', () => {
  const scratch = scratchDir('mh-gateway-waiting-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  /** Starts a call of fx__append that asks, waits until the approval is up, and returns its pending answer. */
  async function waitingCall(
    call: CallAgent,
    line: string,
  ): Promise<{ pending: Promise<ToolResult>; approval: ApprovalView }> {
    const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => (a.args as { line?: string }).line === line);
    const pending = call({ name: 'fx__append', arguments: { line } });
    return { pending, approval: await asked };
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: revoking the agent answers its waiting call with a sentence; nothing ran`, async () => {
      const agent = await app.createAgent(`Revoked ${era}`);
      const client = await agentOf(era, app.url, agent.token);
      try {
        const { pending, approval } = await waitingCall(client.call, `revoked-${era}`);
        const closed = app.nextEvent<{ requestId: string; outcome: string }>(
          'approval.closed',
          (c) => c.requestId === approval.requestId,
        );
        await app.call('agents.revoke', { id: agent.id });
        const result = await pending;
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(
          /access was revoked in MiniHarness while this call of fx__append waited for approval; nothing ran/,
        );
        expect(result._meta?.['io.miniharness/error']).toBe('approval_cancelled');
        expect((await closed).outcome).toBe('cancelled');
        expect(readLines(counter)).not.toContain(`revoked-${era}`);
      } finally {
        await client.close().catch(() => undefined);
      }
    });

    it(`${era}: removing the agent answers its waiting call too`, async () => {
      const agent = await app.createAgent(`Removed ${era}`);
      const client = await agentOf(era, app.url, agent.token);
      try {
        const { pending } = await waitingCall(client.call, `removed-${era}`);
        await app.call('agents.remove', { id: agent.id });
        const result = await pending;
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(
          /was removed from MiniHarness while this call of fx__append waited for approval; nothing ran/,
        );
      } finally {
        await client.close().catch(() => undefined);
      }
    });

    for (const [what, end] of [
      ['removing', (id: string) => app.call('servers.remove', { id })],
      ['disabling', (id: string) => app.call('servers.setEnabled', { id, enabled: false })],
    ] as const) {
      it(`${era}: ${what} the server answers a call waiting for approval on it; nothing ran`, async () => {
        const serverId = `${what.slice(0, 3)}-${era}`;
        await addFixtureServer(app, serverId, { FIXTURE_COUNTER: counter });
        await app.nextEvent<{ tools: Array<{ name: string; serverId: string }> }>('tools.changed', (p) =>
          p.tools.some((t) => t.serverId === serverId && t.name === 'append'),
        );
        const agent = await app.createAgent(`Server ${what} ${era}`);
        const client = await agentOf(era, app.url, agent.token);
        try {
          const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => a.serverId === serverId);
          const pending = client.call({ name: `${serverId}__append`, arguments: { line: `${what}-${era}` } });
          const approval = await asked;
          const closed = app.nextEvent<{ requestId: string; outcome: string }>(
            'approval.closed',
            (c) => c.requestId === approval.requestId,
          );
          await end(serverId);
          const result = await pending;
          expect(result.isError).toBe(true);
          const verb = what === 'removing' ? 'removed' : 'disabled';
          expect(text(result)).toBe(
            `The server "${serverId}" was ${verb} in MiniHarness while this call of ${serverId}__append waited for approval; nothing ran. Do not retry it unless the user asks you to.`,
          );
          expect((await closed).outcome).toBe('cancelled');
          expect(readLines(counter)).not.toContain(`${what}-${era}`);
        } finally {
          await client.close().catch(() => undefined);
        }
      });
    }
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: a server that goes away for good (its process died, and it cannot be started again) answers the call waiting on it`, async () => {
      const serverId = `gone-${era}`;
      // The server's command is a link to node that is gone by the time the registry reconnects: the process dies, the restart cannot start.
      const command = join(scratch.dir, `node-link-${era}`);
      symlinkSync(process.execPath, command);
      const ready = app.nextEvent<{ serverId: string; status: { state: string } }>(
        'server.status',
        (p) => p.serverId === serverId && p.status.state === 'ready',
      );
      await app.call('servers.save', {
        mode: 'create',
        config: {
          id: serverId,
          name: `Going ${era}`,
          transport: 'stdio',
          command,
          args: [BUILT_STDIO_FIXTURE],
          cwd: PROJECT_ROOT,
          env: { FIXTURE_COUNTER: counter },
          sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter }),
        },
      });
      await ready;
      await app.nextEvent<{ tools: Array<{ name: string; serverId: string }> }>('tools.changed', (p) =>
        p.tools.some((t) => t.serverId === serverId && t.name === 'crash'),
      );
      await app.call('permissions.setToolLevel', { serverId, toolName: 'crash', level: 'ALLOW' });
      const agent = await app.createAgent(`Server gone ${era}`);
      const client = await agentOf(era, app.url, agent.token);
      try {
        const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => a.serverId === serverId);
        const pending = client.call({ name: `${serverId}__append`, arguments: { line: `gone-away-${era}` } });
        const approval = await asked;
        const closed = app.nextEvent<{ requestId: string; outcome: string }>(
          'approval.closed',
          (c) => c.requestId === approval.requestId,
        );
        unlinkSync(command);
        const failed = app.nextEvent<{ serverId: string; status: { state: string } }>(
          'server.status',
          (p) => p.serverId === serverId && p.status.state === 'error',
        );
        await client.call({ name: `${serverId}__crash`, arguments: {} }).catch(() => undefined);
        await failed;
        const result = await pending;
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(
          new RegExp(
            `^The server "${serverId}" went away \\(.+\\) while this call of ${serverId}__append waited for approval; nothing ran\\.`,
          ),
        );
        expect(result._meta?.['io.miniharness/error']).toBe('approval_cancelled');
        expect((await closed).outcome).toBe('cancelled');
        expect(readLines(counter)).not.toContain(`gone-away-${era}`);
      } finally {
        await client.close().catch(() => undefined);
      }
    });
  }
});
