/**
 * An agent signs in instead of copying a token, end to end with a client nobody here wrote: the
 * real browser-mode host, and `mcp-remote` (a third-party stdio→HTTP proxy that speaks OAuth)
 * given only the gateway's URL, spawned as a stdio MCP server by an SDK stdio client. mcp-remote
 * registers itself, prints the authorization URL on stderr (its own attempt to open a browser is
 * neutralised: `xdg-open` on its PATH is a no-op written by this test), and waits on its loopback
 * callback. The test opens that URL in Chromium: MiniHarness's consent page names the client and
 * says the name is its own claim; Allow sends the browser back to mcp-remote, which gets its
 * tokens; the test's client then lists the gateway's tools through mcp-remote, and the new agent
 * is in the Agents view, marked as signed in.
 *
 * Run: npx playwright test test/e2e/agentSignIn.spec.ts
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AgentsView } from '../../shared/agents.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';
import { freePort } from '../gateway/ports.js';

test.describe.configure({ timeout: 120_000 });

const MCP_REMOTE = join(PROJECT_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

const ctx = hostPerTest('mh-e2e-agent-sign-in-');

test('mcp-remote given only the URL signs in through the consent page clicked in Chromium, then lists the tools; the agent appears, signed in', async ({
  page,
}) => {
  await ctx.bridge.ok('servers.save', {
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
  await expect
    .poll(
      async () => (await ctx.bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state,
      { timeout: 20_000 },
    )
    .toBe('ready');
  const gatewayUrl = (await ctx.bridge.ok<AgentsView>('agents.list', {})).gateway.url;

  // mcp-remote's config (its client registration and tokens) in this test's folder; its browser opener a no-op.
  const configDir = join(ctx.scratch, 'mcp-remote');
  const fakeBin = join(ctx.scratch, 'bin');
  mkdirSync(configDir, { recursive: true });
  mkdirSync(fakeBin, { recursive: true });
  for (const opener of ['xdg-open', 'gio', 'sensible-browser', 'x-www-browser', 'www-browser']) {
    writeFileSync(join(fakeBin, opener), '#!/bin/sh\nexit 0\n');
    chmodSync(join(fakeBin, opener), 0o755);
  }
  const callbackPort = await freePort();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_REMOTE, gatewayUrl, String(callbackPort)],
    env: {
      ...getDefaultEnvironment(),
      PATH: `${fakeBin}:${process.env.PATH ?? ''}`,
      MCP_REMOTE_CONFIG_DIR: configDir,
      BROWSER: join(fakeBin, 'xdg-open'),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  const authorizationUrl = new Promise<string>((resolve) => {
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /Please authorize this client by visiting:\s*\n(\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
  });
  const client = new Client({ name: 'e2e-through-mcp-remote', version: '1.0.0' });
  const connected = client.connect(transport);
  try {
    const url = await authorizationUrl;
    expect(new URL(url).origin).toBe(new URL(gatewayUrl).origin);

    // The page's own style is allowed by its hash, and nothing on it breaks the CSP.
    const cspErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    await page.goto(url);
    await expect(page.locator('main')).toHaveCSS('border-radius', '10px');
    await expect(page.getByRole('heading', { name: 'Allow an agent to use MiniHarness?' })).toBeVisible();
    await expect(
      page
        .getByRole('paragraph')
        .filter({ hasText: 'asks to connect to MiniHarness' })
        .getByText('MCP CLI Proxy', { exact: true }),
    ).toBeVisible();
    await expect(page.getByText('The name above is the client’s own claim')).toBeVisible();
    await expect(page.getByText(`http://localhost:${callbackPort}`)).toBeVisible();
    await page.getByLabel('Chosen servers').check();
    await page.getByRole('checkbox', { name: /Fixture/ }).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    // mcp-remote's own callback page: the browser came back to it with the code.
    await page.waitForURL((target) => target.port === String(callbackPort));
    expect(cspErrors).toEqual([]);

    await connected;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fx__echo');

    await page.goto(ctx.host.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Agents/ })
      .click();
    const card = page.getByRole('listitem', { name: 'MCP CLI Proxy' });
    await expect(card).toBeVisible();
    await expect(card.getByText('signed in', { exact: true })).toBeVisible();
    await expect(card.getByText('“MCP CLI Proxy”')).toBeVisible();
    await expect(card.getByText('The tools of Fixture, not the local tools.')).toBeVisible();
    await expect(card.getByRole('button', { name: 'Connect…' })).toHaveCount(0);
  } finally {
    await client.close().catch(() => undefined);
  }
});
