/**
 * A damaged file in Chromium: the real browser-mode host starts over a data folder whose
 * database is not a database; the page shows a banner naming the file, what was lost and where
 * the bytes were kept, and Settings lists it among the startup warnings. Dismissing hides it.
 *
 * Run: npx playwright test test/e2e/damagedFiles.spec.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

let scratch: string;
let host: WebHostProcess | undefined;

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

test('a damaged database is named in a banner with what was lost, and in Settings', async ({ page }, testInfo) => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-damaged-'));
  const dataDir = join(scratch, 'data');
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, 'miniharness.db'), 'half a download, not a database');
  host = await startWebHost({ dataDir });
  const movedTo = readdirSync(dataDir).find((name) => name.startsWith('miniharness.db.corrupt-'));
  expect(movedTo).toMatch(/^miniharness\.db\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);

  await page.goto(host.url);
  const banner = page.getByRole('alert', { name: 'Damaged file miniharness.db' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('miniharness.db was damaged and moved aside.');
  await expect(banner).toContainText('is not a valid SQLite database');
  await expect(banner).toContainText('call history and traces');
  await expect(banner).toContainText(join(dataDir, movedTo ?? ''));
  const shot = testInfo.outputPath('damaged-banner.png');
  await page.screenshot({ path: shot });
  await testInfo.attach('damaged-banner', { path: shot, contentType: 'image/png' });

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Startup warnings' })).toContainText(
    'miniharness.db was damaged and moved aside.',
  );

  await banner.getByRole('button', { name: 'Dismiss warning' }).click();
  await expect(banner).toBeHidden();
});
