/**
 * The stdio entry relays the gateway's answer to a call whose wait the app ended: an agent that
 * can only spawn a process (Claude Desktop's way: `node bin/miniharness-gateway.mjs`, the v1 SDK's
 * stdio client) whose call waits for approval when the person revokes it gets the sentence, not
 * silence until its own timeout. The real entry process, built as `npm run build` builds it.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import type { ApprovalView } from '../../shared/contract.js';
import { PROJECT_ROOT, readLines, scratchDir } from '../helpers/fixtures.js';
import { buildGatewayStdio } from '../../scripts/buildGatewayStdio.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

beforeAll(() => buildGatewayStdio());

describe('the stdio entry: a waiting call is answered when the agent is revoked', () => {
  const scratch = scratchDir('mh-gateway-waiting-stdio-');
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

  it('relays the sentence: revoked while it waited, nothing ran', async () => {
    const agent = await app.createAgent('Claude Desktop');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'miniharness-gateway.mjs'), '--client', 'Claude Desktop', '--url', app.url.href],
      env: { ...getDefaultEnvironment(), [GATEWAY_TOKEN_ENV]: agent.token },
      cwd: tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { line?: string }).line === 'stdio-revoked',
      );
      const pending = client.callTool({ name: 'fx__append', arguments: { line: 'stdio-revoked' } }, undefined, {
        timeout: 600_000,
      }) as Promise<CallToolResult>;
      await asked;
      await app.call('agents.revoke', { id: agent.id });
      const result = await pending;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toBe(
        'This agent’s access was revoked in MiniHarness while this call of fx__append waited for approval; nothing ran. Do not retry it unless the user asks you to.',
      );
      expect(readLines(counter)).not.toContain('stdio-revoked');
    } finally {
      await client.close();
    }
  });
});
