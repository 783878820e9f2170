/**
 * The agent gateway in the GUI, end to end: the real browser-mode host (own process, data folder
 * and gateway port per test), the built renderer in Chromium, the stdio fixture server whose
 * `append` tool appends a line to FIXTURE_COUNTER (a side effect the tests count), and a real SDK
 * `Client` as the agent, with the token read from the dialog that shows it once.
 *
 * Run: npx playwright test test/e2e/agents.spec.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, sandboxWritingTo } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import { hostPerTest } from './support/hostPerTest.js';
import type { WebHostProcess } from './support/webHost.js';
import { startWebHost } from './support/webHost.js';
import { openView, addAgent } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

const AGENT = 'E2E Agent';

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

function text(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

/** Adds an agent through the dialog; returns the token it shows once. */

test.describe('an agent through the GUI', () => {
  const ctx = hostPerTest('mh-e2e-agents-');
  let agent: Client | undefined;

  test.afterEach(async () => {
    await agent?.close().catch(() => undefined);
    agent = undefined;
  });

  async function addFixture(counter: string): Promise<void> {
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' },
        sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' }),
      },
    });
    await expect
      .poll(
        async () => (await ctx.bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state,
        { timeout: 20_000 },
      )
      .toBe('ready');
  }

  test('the token is shown once with the configs; the approval names the agent; Allow returns the result, Deny an isError and no side effect', async ({
    page,
  }) => {
    const counter = join(ctx.scratch, 'counter.txt');
    await addFixture(counter);
    await page.goto(ctx.host.url);
    await openView(page, 'Agents');
    const endpoint = page.getByRole('region', { name: 'Endpoint' });
    await expect(endpoint.getByRole('status', { name: 'Gateway: Listening' })).toBeVisible();
    const url = (await endpoint.getByTestId('gateway-url').textContent()) ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const token = await addAgent(page, AGENT);
    // "Connect an agent" with the real token, per application.
    const created = page.getByRole('dialog', { name: `Agent “${AGENT}” added` });
    const desktop = JSON.parse((await created.getByLabel('Claude Desktop configuration').textContent()) ?? '') as {
      mcpServers: Record<string, { args: string[]; env: Record<string, string> }>;
    };
    expect(desktop.mcpServers.miniharness?.env).toEqual({ MINIHARNESS_GATEWAY_TOKEN: token });
    expect(desktop.mcpServers.miniharness?.args.slice(-4)).toEqual(['--client', AGENT, '--url', url]);
    await created.getByRole('tab', { name: 'Claude Code' }).click();
    await expect(created.getByLabel('Claude Code configuration')).toHaveText(
      `claude mcp add --transport http miniharness ${url} --header 'Authorization: Bearer ${token}'\n`,
    );
    await expect(created.getByRole('button', { name: 'Copy for Claude Code' })).toBeVisible();
    await created.getByRole('button', { name: 'Done' }).click();
    await expect(created).toBeHidden();

    // Later, the configuration has a placeholder: the app no longer knows the token.
    const card = page.getByRole('listitem', { name: AGENT });
    await card.getByRole('button', { name: 'Connect…' }).click();
    const connect = page.getByRole('dialog', { name: `Connect ${AGENT}` });
    await connect.getByRole('tab', { name: 'VS Code' }).click();
    await expect(connect.getByLabel('VS Code configuration')).toContainText('Bearer <paste the token>');
    await expect(connect.getByLabel('VS Code configuration')).not.toContainText(token);
    await connect.getByRole('button', { name: 'Done' }).click();

    // The agent connects: its 2025 session appears with what the client says it is.
    agent = await connectAgent(new URL(url), token, 'e2e-client');
    await expect(card.getByText('1 connected client')).toBeVisible();
    const row = card.getByRole('table', { name: `Clients of ${AGENT}` }).locator('tbody tr');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-era', 'legacy');
    await expect(row).toContainText('e2e-client');
    await expect(row).toContainText(/2025-\d\d-\d\d · session/);

    // Allow: the dialog names the agent; the agent gets the result.
    const allowed = agent.callTool({ name: 'fx__append', arguments: { line: 'allowed' } });
    const dialog = page.getByRole('alertdialog', { name: `Approval: append, asked by ${AGENT}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText(`The agent ${AGENT} is waiting for your decision.`)).toBeVisible();
    await expect(dialog.locator('.approval-caller')).toHaveAttribute('data-caller', AGENT);
    // It sent no progress token: the dialog says how long its client probably waits, and how that is known.
    await expect(dialog.locator('.approval-caller-wait')).toContainText(/probably about \d+ s more/);
    await expect(dialog.locator('.approval-caller-wait')).toContainText('MCP SDKs’ default request timeout (60 s)');
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    const result = await allowed;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('appended allowed');
    expect(lines(counter)).toEqual(['allowed']);

    // Deny: the agent gets isError with the reason, and the side effect did not happen.
    const denied = agent.callTool({ name: 'fx__append', arguments: { line: 'denied' } });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: /^Deny/ }).click();
    const refusal = await denied;
    expect(refusal.isError).toBe(true);
    expect(text(refusal)).toMatch(/The user denied this call of fx__append in MiniHarness, so nothing ran/);
    expect(lines(counter)).toEqual(['allowed']);

    // The Agents view counts both calls and shows the last.
    await expect(card.getByText('2 calls recorded')).toBeVisible();
    await expect(card).toContainText('append on fx');

    // Traces by caller: the agent's two calls; none of the person's.
    await openView(page, 'Traces');
    const caller = page.getByRole('search', { name: 'Filter traces' }).getByLabel('Caller');
    await caller.selectOption({ label: AGENT });
    await expect(page.locator('[data-trace-id]')).toHaveCount(2);
    await caller.selectOption({ label: 'You (GUI)' });
    await expect(page.locator('[data-trace-id]')).toHaveCount(0);

    // History by caller spans the agent's sessions: its one checkpointed call (the denied one never reached a checkpoint).
    await openView(page, 'History');
    await page.getByRole('search', { name: 'Filter history' }).getByLabel('Caller').selectOption({ label: AGENT });
    await expect(page.getByRole('button', { name: /^Session: All sessions/ })).toBeVisible();
    await expect(page.locator('[data-history-row]')).toHaveCount(1);
    await expect(page.locator('[data-history-row]')).toContainText('append');
  });

  test('a 2026-07-28 agent (v2 SDK, auto) ends modern at the same endpoint; its approval names it; Allow returns the result, Deny an isError and no side effect; its callId replays', async ({
    page,
  }) => {
    const counter = join(ctx.scratch, 'counter.txt');
    await addFixture(counter);
    await page.goto(ctx.host.url);
    await openView(page, 'Agents');
    const url = (await page.getByTestId('gateway-url').textContent()) ?? '';
    const token = await addAgent(page, AGENT);
    await page
      .getByRole('dialog', { name: `Agent “${AGENT}” added` })
      .getByRole('button', { name: 'Done' })
      .click();

    const modern = await connectModernAgent(new URL(url), token, 'e2e-modern');
    try {
      expect([modern.getProtocolEra(), modern.getNegotiatedProtocolVersion()]).toEqual(['modern', '2026-07-28']);
      expect((await modern.listTools()).tools.map((t) => t.name)).toContain('fx__append');
      // It has no session, yet the card lists it, by the clientInfo its requests carry, with its revision — as
      // seen lately, not connected: it holds no stream open (a stateless client may have exited since).
      const card = page.getByRole('listitem', { name: AGENT });
      await expect(card.getByText('not connected · 1 client seen lately')).toBeVisible();
      const row = card.getByRole('table', { name: `Clients of ${AGENT}` }).locator('tbody tr');
      await expect(row).toHaveCount(1);
      await expect(row).toHaveAttribute('data-era', 'modern');
      await expect(row).toContainText('e2e-modern');
      await expect(row).toContainText('2.0.0');
      await expect(row).toContainText('2026-07-28');

      const dialog = page.getByRole('alertdialog', { name: `Approval: append, asked by ${AGENT}` });
      const allowed = modern.callTool({
        name: 'fx__append',
        arguments: { line: 'modern' },
        _meta: { 'io.miniharness/callId': 'e2e-modern-1' },
      });
      await expect(dialog).toBeVisible();
      await expect(dialog.locator('.approval-caller')).toHaveAttribute('data-caller', AGENT);
      await dialog.getByRole('button', { name: /^Allow once/ }).click();
      const result = await allowed;
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe('appended modern');

      const denied = modern.callTool({ name: 'fx__append', arguments: { line: 'refused' } });
      await expect(dialog).toBeVisible();
      await dialog.getByRole('button', { name: /^Deny/ }).click();
      const refusal = await denied;
      expect(refusal.isError).toBe(true);
      expect(text(refusal)).toMatch(/The user denied this call of fx__append in MiniHarness, so nothing ran/);

      // The same key again: the stored result, nothing run a second time, and nobody asked —
      // no dialog for a call that runs nothing.
      const approvalsBefore = await ctx.bridge.ok<unknown[]>('approvals.list', {});
      expect(approvalsBefore).toEqual([]);
      const again = await modern.callTool({
        name: 'fx__append',
        arguments: { line: 'modern' },
        _meta: { 'io.miniharness/callId': 'e2e-modern-1' },
      });
      await expect(dialog).toBeHidden();
      expect(text(again)).toBe('appended modern');
      expect(again._meta?.['io.miniharness/replayed']).toBe(true);
      expect(lines(counter)).toEqual(['modern']);
      await expect(card.getByText('3 calls recorded')).toBeVisible();
    } finally {
      await modern.close();
    }
  });

  test('revoke ends the agent’s access (after a confirmation), then it can be removed; settings refuse bad values at the field', async ({
    page,
  }) => {
    await page.goto(ctx.host.url);
    await openView(page, 'Agents');
    const token = await addAgent(page, AGENT);
    await page
      .getByRole('dialog', { name: `Agent “${AGENT}” added` })
      .getByRole('button', { name: 'Done' })
      .click();
    const url = (await page.getByTestId('gateway-url').textContent()) ?? '';
    agent = await connectAgent(new URL(url), token);
    const card = page.getByRole('listitem', { name: AGENT });
    await expect(card.getByText('1 connected client')).toBeVisible();
    await expect(card.getByRole('button', { name: 'Remove…' })).toHaveCount(0);

    await card.getByRole('button', { name: 'Revoke…' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Revoke ${AGENT}?` });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(card.getByText('1 connected client')).toBeVisible();
    await card.getByRole('button', { name: 'Revoke…' }).click();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(card.getByText('revoked', { exact: true })).toBeVisible();
    await expect(agent.listTools()).rejects.toThrow();
    await expect(connectAgent(new URL(url), token)).rejects.toMatchObject({ code: 401 });

    await card.getByRole('button', { name: 'Remove…' }).click();
    await page
      .getByRole('alertdialog', { name: `Remove ${AGENT}?` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect(card).toHaveCount(0);
    await expect(page.getByText('No agents yet')).toBeVisible();

    await openView(page, 'Settings');
    // The switch is described by the position it is in.
    const serve = page.getByRole('switch', { name: /Serve agents/ });
    await expect(serve).toBeChecked();
    await expect(serve.locator('xpath=..')).toContainText('On: agents with a token connect on the port below.');
    await serve.uncheck();
    await expect(serve.locator('xpath=..')).toContainText('Off: the port is closed and no agent can connect.');
    await serve.check();
    const port = page.getByLabel('Port', { exact: true });
    await port.fill('80');
    await page.getByRole('button', { name: 'Save gateway' }).click();
    await expect(port).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#gateway-port-error')).toHaveText('Must be a whole number from 1024 to 65535');
    const seconds = page.getByLabel('Approval timeout (seconds)');
    await seconds.fill('5');
    await page.getByRole('button', { name: 'Save timeout' }).click();
    await expect(page.locator('#approval-timeout-error')).toHaveText('Must be a whole number from 10 to 3600');
    await seconds.fill('45');
    await page.getByRole('button', { name: 'Save timeout' }).click();
    await expect(seconds).not.toHaveAttribute('aria-invalid', 'true');
    expect((await ctx.bridge.ok<{ approvalTimeoutSeconds: number }>('settings.get', {})).approvalTimeoutSeconds).toBe(
      45,
    );
    // The agents' idle time: its hint says what it does; out of range is refused at the field, a valid one is saved.
    const idle = page.getByLabel(/End an agent’s idle session after \(minutes\)/);
    await expect(idle).toHaveValue('10');
    await expect(idle).toHaveAccessibleDescription(/a request on it then gets 404/);
    await idle.fill('0');
    await page.getByRole('button', { name: 'Save idle time' }).click();
    await expect(page.locator('#agent-idle-error')).toHaveText('Must be a whole number from 1 to 1440');
    expect((await ctx.bridge.ok<{ agentIdleMinutes: number }>('settings.get', {})).agentIdleMinutes).toBe(10); // the refused 0 was not saved
    await idle.fill('30');
    await page.getByRole('button', { name: 'Save idle time' }).click();
    await expect(idle).not.toHaveAttribute('aria-invalid', 'true');
    await expect
      .poll(async () => (await ctx.bridge.ok<{ agentIdleMinutes: number }>('settings.get', {})).agentIdleMinutes)
      .toBe(30);
  });
});

/** A port another program holds (the test's own listener). */
async function occupiedPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as { port: number }).port };
}

test.describe('a gateway port in use', () => {
  let host: WebHostProcess | undefined;
  let blocker: Server | undefined;
  let scratch: string | undefined;

  test.afterEach(async () => {
    await host?.stop();
    await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('is a clear sentence with a link to the setting, and choosing another port there starts it', async ({
    page,
  }) => {
    const held = await occupiedPort();
    blocker = held.server;
    scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-gwport-'));
    const saved = process.env.MINIHARNESS_GATEWAY_PORT;
    process.env.MINIHARNESS_GATEWAY_PORT = String(held.port);
    try {
      host = await startWebHost({ dataDir: join(scratch, 'data') });
    } finally {
      process.env.MINIHARNESS_GATEWAY_PORT = saved;
    }
    expect(host.alive()).toBe(true);

    await page.goto(host.url);
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByLabel('the gateway is not listening'),
    ).toBeVisible();
    await openView(page, 'Agents');
    const endpoint = page.getByRole('region', { name: 'Endpoint' });
    await expect(endpoint.getByRole('status', { name: 'Gateway: Port in use' })).toBeVisible();
    await expect(endpoint.getByRole('alert')).toContainText(
      `Port ${held.port} is already used by another program, so no agent can connect.`,
    );
    await endpoint.getByRole('button', { name: 'Open Settings → Agent gateway' }).click();
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();

    // Another port, free now: the gateway listens there.
    const free = await occupiedPort();
    await new Promise<void>((resolve) => free.server.close(() => resolve()));
    await page.getByLabel('Port', { exact: true }).fill(String(free.port));
    await page.getByRole('button', { name: 'Save gateway' }).click();
    const bridge = await Bridge.connect(host);
    try {
      await expect
        .poll(async () => (await bridge.ok<{ gateway: { state: string; port: number } }>('agents.list', {})).gateway)
        .toEqual(expect.objectContaining({ state: 'listening', port: free.port }));
    } finally {
      bridge.close();
    }
    await openView(page, 'Agents');
    await expect(
      page.getByRole('region', { name: 'Endpoint' }).getByRole('status', { name: 'Gateway: Listening' }),
    ).toBeVisible();
    await expect(page.getByTestId('gateway-url')).toHaveText(`http://127.0.0.1:${free.port}/mcp`);
  });
});
