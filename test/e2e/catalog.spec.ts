/**
 * The Catalog end to end (issue 30): the real browser-mode host, the built renderer in Chromium,
 * the loopback registry double serving the registry's published server.json examples and an
 * entry for the real npm package `@modelcontextprotocol/server-everything` at a pinned version.
 * The official registry cannot be reached from here: the view says so in a sentence. Then:
 * search, install (a secret filled), the server starts sandboxed through `npx -y pkg@version`
 * (fetched from the npm registry this machine reaches), a tool is called and approved, the secret
 * is only in the secret store, and an update to a newer version shows what changes.
 *
 * Run: npx playwright test test/e2e/catalog.spec.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { RegistryDouble } from '../doubles/registry/registryDouble.js';
import { fixtureDocuments, startRegistryDouble } from '../doubles/registry/registryDouble.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, filesContaining, startWebHost } from './support/webHost.js';
import { openView } from './support/navigation.js';

// npx downloads the package on the first start: minutes on a slow network, not a margin.
test.describe.configure({ timeout: 420_000 });

const docs = fixtureDocuments();
const OLD = docs['everything-2026.8.18']!;
const NEW = docs['everything-2026.8.31']!;
const TOKEN = 'catalog-e2e-secret-7f3a91';

let scratch: string;
let host: WebHostProcess | undefined;
let registry: RegistryDouble | undefined;

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-catalog-'));
  registry = await startRegistryDouble([
    { doc: OLD },
    { doc: docs['weather-pypi']! },
    { doc: docs['brave-search']! },
    { doc: docs['hybrid-remote']! },
  ]);
  registry.extra = [{ server: { name: 'com.example/broken', description: 'no version' } }];
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  await registry?.close();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

function entry(page: Page, name: string) {
  return page.getByRole('list', { name: 'Catalog entries' }).locator(`li[data-entry="${name}"]`);
}

test('search, install an npm entry with a secret, call its tool with approval, update with a diff', async ({
  page,
}) => {
  await page.goto(host!.url);
  await openView(page, 'Catalog');
  // The official registry (the default) is not reachable from this machine: a sentence, not a hang.
  await expect(
    page.getByRole('note').filter({ hasText: 'Registry https://registry.modelcontextprotocol.io' }),
  ).toContainText(/could not be reached|did not answer/, { timeout: 60_000 });

  // The registries setting: the loopback double instead.
  await page.getByText('Registries', { exact: true }).click();
  await page.getByLabel('Registries, in order').fill(registry!.url);
  await page.getByRole('button', { name: 'Save registries' }).click();
  await expect(entry(page, 'io.github.modelcontextprotocol/everything')).toBeVisible();
  // A malformed entry is shown with its problem, beside the others.
  await expect(entry(page, 'com.example/broken')).toContainText('malformed');
  // A package this machine cannot run says so, with what to install.
  await expect(entry(page, 'io.github.example/weather-mcp')).toContainText('uvx is not installed on this machine');

  await page.getByRole('searchbox', { name: 'Search the catalog' }).fill('everything');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Catalog entries' }).locator('li[data-entry]')).toHaveCount(1);
  const everything = entry(page, 'io.github.modelcontextprotocol/everything');
  await expect(everything).toContainText('Everything');
  await expect(everything).toContainText('v2026.8.18');
  await expect(everything).toContainText('npm · stdio');
  await expect(everything.getByRole('link', { name: 'repository' })).toHaveAttribute(
    'href',
    'https://github.com/modelcontextprotocol/servers',
  );

  await everything.getByRole('button', { name: 'Install' }).click();
  const dialog = page.getByRole('dialog', { name: /Install io\.github\.modelcontextprotocol\/everything/ });
  await expect(dialog.getByTestId('install-summary')).toHaveText(
    'npx -y @modelcontextprotocol/server-everything@2026.8.18 stdio',
  );
  // Nothing is saved until it validates: the required secret is asked for.
  await dialog.getByRole('button', { name: 'Install' }).click();
  await expect(dialog).toContainText('Is required');
  const secret = dialog.getByLabel('EVERYTHING_TOKEN');
  await expect(secret).toHaveAttribute('type', 'password');
  await secret.fill(TOKEN);
  await dialog.getByRole('button', { name: 'Install' }).click();
  await expect(dialog).toBeHidden();
  await expect(everything).toContainText('installed');

  // The server starts (sandboxed, through npx) and gets ready.
  await openView(page, 'Servers');
  const row = page.getByRole('button', { name: /^Everything/ }).first();
  await expect(row).toContainText('Ready', { timeout: 300_000 });

  // Its tools ask: a call waits for approval, then runs.
  await openView(page, 'Tools');
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="echo"][data-server="everything"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call echo' });
  await expect(panel.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  await panel.getByLabel('message').fill('hello from the catalog');
  await panel.getByRole('button', { name: 'Run' }).click();
  const approval = page.getByRole('alertdialog');
  await expect(approval).toContainText('is not trusted');
  await approval.getByRole('button', { name: /^Allow once/ }).click();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('hello from the catalog');

  // The configuration: pinned, sandboxed, untrusted, its origin recorded; the secret only in the store.
  const config = JSON.parse(readFileSync(join(host!.dataDir, 'config.json'), 'utf8')) as {
    servers: Array<Record<string, unknown>>;
  };
  expect(config.servers[0]).toMatchObject({
    id: 'everything',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-everything@2026.8.18', 'stdio'],
    trusted: false,
    sandbox: { enabled: true, hosts: [] },
    env: { EVERYTHING_TOKEN: { secret: { source: 'store', key: 'server/everything/env.EVERYTHING_TOKEN' } } },
    catalog: { registry: registry!.url, name: 'io.github.modelcontextprotocol/everything', version: '2026.8.18' },
  });
  expect(filesContaining(host!.dataDir, TOKEN).filter((f) => f !== 'secrets.json')).toEqual([]);
  expect(await page.content()).not.toContain(TOKEN);

  // A newer version is published: the update shows what changes before it is applied.
  registry!.setDocuments([{ doc: OLD }, { doc: NEW, updatedAt: '2026-09-01T00:00:00Z' }]);
  await openView(page, 'Catalog');
  const updates = page.getByRole('region', { name: 'Updates available' });
  await expect(updates).toContainText('everything: 2026.8.18 → 2026.8.31');
  await updates.getByRole('button', { name: 'Review update' }).click();
  const update = page.getByRole('dialog', { name: 'Update everything' });
  const diff = update.getByRole('table', { name: 'What changes' });
  await expect(diff.getByRole('row', { name: /version/ })).toContainText('2026.8.182026.8.31');
  await expect(diff.getByRole('row', { name: /arguments/ })).toContainText(
    '@modelcontextprotocol/server-everything@2026.8.31',
  );
  await update.getByRole('button', { name: 'Apply update' }).click();
  await expect(update).toBeHidden();
  const after = JSON.parse(readFileSync(join(host!.dataDir, 'config.json'), 'utf8')) as {
    servers: Array<{ args: string[]; catalog: { version: string; history: Array<{ action: string }> } }>;
  };
  expect(after.servers[0]!.args).toContain('@modelcontextprotocol/server-everything@2026.8.31');
  expect(after.servers[0]!.catalog.history.map((h) => h.action)).toEqual(['installed', 'updated']);
  expect(filesContaining(host!.dataDir, TOKEN).filter((f) => f !== 'secrets.json')).toEqual([]);
});
