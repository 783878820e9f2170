/**
 * "Connect an agent" on a gateway that listens on a port other than the default one (here the
 * run's `--gateway-port`, through MINIHARNESS_GATEWAY_PORT as the hosts read it): the Claude
 * Desktop configuration the dialog shows is started exactly as Claude Desktop would start it (its
 * command, args and env, by the SDK's stdio client), and lists the gateway's tools. Before every
 * snippet named the address, the stdio entry dialled 47813 and the client never connected.
 *
 * Run: npx playwright test test/e2e/agentConnect.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DEFAULT_GATEWAY_PORT } from '../../shared/agents.js';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';
import { freePort } from '../gateway/ports.js';

test.describe.configure({ timeout: 120_000 });

const AGENT = 'Desktop Agent';

let host: WebHostProcess | undefined;
let scratch: string | undefined;
let client: Client | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.afterEach(async () => {
  await client?.close().catch(() => undefined);
  await host?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the Claude Desktop configuration, started as Claude Desktop starts it, reaches a gateway on another port', async ({
  page,
}) => {
  const port = await freePort();
  expect(port).not.toBe(DEFAULT_GATEWAY_PORT);
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-connect-'));
  const saved = process.env.MINIHARNESS_GATEWAY_PORT;
  process.env.MINIHARNESS_GATEWAY_PORT = String(port);
  try {
    host = await startWebHost({ dataDir: join(scratch, 'data') });
  } finally {
    process.env.MINIHARNESS_GATEWAY_PORT = saved;
  }
  const bridge = await Bridge.connect(host);
  try {
    await bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_TOOLS: 'echo' },
      },
    });
  } finally {
    bridge.close();
  }

  await page.goto(host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Agents/ })
    .click();
  await expect(page.getByTestId('gateway-url')).toHaveText(`http://127.0.0.1:${port}/mcp`);
  await page.getByRole('button', { name: 'Add agent' }).first().click();
  const form = page.getByRole('dialog', { name: 'Add an agent' });
  await form.getByLabel('Name').fill(AGENT);
  await form.getByRole('button', { name: 'Add agent' }).click();
  const created = page.getByRole('dialog', { name: `Agent “${AGENT}” added` });
  const snippet = (await created.getByLabel('Claude Desktop configuration').textContent()) ?? '';
  const entry = (
    JSON.parse(snippet) as {
      mcpServers: { miniharness: { command: string; args: string[]; env: Record<string, string> } };
    }
  ).mcpServers.miniharness;
  expect(entry.args).toContain(`http://127.0.0.1:${port}/mcp`);

  client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...getDefaultEnvironment(), ...entry.env },
      stderr: 'pipe',
    }),
  );
  await expect
    .poll(async () => (await client!.listTools()).tools.map((tool) => tool.name), { timeout: 20_000 })
    .toContain('fx__echo');

  // The endpoint's stdio line names the address too.
  await created.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('region', { name: 'Endpoint' })).toContainText(`--url http://127.0.0.1:${port}/mcp`);
});
