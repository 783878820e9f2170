/**
 * electron/main.ts started as the stdio entry (`<app> --gateway-stdio …`, how a packaged app,
 * which has no Node, is spawned by agents), run in plain Node against a double of `electron`:
 * it relays window-less — no sandbox setup, no data folder, no single-instance lock, no window or
 * tray, the Dock icon hidden — and exits with the relay's code; a usage error is one sentence and exit 2.
 * The relay itself (stdioProxy.ts) is the one the bin runs, tested as a real process in
 * test/gateway/stdioEntry.test.ts; here it is a double that records what it was given.
 */
import { basename } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({
  calls: [] as string[],
  exitCodes: [] as number[],
  relays: [] as Array<{
    args: { url: URL; token: string; client: string };
    onExit: (code: number) => void;
    startHint?: string;
  }>,
  coreBuilt: 0,
}));

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  const record = (name: string) => () => void fake.calls.push(name);
  const app = Object.assign(new EventEmitter(), {
    isPackaged: true,
    dock: { hide: record('dock.hide') },
    enableSandbox: record('enableSandbox'),
    setAppUserModelId: record('setAppUserModelId'),
    requestSingleInstanceLock: () => (fake.calls.push('requestSingleInstanceLock'), true),
    // Never ready: the app's start (window, core) is test/shell/main.test.ts's; here only its first steps.
    whenReady: () => (fake.calls.push('whenReady'), new Promise<never>(() => undefined)),
    getPath: () => '/nonexistent',
    setPath: record('setPath'),
    commandLine: { getSwitchValue: () => '' },
    getVersion: () => '9.9.9',
    getAppPath: () => '/nonexistent/app',
    quit: record('quit'),
    exit: (code: number) => void fake.exitCodes.push(code),
  });
  class BrowserWindow {
    constructor() {
      fake.calls.push('BrowserWindow');
    }
  }
  class Tray {
    constructor() {
      fake.calls.push('Tray');
    }
  }
  const none = {};
  const protocol = { registerSchemesAsPrivileged: record('registerSchemesAsPrivileged') };
  return {
    app,
    BrowserWindow,
    Tray,
    Notification: class {},
    Menu: none,
    nativeImage: none,
    ipcMain: none,
    session: none,
    protocol,
    shell: none,
    dialog: none,
    safeStorage: none,
    default: {},
  };
});

vi.mock('../../electron/core/core.js', () => ({
  buildCore: async () => {
    fake.coreBuilt++;
    throw new Error('the relay must not build the app core');
  },
}));

// electron-store imports the real `electron` (which downloads in plain Node); the relay never opens
// the config store, so its double only says so.
vi.mock('electron-store', () => {
  throw new Error('the relay must not open the config store');
});

vi.mock('../../electron/gateway/stdioProxy.js', () => ({
  START_INSTALLED_APP: 'open MiniHarness Desktop',
  relayProcessStdio: async (
    args: { url: URL; token: string; client: string },
    onExit: (code: number) => void,
    startHint?: string,
  ) => void fake.relays.push({ args, onExit, startHint }),
}));

const savedArgv = process.argv;
const savedToken = process.env['MINIHARNESS_GATEWAY_TOKEN'];
let stderr: string[];

beforeEach(() => {
  vi.resetModules();
  fake.calls.length = 0;
  fake.exitCodes.length = 0;
  fake.relays.length = 0;
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => (stderr.push(String(chunk)), true),
  );
});

afterEach(() => {
  vi.restoreAllMocks();
  process.argv = savedArgv;
  if (savedToken === undefined) delete process.env['MINIHARNESS_GATEWAY_TOKEN'];
  else process.env['MINIHARNESS_GATEWAY_TOKEN'] = savedToken;
});

async function startMain(args: string[], token: string | undefined): Promise<void> {
  process.argv = [process.execPath, ...args];
  if (token === undefined) delete process.env['MINIHARNESS_GATEWAY_TOKEN'];
  else process.env['MINIHARNESS_GATEWAY_TOKEN'] = token;
  await import('../../electron/main.js');
}

describe('electron/main.ts with --gateway-stdio', () => {
  it("relays window-less with the parsed options and exits with the relay's code", async () => {
    await startMain(
      ['--gateway-stdio', '--client', 'Claude Desktop', '--url', 'http://127.0.0.1:5123/mcp'],
      'mhg_token',
    );
    expect(fake.relays).toHaveLength(1);
    expect(fake.relays[0]!.args).toEqual({
      client: 'Claude Desktop',
      token: 'mhg_token',
      url: new URL('http://127.0.0.1:5123/mcp'),
    });
    // "Not running" tells the installed app's person to open it, not to run npm.
    expect(fake.relays[0]!.startHint).toBe('open MiniHarness Desktop');
    // Nothing of the app: only the Dock icon hidden.
    expect(fake.calls).toEqual(['dock.hide']);
    expect(fake.exitCodes).toEqual([]);
    fake.relays[0]!.onExit(1);
    expect(fake.exitCodes).toEqual([1]);
    expect(fake.coreBuilt).toBe(0);
    expect(stderr).toEqual([]);
  });

  it('a usage error: one sentence naming the app binary and the flag, exit 2, no relay', async () => {
    await startMain(['--gateway-stdio', '--nope'], 'mhg_token');
    expect(fake.relays).toEqual([]);
    expect(fake.exitCodes).toEqual([2]);
    // The running executable (here Node itself; in a packaged app, the app binary).
    expect(stderr).toEqual([
      `miniharness-gateway: Unknown option '--nope'. Usage: ${basename(process.execPath)} --gateway-stdio --client <name> [--url http://127.0.0.1:47813/mcp]\n`,
    ]);
    expect(fake.calls).toEqual(['dock.hide']);
  });

  it('no token: the sentence saying where to get it, exit 2', async () => {
    await startMain(['--gateway-stdio', '--client', 'Cursor'], undefined);
    expect(fake.exitCodes).toEqual([2]);
    expect(stderr).toEqual([
      "miniharness-gateway: set MINIHARNESS_GATEWAY_TOKEN to the agent's token (MiniHarness → Agents → Connect an agent).\n",
    ]);
  });

  it('without the flag it is the app: sandbox, data folder and the single-instance lock come first', async () => {
    await startMain([], undefined);
    expect(fake.calls.slice(0, 3)).toEqual(['enableSandbox', 'setPath', 'requestSingleInstanceLock']);
    expect(fake.calls).not.toContain('dock.hide');
    expect(fake.relays).toEqual([]);
  });
});
