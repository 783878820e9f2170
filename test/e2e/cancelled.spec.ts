/**
 * The Cancelled status end to end: the real browser-mode host, the built renderer in Chromium,
 * the stdio fixture server. Two calls are cancelled over the host's bridge (as the page's Cancel
 * does) — one while it waits for approval, one while it runs — and Traces shows both as
 * Cancelled and finds them with its status filter; History shows the one that ran as Cancelled
 * (not "Result unknown") under its own filter.
 *
 * Run: npx playwright test test/e2e/cancelled.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { ApprovalView, ServerView } from '../../shared/contract.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

let scratch: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-cancelled-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      env: { FIXTURE_COUNTER: join(scratch, 'counter.txt') },
      sandbox: sandboxWritingTo({ FIXTURE_COUNTER: join(scratch, 'counter.txt') }),
    },
  });
  await waitFor(
    async () =>
      ((await bridge!.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0,
    20_000,
  );
  // `slow` runs without asking; `append` asks (the default for an untrusted server's writing tool).
  await bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'ALLOW' });
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  bridge = undefined;
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function openView(page: Page, name: 'History' | 'Traces'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

test('calls cancelled while waiting for approval and while running show as Cancelled in Traces and History, and their filters find them', async ({
  page,
}) => {
  // One cancelled while it runs on the server.
  const ranId = `e2e-ran-${randomUUID()}`;
  const ran = bridge!.call('tools.call', { name: 'slow', serverId: 'fx', args: { ms: 600_000 }, callId: ranId });
  await waitFor(async () => {
    const running = (
      await bridge!.ok<{ traces: TraceSummary[] }>('traces.list', { status: 'running', toolName: 'slow', limit: 5 })
    ).traces[0];
    if (!running) return false;
    const detail = await bridge!.ok<TraceDetail>('traces.get', { traceId: running.traceId });
    return detail.events.some((e) => e.type === 'attempt_started');
  }, 20_000);
  await bridge!.ok('tools.cancel', { callId: ranId });
  expect((await ran).ok).toBe(false);

  // One cancelled while it waits for the person.
  const waitedId = `e2e-waited-${randomUUID()}`;
  const waited = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'never' },
    callId: waitedId,
  });
  await waitFor(
    async () => (await bridge!.ok<ApprovalView[]>('approvals.list', {})).some((a) => a.toolName === 'append'),
    20_000,
  );
  await bridge!.ok('tools.cancel', { callId: waitedId });
  expect((await waited).ok).toBe(false);

  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();

  await openView(page, 'Traces');
  const list = page.getByRole('navigation', { name: 'Trace list' });
  await expect(list.locator('[data-trace-status="cancelled"]')).toHaveCount(2);
  await expect(list.locator('[data-trace-status="denied"], [data-trace-status="error"]')).toHaveCount(0);
  await page.getByRole('search', { name: 'Filter traces' }).getByLabel('Status').selectOption({ label: 'Cancelled' });
  await expect(list.locator('.trace-item')).toHaveCount(2);
  await expect(list.locator('.trace-item').first().locator('[data-trace-status="cancelled"]')).toHaveText('Cancelled');
  await list.locator('.trace-item', { hasText: 'slow' }).click();
  await expect(
    page.getByRole('region', { name: 'Trace of slow' }).getByText('Cancelled', { exact: true }).first(),
  ).toBeVisible();

  await openView(page, 'History');
  const row = page.locator(`[data-history-row][data-call-id="${ranId}"]`);
  await expect(row.locator('[data-record-status="cancelled"]')).toHaveText('Cancelled');
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Cancelled' }).click();
  await expect(page.locator('[data-history-row]')).toHaveCount(1);
  await expect(row).toBeVisible();
  await row.click();
  await expect(page.getByRole('region', { name: 'Call slow' })).toContainText('Cancelled while it ran');
  // "Unfinished" no longer lists it: its cause is known.
  await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Unfinished' }).click();
  await expect(page.locator('[data-history-row]')).toHaveCount(0);
});
