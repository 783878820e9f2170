/**
 * Smoke test of the real Electron app (Playwright's `_electron`): the window opens on the app's
 * page, the page sees the preload's named functions but no Node.js and no ipcRenderer, and a
 * call goes through the sender-checked IPC to the core. Needs the Electron binary, a display
 * on Linux, and a build (`npx electron-vite build`); skips with one line where it cannot run.
 *
 * Run: npx playwright test test/e2e/electron.smoke.spec.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, expect, test } from '@playwright/test';
import { decideLaunch, electronEnv } from '../../scripts/startDecision.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const decision = decideLaunch({
  root,
  platform: process.platform,
  env: process.env,
  exists: existsSync,
  readText: (path) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined),
});
const built = existsSync(join(root, 'out', 'main', 'main.js')) && existsSync(join(root, 'out', 'preload', 'preload.cjs'));

// One line saying why, e.g. "Electron runtime not available (no binary in node_modules/electron)".
const skipReason = decision.mode !== 'electron' ? decision.reason : !built ? 'the app is not built (run `npx electron-vite build` first)' : undefined;
test.skip(skipReason !== undefined, skipReason);

test('opens the app window with the preload API and without Node.js in the page', async () => {
  if (decision.mode !== 'electron') return;
  // A throwaway profile: no real settings or secrets are touched, and no single-instance clash.
  const userData = mkdtempSync(join(tmpdir(), 'mh-e2e-'));
  const app = await _electron.launch({
    executablePath: decision.electronPath,
    args: ['.', `--user-data-dir=${userData}`],
    cwd: root,
    env: { ...electronEnv(process.env), ELECTRON_RENDERER_URL: '' } as Record<string, string>,
  });
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
      const api = (globalThis as unknown as Record<string, { calls: Record<string, (p: unknown) => Promise<unknown>> }>)['miniharness'];
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
    rmSync(userData, { recursive: true, force: true });
  }
});
