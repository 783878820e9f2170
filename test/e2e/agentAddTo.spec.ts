/**
 * "Add to …" end to end: the real browser-mode host, its home folder a scratch one (HOME, as
 * os.homedir() reads it), holding Cursor's ~/.cursor/mcp.json as a person keeps it (comments,
 * trailing commas, another server). Adding an agent, then "Add to Cursor" writes the gateway's
 * entry with its real address into that file, read back by the importer's reader; Undo restores
 * the file's bytes. A VS Code file that does not parse is left as it was, with a sentence.
 *
 * Run: npx playwright test test/e2e/agentAddTo.spec.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { planImport } from '../../electron/core/importer.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 120_000 });

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'agentConfigs');

let host: WebHostProcess | undefined;
let scratch: string | undefined;

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.afterEach(async () => {
  await host?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('Add to Cursor writes the gateway into ~/.cursor/mcp.json, and Undo gives the file its bytes back', async ({
  page,
}) => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-addto-'));
  const home = join(scratch, 'home');
  const cursorFile = join(home, '.cursor', 'mcp.json');
  const original = readFileSync(join(FIXTURES, 'cursor-mcp.json'));
  mkdirSync(dirname(cursorFile), { recursive: true });
  writeFileSync(cursorFile, original);
  const vscodeFile = join(home, '.config', 'Code', 'User', 'mcp.json');
  const broken = readFileSync(join(FIXTURES, 'broken-mcp.json'));
  mkdirSync(dirname(vscodeFile), { recursive: true });
  writeFileSync(vscodeFile, broken);

  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  delete process.env.XDG_CONFIG_HOME;
  try {
    host = await startWebHost({ dataDir: join(scratch, 'data') });
  } finally {
    process.env.HOME = saved.HOME;
    if (saved.XDG_CONFIG_HOME !== undefined) process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
  }

  await page.goto(host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Agents/ })
    .click();
  const gatewayUrl = (await page.getByTestId('gateway-url').textContent()) ?? '';
  expect(gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  await page.getByRole('button', { name: 'Add agent' }).first().click();
  const form = page.getByRole('dialog', { name: 'Add an agent' });
  await form.getByLabel('Name').fill('Cursor');
  await form.getByRole('button', { name: 'Add agent' }).click();
  const created = page.getByRole('dialog', { name: 'Agent “Cursor” added' });
  const token = await created.getByLabel('Token').inputValue();

  // VS Code's file does not parse: left as it was, and the panel says so.
  await created.getByRole('tab', { name: 'VS Code' }).click();
  await created.getByRole('button', { name: 'Add to VS Code' }).click();
  await expect(created.getByRole('alert')).toContainText('That config file was left as it was');
  expect(readFileSync(vscodeFile)).toEqual(broken);
  expect(readdirSync(dirname(vscodeFile))).toEqual(['mcp.json']);

  await created.getByRole('tab', { name: 'Cursor' }).click();
  await created.getByRole('button', { name: 'Add to Cursor' }).click();
  await expect(created.getByRole('note').filter({ hasText: 'Added to Cursor' })).toContainText(cursorFile);
  const written = readFileSync(cursorFile, 'utf8');
  const plan = planImport(written, 'mcp.json');
  expect(plan.servers.map((s) => s.name)).toEqual(['postgres', 'linear', 'miniharness']);
  expect(plan.servers[2]?.config).toMatchObject({ transport: 'streamable_http', url: gatewayUrl });
  expect(plan.servers[2]?.fileSecrets).toEqual({ 'auth.token': token });
  expect(written).toContain('// kept here by the person, not ours to move');
  const backups = readdirSync(dirname(cursorFile)).filter((name) => name.startsWith('mcp.json.miniharness-backup-'));
  expect(backups).toHaveLength(1);
  expect(readFileSync(join(dirname(cursorFile), backups[0]!))).toEqual(original);

  await created.getByRole('button', { name: 'Undo' }).click();
  await expect(created.getByRole('note').filter({ hasText: 'Undone' })).toBeVisible();
  expect(readFileSync(cursorFile)).toEqual(original);
  expect(readdirSync(dirname(cursorFile))).toEqual(['mcp.json']);
});
