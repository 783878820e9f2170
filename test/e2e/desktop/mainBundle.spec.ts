/**
 * The BUILT main bundle (out/main/main.js, what Electron would run) in plain Node against the
 * `electron` double: what it does before and after ready, the window it opens (built preload and
 * renderer, the security options), the IPC handler's sender check, the database in the user-data
 * folder, and a clean quit while a call is in flight. test/shell/main.test.ts covers the same
 * shell from its TypeScript source with vi.mock; this one catches what only the bundle can get
 * wrong (paths relative to out/, externalized imports, module format, top-level order).
 */
import { existsSync, mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { CONTENT_SECURITY_POLICY } from '../../../electron/shell/csp.js';
import { windowOptions } from '../../../electron/shell/windowOptions.js';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../../shared/preloadApi.js';
import { buildAppOnce } from '../support/webHost.js';
import type { BuiltMain, DoubleRecord } from './support/builtMain.js';
import { MAIN_BUNDLE, PRELOAD_BUNDLE, RENDERER_INDEX, startBuiltMain } from './support/builtMain.js';

/** What Electron allows (and this app needs) before 'ready': nothing that makes a window, a session, a tray or IPC. */
const ALLOWED_BEFORE_READY = new Set([
  'app.enableSandbox',
  'app.setAppUserModelId',
  'app.commandLine.getSwitchValue',
  'app.commandLine.hasSwitch',
  'app.commandLine.appendSwitch',
  'app.getPath',
  'app.setPath',
  'app.requestSingleInstanceLock',
  'app.isPackaged',
  'app.on',
  'app.once',
  'app.whenReady',
  'app.quit',
  'app.exit',
  'protocol.registerSchemesAsPrivileged',
]);

const FORBIDDEN_SENDER = { ok: false, error: { code: 'forbidden_sender', message: expect.any(String) } };

function firstBytes(file: string, count: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(count);
    readSync(fd, buffer, 0, count, 0);
    return buffer;
  } finally {
    closeSync(fd);
  }
}

test.describe('the built main bundle against the electron double', () => {
  let dir: string;
  let main: BuiltMain;

  test.beforeAll(() => {
    buildAppOnce();
    expect(existsSync(MAIN_BUNDLE), `${MAIN_BUNDLE} (npm run build)`).toBe(true);
  });

  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mh-built-main-'));
    main = startBuiltMain({ userDataDir: join(dir, 'data'), workspaceDir: join(dir, 'workspace') });
  });

  test.afterEach(() => {
    main.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  test('starts like a desktop app, checks its IPC senders, and quits cleanly with a call in flight', async () => {
    const window = await main.waitFor((r) => r.kind === 'window', 'a BrowserWindow');
    const load = await main.waitFor((r) => r.kind === 'load', 'the window loads a page');
    await main.waitFor((r) => r.kind === 'call' && r['api'] === 'ipcMain.handle', 'the IPC handler');

    await test.step('before ready: only what Electron allows there, nothing window-ish', () => {
      const ready = main.records.find((r) => r.kind === 'ready');
      expect(ready, 'app.whenReady() resolved').toBeDefined();
      const before = main.records.filter((r) => r.seq < (ready as DoubleRecord).seq);
      const calls = before.filter((r) => r.kind === 'call').map((r) => String(r['api']));
      expect(calls).toContain('app.enableSandbox');
      expect(calls).toContain('app.requestSingleInstanceLock');
      // userData is set from --user-data-dir before the single-instance lock (which lives there).
      expect(calls.indexOf('app.setPath')).toBeLessThan(calls.indexOf('app.requestSingleInstanceLock'));
      expect(
        calls.filter((api) => !ALLOWED_BEFORE_READY.has(api)),
        'calls before ready outside the allowed ones',
      ).toEqual([]);
      expect(
        before.filter((r) => r.kind !== 'call').map((r) => r.kind),
        'windows, loads, sends before ready',
      ).toEqual([]);
    });

    await test.step('one window: the built preload, the built renderer over file://, the security options', () => {
      const options = window['options'] as ReturnType<typeof windowOptions>;
      expect(options.webPreferences?.preload).toBe(PRELOAD_BUNDLE);
      expect(existsSync(PRELOAD_BUNDLE), PRELOAD_BUNDLE).toBe(true);
      expect(options).toEqual(windowOptions(PRELOAD_BUNDLE));
      expect(options.webPreferences).toMatchObject({
        sandbox: true,
        contextIsolation: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
      });
      expect(load).toMatchObject({ how: 'loadFile', target: RENDERER_INDEX, url: pathToFileURL(RENDERER_INDEX).href });
      expect(existsSync(RENDERER_INDEX), RENDERER_INDEX).toBe(true);
      expect(main.records.filter((r) => r.kind === 'window')).toHaveLength(1);
      // MCP Apps run in this webContents' frames: no WebRTC UDP except through a proxy.
      expect(
        main.records.filter((r) => r.kind === 'call' && r['api'] === 'webContents.setWebRTCIPHandlingPolicy'),
      ).toMatchObject([{ args: ['disable_non_proxied_udp'] }]);
    });

    await test.step("the session sends the app's CSP on responses", async () => {
      const response = (await main.headers(pathToFileURL(RENDERER_INDEX).href)) as {
        responseHeaders: Record<string, string[]>;
      };
      expect(response.responseHeaders['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    });

    await test.step('IPC: a genuine sender gets app.info, forged ones are refused', async () => {
      expect(await main.invoke('genuine', IPC_INVOKE_CHANNEL, 'app.info', {})).toMatchObject({
        ok: true,
        result: { mode: 'electron', version: '0.0.0-electron-double' },
      });
      for (const forged of ['wrong-url', 'subframe', 'other-contents', 'no-frame'] as const) {
        expect(await main.invoke(forged, IPC_INVOKE_CHANNEL, 'app.info', {}), forged).toEqual(FORBIDDEN_SENDER);
      }
    });

    await test.step('the database is SQLite in the user-data folder', () => {
      const db = join(dir, 'data', 'miniharness.db');
      expect(existsSync(db), db).toBe(true);
      expect(firstBytes(db, 16).toString('latin1')).toBe('SQLite format 3\0');
    });

    await test.step('quit while a call waits for approval: the core closes, the process exits 0', async () => {
      const call = main.invoke('genuine', IPC_INVOKE_CHANNEL, 'tools.call', {
        name: 'write_file',
        serverId: 'local',
        args: { path: 'note.txt', content: 'from the built bundle' },
        callId: 'built-main-0001',
      });
      const asked = await main.waitFor(
        (r) =>
          r.kind === 'send' &&
          r['channel'] === IPC_EVENT_CHANNEL &&
          (r['args'] as unknown[])[0] === 'approval.requested',
        'the approval request reaches the window',
      );
      expect(asked['contentsId']).toBe(window['contentsId']);
      // Settle the in-flight call either way; the exit is what is asserted.
      const settled = call.then(
        (result) => ({ result }),
        (error: unknown) => ({ error: String(error) }),
      );
      main.quit();
      const exit = await main.exited;
      expect(exit, main.stderr()).toEqual({ code: 0, signal: null });
      expect(main.records.filter((r) => r.kind === 'unhandled-rejection').map((r) => r['message'])).toEqual([]);
      expect(main.records.find((r) => r.kind === 'exit')).toMatchObject({ code: 0, via: 'quit' });
      expect(main.stderr()).not.toMatch(/Closing the app core (failed|took too long)|could not start|Unhandled/);
      // app.exit(1) was never needed, and the quit went through the app's before-quit guard (two app.quit calls).
      expect(main.records.filter((r) => r.kind === 'call' && r['api'] === 'app.exit')).toEqual([]);
      await settled;
    });
  });
});
