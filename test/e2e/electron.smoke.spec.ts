/**
 * Smoke test of the real Electron app (Playwright's `_electron`): the window opens on the app's
 * page, the page sees the preload's named functions but no Node.js and no ipcRenderer, a call
 * goes through the sender-checked IPC to the core, the Servers view lists a server configured
 * before start (it connects over stdio), and an approval dialog answers a call that asks.
 * Needs the Electron binary (fetched by `npm start` on first run), a display on Linux, and a
 * build (`npx electron-vite build`); skips with one line where it cannot run. The database module
 * needs nothing: better-sqlite3's Node-API prebuild loads in Electron as it is.
 *
 * Run: npx playwright test test/e2e/electron.smoke.spec.ts
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ElectronApplication } from '@playwright/test';
import { _electron, expect, test } from '@playwright/test';
import { decideLaunch, electronEnv } from '../../scripts/startDecision.mjs';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { stdioFixtureConfig } from '../helpers/fixtures.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const decision = decideLaunch({
  root,
  platform: process.platform,
  env: process.env,
  exists: existsSync,
  readText: (path) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined),
});
const readText = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const built =
  existsSync(join(root, 'out', 'main', 'main.js')) && existsSync(join(root, 'out', 'preload', 'preload.cjs'));

// One line saying why, e.g. "Electron runtime not available (no binary in node_modules/electron)".
const skipReason =
  decision.mode !== 'electron'
    ? decision.reason
    : !built
      ? 'the app is not built (run `npx electron-vite build` first)'
      : undefined;
test.skip(skipReason !== undefined, skipReason);

let userData: string;
test.beforeEach(() => {
  // A throwaway profile: no real settings or secrets are touched, and no single-instance clash.
  userData = mkdtempSync(join(tmpdir(), 'mh-e2e-'));
});
test.afterEach(() => {
  rmSync(userData, { recursive: true, force: true });
  rmSync(`${userData}-workspace`, { recursive: true, force: true });
});

async function launch(): Promise<ElectronApplication> {
  if (decision.mode !== 'electron') throw new Error('no Electron here');
  return _electron.launch({
    executablePath: decision.electronPath,
    // The workspace beside the profile, never in the real home folder.
    args: ['.', `--user-data-dir=${userData}`, `--workspace=${userData}-workspace`],
    cwd: root,
    env: { ...electronEnv(process.env), ELECTRON_RENDERER_URL: '' } as Record<string, string>,
  });
}

test('opens the app window with the preload API and without Node.js in the page', async () => {
  const app = await launch();
  try {
    const page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
    await expect(page).toHaveTitle(/MiniHarness/);
    expect(page.url()).toMatch(/^file:\/\/.*\/out\/renderer\/index\.html/);

    const exposed = await page.evaluate(() => {
      const g = globalThis as unknown as Record<string, unknown>;
      const api = g['miniharness'] as { calls?: Record<string, unknown>; events?: Record<string, unknown> } | undefined;
      return {
        keys: api ? Object.keys(api).sort() : [],
        appInfo: typeof api?.calls?.['app.info'],
        serversChanged: typeof api?.events?.['servers.changed'],
        ipcInApi: api ? 'ipcRenderer' in api : false,
        ipcInWindow: 'ipcRenderer' in g,
        require: typeof g['require'],
        process: typeof g['process'],
        module: typeof g['module'],
      };
    });
    expect(exposed).toEqual({
      keys: ['calls', 'events'],
      appInfo: 'function',
      serversChanged: 'function',
      ipcInApi: false,
      ipcInWindow: false,
      require: 'undefined',
      process: 'undefined',
      module: 'undefined',
    });

    // A call through the preload reaches the core (the sender check lets the app page through).
    const info = await page.evaluate(async () => {
      const api = (
        globalThis as unknown as Record<string, { calls: Record<string, (p: unknown) => Promise<unknown>> }>
      )['miniharness'];
      return api?.calls['app.info']?.({});
    });
    expect(info).toMatchObject({ ok: true, result: { mode: 'electron' } });

    // window.open never creates a window.
    await page.evaluate(() => {
      (globalThis as unknown as { open(url: string): unknown }).open('file:///etc/passwd');
    });
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
  }
});

test('the Servers view lists a configured server, and an approval dialog answers a call that asks', async () => {
  test.setTimeout(120_000);
  await buildFixtureServers();
  const counter = join(userData, 'counter.txt');
  // Configured before start, as a person's saved configuration: the stdio fixture, untrusted (its tools ask).
  mkdirSync(userData, { recursive: true });
  writeFileSync(
    join(userData, 'config.json'),
    JSON.stringify({
      servers: [stdioFixtureConfig('fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }, { name: 'Fixture' })],
    }),
  );
  const app = await launch();
  try {
    const page = await app.firstWindow();
    await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
    const list = page.getByRole('navigation', { name: 'Server list' });
    await expect(list).toContainText('Fixture');
    await expect(list.locator('[data-state="ready"]')).toBeVisible({ timeout: 30_000 });

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Tools/ })
      .click();
    await page
      .getByRole('navigation', { name: 'Tool list' })
      .locator('button[data-tool="append"][data-server="fx"]')
      .click();
    const panel = page.getByRole('region', { name: 'Call append' });
    await panel.getByLabel('line').fill('from-electron');
    await panel.getByRole('button', { name: 'Run' }).click();

    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toContainText('"line": "from-electron"');
    expect(readText(counter)).toBeUndefined(); // nothing ran before the answer
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(dialog).toBeHidden();
    await expect(panel.getByRole('region', { name: 'Result' })).toContainText('appended from-electron');
    expect(readText(counter)).toBe('from-electron\n');
  } finally {
    await app.close();
  }
});
