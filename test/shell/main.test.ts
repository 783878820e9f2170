/**
 * The glue in electron/main.ts, run in plain Node against a double of the `electron` module
 * (vi.mock: the real package is never loaded) and a double of the app core: single-instance
 * lock, sandbox, window options, guards on every webContents, session hardening, the IPC handler's
 * sender check, event forwarding, approval
 * notifications and badge, closing into the tray, and closing the core once on quit.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreOptions } from '../../electron/core/types.js';
import { CONTENT_SECURITY_POLICY } from '../../electron/shell/csp.js';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../shared/preloadApi.js';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => ({
  userData: '',
  /** app.getAppPath(): a scratch "project" folder. */
  appPath: '',
  badgeCounts: [] as number[],
  notifications: [] as Array<{
    title: string;
    body: string;
    shown: boolean;
    closed: boolean;
    emit(event: string, ...args: unknown[]): void;
  }>,
  trays: [] as Array<{ destroyed: boolean; tooltip: string; menu: Array<{ label: string; click(): void }> }>,
  app: undefined as unknown as EventEmitter & Record<string, unknown>,
  windows: [] as Array<Record<string, unknown>>,
  ipcHandlers: new Map<string, (...args: unknown[]) => unknown>(),
  session: {} as Record<string, (...args: unknown[]) => unknown>,
  /** protocol.registerSchemesAsPrivileged's schemes, and the schemes the session's protocol handles. */
  privilegedSchemes: [] as Array<{ scheme: string }>,
  handledSchemes: new Map<string, (request: Request) => Response>(),
  openExternal: [] as string[],
  appMenus: [] as unknown[],
  quitCalls: 0,
  exitCodes: [] as number[],
  sandboxEnabled: false,
  core: {
    options: undefined as unknown,
    listener: undefined as undefined | ((event: string, payload: unknown) => void),
    dispatched: [] as Array<[unknown, unknown]>,
    started: 0,
    closed: 0,
  },
}));

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  const { pathToFileURL } = await import('node:url');
  const { isAbsolute, relative } = await import('node:path');
  const { SafeStorageDouble } = await import('../doubles/electron/safeStorageDouble.js');

  const app = Object.assign(new EventEmitter(), {
    isPackaged: false,
    enableSandbox: () => void (fake.sandboxEnabled = true),
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    paths: new Map<string, string>([['appData', '/nonexistent/appData']]),
    getPath: (name: string) => app.paths.get(name) ?? `/nonexistent/${name}`,
    // Electron's app.setPath throws on a relative path.
    setPath: (name: string, path: string) => {
      if (!isAbsolute(path)) throw new Error(`Path must be absolute: ${path}`);
      app.paths.set(name, path);
    },
    // As `electron . --user-data-dir=<tmp>` would pass it, relative to the working folder (main resolves it).
    commandLine: {
      getSwitchValue: (name: string) => (name === 'user-data-dir' ? relative(process.cwd(), fake.userData) : ''),
    },
    getVersion: () => '9.9.9',
    getAppPath: () => fake.appPath,
    setBadgeCount: (count: number) => void fake.badgeCounts.push(count),
    // Electron: before-quit listeners may prevent the quit; otherwise the app quits.
    quit: () => {
      fake.quitCalls++;
      let prevented = false;
      app.emit('before-quit', { preventDefault: () => void (prevented = true) });
      if (!prevented) app.emit('quit-done');
    },
    exit: (code: number) => void fake.exitCodes.push(code),
  });
  fake.app = app as never;

  let nextId = 1;
  class FakeWebContents extends EventEmitter {
    id = nextId++;
    url = '';
    sent: unknown[][] = [];
    openHandler?: Handler;
    // WebFrameMain of the top frame: its URL is whatever the window loaded.
    mainFrame = ((contents: FakeWebContents) => ({
      frameTreeNodeId: 1,
      parent: null,
      detached: false,
      origin: 'file://',
      get url() {
        return contents.url;
      },
    }))(this);
    getURL() {
      return this.url;
    }
    send(...args: unknown[]) {
      this.sent.push(args);
    }
    setWindowOpenHandler(handler: Handler) {
      this.openHandler = handler;
    }
    setWebRTCIPHandlingPolicy(policy: string) {
      this.webRtcIpHandlingPolicy = policy;
    }
    webRtcIpHandlingPolicy?: string;
  }
  class BrowserWindow extends EventEmitter {
    webContents = new FakeWebContents();
    focused = 0;
    visible = true;
    hasFocus = true;
    flashing = false;
    constructor(readonly options: unknown) {
      super();
      fake.windows.push(this as never);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadFile(file: string) {
      this.webContents.url = pathToFileURL(file).href;
      return Promise.resolve();
    }
    loadURL(url: string) {
      this.webContents.url = url;
      return Promise.resolve();
    }
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return false;
    }
    isVisible() {
      return this.visible;
    }
    isFocused() {
      return this.hasFocus;
    }
    restore() {}
    show() {
      this.visible = true;
    }
    showInactive() {
      this.visible = true;
    }
    hide() {
      this.visible = false;
      this.hasFocus = false;
    }
    focus() {
      this.focused++;
      this.hasFocus = true;
    }
    flashFrame(on: boolean) {
      this.flashing = on;
    }
    setOverlayIcon() {}
  }
  class Notification extends EventEmitter {
    title: string;
    body: string;
    shown = false;
    closed = false;
    static isSupported() {
      return true;
    }
    constructor(options: { title: string; body: string }) {
      super();
      this.title = options.title;
      this.body = options.body;
      fake.notifications.push(this as never);
    }
    show() {
      this.shown = true;
    }
    close() {
      this.closed = true;
    }
  }
  class Tray extends EventEmitter {
    destroyed = false;
    tooltip = '';
    menu: unknown[] = [];
    constructor() {
      super();
      fake.trays.push(this as never);
    }
    setToolTip(text: string) {
      this.tooltip = text;
    }
    setContextMenu(menu: unknown[]) {
      this.menu = menu;
    }
    destroy() {
      this.destroyed = true;
    }
  }
  const Menu = {
    buildFromTemplate: (template: unknown[]) => template,
    setApplicationMenu: (menu: unknown) => void fake.appMenus.push(menu),
  };
  const nativeImage = { createFromBitmap: (buffer: Buffer, size: object) => ({ buffer, size }) };
  const ipcMain = {
    handle: (channel: string, handler: Handler) => void fake.ipcHandlers.set(channel, handler),
    removeAllListeners: () => undefined,
  };
  const session = {
    defaultSession: {
      setPermissionRequestHandler: (h: Handler) => void (fake.session['request'] = h),
      setPermissionCheckHandler: (h: Handler) => void (fake.session['check'] = h),
      setDevicePermissionHandler: (h: Handler) => void (fake.session['device'] = h),
      webRequest: { onHeadersReceived: (h: Handler) => void (fake.session['headers'] = h) },
      protocol: {
        handle: (scheme: string, h: (request: Request) => Response) => void fake.handledSchemes.set(scheme, h),
      },
    },
  };
  const protocol = {
    registerSchemesAsPrivileged: (schemes: Array<{ scheme: string }>) => void fake.privilegedSchemes.push(...schemes),
  };
  const shell = { openExternal: async (url: string) => void fake.openExternal.push(url) };
  const dialog = { showErrorBox: () => undefined };
  const safeStorage = new SafeStorageDouble({ backend: 'basic_text' });
  return {
    app,
    BrowserWindow,
    Notification,
    Tray,
    Menu,
    nativeImage,
    ipcMain,
    session,
    protocol,
    shell,
    dialog,
    safeStorage,
    default: {},
  };
});

// electron-store imports the real `electron`; conf is the same store without it.
vi.mock('electron-store', async () => {
  const { default: Conf } = await import('conf');
  class ElectronStore extends Conf<Record<string, unknown>> {
    constructor(options: { cwd: string; name: string; configFileMode?: number }) {
      super({ cwd: options.cwd, configName: options.name, configFileMode: options.configFileMode ?? 0o666 });
    }
  }
  return { default: ElectronStore };
});

vi.mock('../../electron/core/core.js', () => ({
  buildCore: async (options: unknown) => {
    fake.core.options = options;
    return {
      dispatch: async (channel: unknown, payload: unknown) => {
        // The shell asks for the settings once at start (keep running on close: the default, on).
        if (channel === 'settings.get') return { ok: true, result: { roots: [], keepRunningOnClose: true } };
        fake.core.dispatched.push([channel, payload]);
        return { ok: true, result: { channel } };
      },
      onEvent: (listener: (event: string, payload: unknown) => void) => {
        fake.core.listener = listener;
        return () => undefined;
      },
      start: async () => void fake.core.started++,
      close: async () => {
        await new Promise((r) => setTimeout(r, 10));
        fake.core.closed++;
      },
    };
  },
}));

let window: Record<string, unknown> & {
  webContents: EventEmitter &
    Record<string, unknown> & { url: string; sent: unknown[][]; openHandler?: Handler; id: number };
};
const savedRendererUrl = process.env['ELECTRON_RENDERER_URL'];

const logged: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  fake.userData = mkdtempSync(join(tmpdir(), 'mh-main-'));
  fake.appPath = mkdtempSync(join(tmpdir(), 'mh-main-app-'));
  delete process.env['ELECTRON_RENDERER_URL'];
  await import('../../electron/main.js');
  await vi.waitFor(() => expect(fake.windows).toHaveLength(1));
  window = fake.windows[0] as typeof window;
});

afterAll(() => {
  vi.restoreAllMocks();
  if (savedRendererUrl !== undefined) process.env['ELECTRON_RENDERER_URL'] = savedRendererUrl;
  rmSync(fake.userData, { recursive: true, force: true });
  rmSync(fake.appPath, { recursive: true, force: true });
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
});

function invoke(event: unknown, channel: unknown, payload: unknown) {
  const handler = fake.ipcHandlers.get(IPC_INVOKE_CHANNEL);
  if (!handler) throw new Error('no IPC handler');
  return handler(event, channel, payload) as Promise<unknown>;
}

function eventFrom(frame: Record<string, unknown> | null, sender = window.webContents) {
  return { senderFrame: frame, sender };
}

describe('electron/main.ts (against an electron double)', () => {
  it('enables the sandbox for every renderer and creates one hardened window on the built page', () => {
    expect(fake.sandboxEnabled).toBe(true);
    const options = window['options'] as { webPreferences: Record<string, unknown> };
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String(options.webPreferences['preload'])).toMatch(/[/\\]preload[/\\]preload\.cjs$/);
    expect(window.webContents.url).toMatch(/^file:\/\/.*\/renderer\/index\.html$/);
    // The web-contents-created guard ran for the window's webContents.
    expect(window.webContents.listenerCount('will-navigate')).toBe(1);
    expect(window.webContents.listenerCount('will-attach-webview')).toBe(1);
    expect(window.webContents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(fake.openExternal).toEqual(['https://example.com/']);
    // Run from the project, Electron's default menu (with DevTools) stays; packages get shell/appMenu.ts's.
    expect(fake.appMenus).toEqual([]);
  });

  it('uses --user-data-dir, else <appData>/MiniHarness Desktop, as the data folder (a relative one resolved against the working folder)', () => {
    expect(relative(process.cwd(), fake.userData)).not.toMatch(/^\//);
    expect((fake.app['getPath'] as (n: string) => string)('userData')).toBe(fake.userData);
  });

  it('hands the core the user data folder, the safeStorage store and the electron-store config', () => {
    const options = fake.core.options as CoreOptions;
    expect(options.mode).toBe('electron');
    expect(options.dataDir).toBe(fake.userData);
    // The workspace default is outside the data folder (the core only checks it; its double creates nothing).
    expect(options.workspaceDir).toBe(process.env.MINIHARNESS_WORKSPACE || join(homedir(), 'MiniHarness', 'workspace'));
    expect(options.version).toBe('9.9.9');
    // Run from a checkout (not packaged): node and the project's bin, as "Connect an agent" shows it.
    expect(options.gateway?.stdio).toEqual({
      command: 'node',
      args: [join(fake.appPath, 'bin', 'miniharness-gateway.mjs')],
    });
    expect(options.secrets.describe()).toMatchObject({ kind: 'safeStorage', secure: false });
    expect(options.config.path).toBe(join(fake.userData, 'config.json'));
    expect(fake.core.started).toBe(1);
  });

  it('denies permissions and sets the CSP on the session', () => {
    const callback = vi.fn();
    fake.session['request']?.({}, 'media', callback, {});
    expect(callback).toHaveBeenCalledWith(false);
    expect(fake.session['check']?.(null, 'notifications', 'file://', {})).toBe(false);
    const headers = vi.fn();
    fake.session['headers']?.({ responseHeaders: {} }, headers);
    expect(headers).toHaveBeenCalledWith({ responseHeaders: { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });

  it('serves MCP Apps’ sandbox scheme, declared privileged before ready, on the window’s session', async () => {
    expect(fake.privilegedSchemes.map((s) => s.scheme)).toEqual(['mh-app-sandbox']);
    const response = fake.handledSchemes.get('mh-app-sandbox')?.(new Request('mh-app-sandbox://proxy/proxy'));
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-security-policy')).toContain('frame-ancestors file:');
    const headers = vi.fn();
    fake.session['headers']?.({ url: 'mh-app-sandbox://proxy/proxy', responseHeaders: {} }, headers);
    expect(headers).toHaveBeenCalledWith({});
  });

  it('dispatches IPC from the main frame of the window and refuses everything else', async () => {
    const mainFrame = window.webContents['mainFrame'] as Record<string, unknown>;
    await expect(invoke(eventFrom(mainFrame), 'app.info', {})).resolves.toEqual({
      ok: true,
      result: { channel: 'app.info' },
    });
    expect(fake.core.dispatched).toEqual([['app.info', {}]]);

    const subframe = {
      frameTreeNodeId: 2,
      parent: mainFrame,
      detached: false,
      url: window.webContents.url,
      origin: 'file://',
    };
    const otherContents = Object.assign(new EventEmitter(), { id: 999, mainFrame });
    for (const event of [
      eventFrom(null),
      eventFrom(subframe),
      eventFrom({ ...mainFrame, url: 'https://evil.example/', origin: 'https://evil.example' }),
      eventFrom({ ...mainFrame, url: pathToFileURL('/tmp/evil.html').href }),
      eventFrom(mainFrame, otherContents as never),
    ]) {
      await expect(invoke(event, 'servers.remove', { id: 'x' })).resolves.toMatchObject({
        ok: false,
        error: { code: 'forbidden_sender' },
      });
    }
    expect(fake.core.dispatched).toHaveLength(1);
    expect(logged.filter((line) => line.includes('IPC call refused'))).toHaveLength(5);
  });

  it('forwards core events to the window as (name, payload) on the event channel', () => {
    fake.core.listener?.('servers.changed', { servers: [] });
    expect(window.webContents.sent).toEqual([[IPC_EVENT_CHANNEL, 'servers.changed', { servers: [] }]]);
  });

  it('an approval while the window is hidden: an OS notification without the arguments, the badge, and a click that opens it', () => {
    window.webContents.sent.length = 0;
    (window as unknown as { hide(): void }).hide();
    const view = {
      requestId: 'req-1',
      sessionId: 's',
      toolName: 'write_file',
      serverId: 'files',
      args: { content: 'hunter2' },
      reason: 'asks',
      expiresAt: 1,
    };
    fake.core.listener?.('approval.requested', view);
    expect(fake.notifications).toHaveLength(1);
    const shown = fake.notifications[0]!;
    expect(shown).toMatchObject({ title: 'Approve write_file?', shown: true, closed: false });
    expect(shown.body).toContain('server “files”');
    expect(shown.body).not.toContain('hunter2');
    expect(fake.badgeCounts.at(-1)).toBe(1);
    // The window got the request too (its dialog), as it gets every core event.
    expect(window.webContents.sent).toEqual([[IPC_EVENT_CHANNEL, 'approval.requested', view]]);

    shown.emit('click');
    expect(window['visible']).toBe(true);
    expect(window['hasFocus']).toBe(true);
    expect(window.webContents.sent.at(-1)).toEqual([IPC_EVENT_CHANNEL, 'approval.show', { requestId: 'req-1' }]);

    fake.core.listener?.('approval.closed', { requestId: 'req-1', outcome: 'answered' });
    expect(shown.closed).toBe(true);
    expect(fake.badgeCounts.at(-1)).toBe(0);
  });

  it('an approval while the window is focused: the dialog is enough, no notification; the badge still counts it', () => {
    const before = fake.notifications.length;
    fake.core.listener?.('approval.requested', {
      requestId: 'req-2',
      sessionId: 's',
      toolName: 'run_command',
      serverId: 'local',
      args: {},
      reason: 'asks',
      expiresAt: 2,
    });
    expect(fake.notifications).toHaveLength(before);
    expect(fake.badgeCounts.at(-1)).toBe(1);
    fake.core.listener?.('approval.closed', { requestId: 'req-2', outcome: 'expired' });
    expect(fake.badgeCounts.at(-1)).toBe(0);
  });

  it('closing the window keeps the app in the tray while the setting is on, and closes it once turned off', () => {
    expect(fake.trays).toHaveLength(1);
    const tray = fake.trays[0]!;
    expect(tray.menu.map((item) => item.label)).toEqual(['Open MiniHarness Desktop', 'Quit MiniHarness Desktop']);

    const hideEvent = { preventDefault: vi.fn() };
    (window as unknown as EventEmitter).emit('close', hideEvent);
    expect(hideEvent.preventDefault).toHaveBeenCalledTimes(1);
    expect(window['visible']).toBe(false);
    // Said once: where the app went and how to quit.
    expect(fake.notifications.at(-1)).toMatchObject({ title: 'MiniHarness Desktop is still running', shown: true });

    fake.core.listener?.('approval.requested', {
      requestId: 'req-3',
      sessionId: 's',
      toolName: 'write_file',
      serverId: 'files',
      args: {},
      reason: 'asks',
      expiresAt: 3,
    });
    expect(tray.tooltip).toBe('MiniHarness Desktop — 1 approval waiting');
    tray.menu.find((item) => item.label === 'Review 1 approval waiting…')?.click();
    expect(window['visible']).toBe(true);
    expect(window.webContents.sent.at(-1)).toEqual([IPC_EVENT_CHANNEL, 'approval.show', { requestId: 'req-3' }]);
    fake.core.listener?.('approval.closed', { requestId: 'req-3', outcome: 'answered' });

    fake.core.listener?.('settings.changed', { settings: { roots: [], keepRunningOnClose: false } });
    expect(tray.destroyed).toBe(true);
    const closeEvent = { preventDefault: vi.fn() };
    (window as unknown as EventEmitter).emit('close', closeEvent);
    expect(closeEvent.preventDefault).not.toHaveBeenCalled();
    fake.core.listener?.('settings.changed', { settings: { roots: [], keepRunningOnClose: true } });
    expect(fake.trays).toHaveLength(2);
  });

  it('an OS notification that fails (macOS: an unsigned build): the window’s dialog comes into view, the badge counts it, the log says it once', () => {
    const request = (requestId: string) =>
      fake.core.listener?.('approval.requested', {
        requestId,
        sessionId: 's',
        toolName: 'write_file',
        serverId: 'files',
        args: {},
        reason: 'asks',
        expiresAt: 4,
      });
    const hide = () => (window as unknown as { hide(): void }).hide();
    hide();
    const before = fake.notifications.length;
    request('req-4');
    const failing = fake.notifications[before]!;
    expect(failing.shown).toBe(true);
    expect(window['visible']).toBe(false);

    failing.emit('failed', {}, 'Notifications are not allowed for this application');
    // Shown without taking focus: the in-app approval dialog is the notice now.
    expect(window['visible']).toBe(true);
    expect(window['hasFocus']).toBe(false);
    expect(window['flashing']).toBe(true);
    expect(fake.badgeCounts.at(-1)).toBe(1);
    const said = logged.filter((line) => line.includes('OS notifications failed'));
    expect(said).toEqual([
      '[miniharness] OS notifications failed (Notifications are not allowed for this application): approvals are shown in the window and on the badge instead. On macOS they need a signed build.',
    ]);

    // The rest of the session goes straight to the window, without another OS notification.
    hide();
    request('req-5');
    expect(fake.notifications).toHaveLength(before + 1);
    expect(window['visible']).toBe(true);
    expect(fake.badgeCounts.at(-1)).toBe(2);
    fake.core.listener?.('approval.closed', { requestId: 'req-4', outcome: 'answered' });
    fake.core.listener?.('approval.closed', { requestId: 'req-5', outcome: 'answered' });
    expect(fake.badgeCounts.at(-1)).toBe(0);
    expect(logged.filter((line) => line.includes('OS notifications failed'))).toHaveLength(1);
  });

  it('shows and focuses the window when a second instance starts (also the way back from a hidden window)', () => {
    const focusedBefore = window['focused'] as number;
    (window as unknown as { hide(): void }).hide();
    fake.app.emit('second-instance');
    expect(window['focused']).toBe(focusedBefore + 1);
    expect(window['visible']).toBe(true);
  });

  it('closes the core once on quit, then quits for real (the window closes even with "keep running" on)', async () => {
    const done = new Promise((resolve) => fake.app.once('quit-done', resolve));
    (fake.app['quit'] as () => void)();
    (fake.app['quit'] as () => void)();
    const closeEvent = { preventDefault: vi.fn() };
    (window as unknown as EventEmitter).emit('close', closeEvent);
    expect(closeEvent.preventDefault).not.toHaveBeenCalled();
    await done;
    expect(fake.core.closed).toBe(1);
    expect(fake.quitCalls).toBe(3);
    expect(fake.exitCodes).toEqual([]);
  });
});
