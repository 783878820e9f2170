/**
 * Cached tool lists (issue 9, E8): a warm start shows a still-connecting server's tools from the
 * schema cache marked "cached" (Tools view and Server detail) until it is ready; a removed
 * server's tools never appear under a new server that takes the same name (and so the same id).
 * The real browser-mode host, the built renderer in Chromium, the stdio fixture server.
 *
 * Run: npx playwright test test/e2e/cachedTools.spec.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { stdioFixtureConfig } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import { serverDetail, serverRow } from './support/serverForm.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';
import { openView } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

let scratch: string;
let host: WebHostProcess | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-cached-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function openApp(page: Page, running: WebHostProcess): Promise<void> {
  await page.goto(running.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

async function saveServer(running: WebHostProcess, config: unknown): Promise<void> {
  const bridge = await Bridge.connect(running);
  try {
    await bridge.ok('servers.save', { mode: 'create', config, secrets: {} });
  } finally {
    bridge.close();
  }
}

test('a warm start marks a connecting server\'s tools "cached" until it is ready', async ({ page }) => {
  const gate = join(scratch, 'init-gate');
  // The server answers initialize only while the gate file is absent.
  await saveServer(host!, {
    ...stdioFixtureConfig('slow', { FIXTURE_TOOLS: 'echo,append', FIXTURE_INIT_HOLD: gate }),
    name: 'Slow fixture',
    timeoutMs: 600_000,
  });
  await openApp(page, host!);
  await expect(serverRow(page, 'Slow fixture')).toContainText('Ready', { timeout: 30_000 });
  await openView(page, 'Tools');
  const list = page.getByRole('navigation', { name: 'Tool list' });
  await expect(list.locator('button[data-tool="echo"][data-server="slow"]')).toBeVisible();
  // Live tools carry no marker.
  await expect(list.locator('.chip-cached')).toHaveCount(0);

  // Restart over the same data folder with the gate closed: the server stays connecting.
  writeFileSync(gate, 'closed');
  const dataDir = host!.dataDir;
  await host!.stop();
  host = await startWebHost({ dataDir });
  await openApp(page, host);
  await expect(serverRow(page, 'Slow fixture')).toContainText(/Connecting/i);
  await openView(page, 'Tools');
  for (const tool of ['echo', 'append']) {
    await expect(list.locator(`button[data-tool="${tool}"][data-server="slow"]`).locator('.chip-cached')).toHaveText(
      'cached',
    );
  }

  // The Server detail lists the same tools, marked too.
  await openView(page, 'Servers');
  await serverRow(page, 'Slow fixture').click();
  const detail = serverDetail(page, 'Slow fixture');
  await detail.getByRole('tab', { name: /Tools/ }).click();
  await expect(detail.getByRole('listitem', { name: 'Tool echo' }).locator('.chip-cached')).toHaveText('cached');
  await expect(serverRow(page, 'Slow fixture')).toContainText(/Connecting/i);

  // The gate opens: the server is ready and the marks go, in both places.
  rmSync(gate);
  await expect(serverRow(page, 'Slow fixture')).toContainText('Ready', { timeout: 30_000 });
  await expect(detail.getByRole('listitem', { name: 'Tool echo' })).toBeVisible();
  await expect(detail.locator('.chip-cached')).toHaveCount(0);
  await openView(page, 'Tools');
  await expect(list.locator('button[data-tool="echo"][data-server="slow"]')).toBeVisible();
  await expect(list.locator('.chip-cached')).toHaveCount(0);
});

test("a server removed and added again under the same name never shows the old one's tools", async ({ page }) => {
  // Both servers have the very same settings (so the same id and connection): only the tool
  // list file differs between them. The new one stays connecting until the gate opens, so any
  // leftover of the old one (its cache entry, a stale detail) would be what the page shows.
  const toolsFile = join(scratch, 'tools.txt');
  const gate = join(scratch, 'init-gate');
  writeFileSync(toolsFile, 'append,slow');
  const config = {
    ...stdioFixtureConfig('twin', { FIXTURE_TOOLS_FILE: toolsFile, FIXTURE_INIT_HOLD: gate }),
    name: 'Twin',
    timeoutMs: 600_000,
  };
  await saveServer(host!, config);
  await openApp(page, host!);
  await expect(serverRow(page, 'Twin')).toContainText('Ready', { timeout: 30_000 });
  await openView(page, 'Tools');
  const list = page.getByRole('navigation', { name: 'Tool list' });
  await expect(list.locator('button[data-tool="append"][data-server="twin"]')).toBeVisible();
  await openView(page, 'Servers');
  await serverRow(page, 'Twin').click();
  const detail = serverDetail(page, 'Twin');
  await detail.getByRole('tab', { name: /Tools/ }).click();
  await expect(detail.getByRole('listitem', { name: 'Tool append' })).toBeVisible();

  await detail.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Remove server' }).click();
  await expect(serverRow(page, 'Twin')).toHaveCount(0);

  // From here on, any old tool that enters the page (even for one frame) is recorded.
  // (A script string: the test project has no DOM types.)
  await page.evaluate(`(() => {
    const seen = [];
    window.oldToolsSeen = seen;
    const old = '[data-tool="append"], [data-tool="slow"], [aria-label="Tool append"], [aria-label="Tool slow"]';
    const scan = () => {
      for (const element of document.querySelectorAll(old)) seen.push(element.getAttribute('data-tool') ?? element.getAttribute('aria-label'));
    };
    scan();
    new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, attributes: true });
  })()`);

  writeFileSync(toolsFile, 'echo');
  writeFileSync(gate, 'closed');
  await saveServer(host!, config);
  await expect(serverRow(page, 'Twin')).toContainText(/Connecting/i);
  await serverRow(page, 'Twin').click();
  await detail.getByRole('tab', { name: /Tools/ }).click();
  await openView(page, 'Tools');
  await expect(list.locator('[data-server="twin"]')).toHaveCount(0);

  rmSync(gate);
  await expect(list.locator('button[data-tool="echo"][data-server="twin"]')).toBeVisible({ timeout: 30_000 });
  await openView(page, 'Servers');
  await serverRow(page, 'Twin').click();
  await expect(detail.getByRole('listitem', { name: 'Tool echo' })).toBeVisible();
  await expect(detail.getByRole('listitem', { name: 'Tool append' })).toHaveCount(0);
  expect(await page.evaluate('window.oldToolsSeen')).toEqual([]);
});
