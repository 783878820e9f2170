/**
 * The Electron main process: a thin shell around the app core (electron/core/core.ts). It owns
 * the window, the IPC binding, the app lifecycle and the desktop around the window (approval
 * notifications, badge, tray: shell/desktopIntegration.ts); every decision it applies is a pure
 * function in electron/shell/ (tested in plain Node), and this file only wires them to Electron.
 */
import { BrowserWindow, Menu, app, dialog, ipcMain, protocol, safeStorage, session, shell } from 'electron';
import type { IpcMainInvokeEvent, WebContents } from 'electron';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../shared/preloadApi.js';
import { selectDatabase } from './storage/selectDatabase.js';
import { buildCore } from './core/core.js';
import { gatewayPortOverride, stdioEntry } from './core/gatewayOptions.js';
import type { Core } from './core/types.js';
import type { AppLocation } from './shell/appLocation.js';
import { resolveAppLocation } from './shell/appLocation.js';
import { openElectronConfigStore } from './shell/configStore.js';
import { hardenSession, hardenWebContents } from './shell/harden.js';
import { APP_SANDBOX_SCHEME_PRIVILEGES, registerAppSandboxProtocol } from './shell/appSandboxProtocol.js';
import { createEventForwarder, createInvokeHandler } from './shell/ipcHandler.js';
import { isSafeExternalUrl } from './shell/navigation.js';
import { createQuitGuard } from './shell/quitGuard.js';
import { openSafeStorageSecrets } from './shell/safeStorageSecrets.js';
import { describeDamage } from './storage/damagedFile.js';
import type { SenderInfo } from './shell/sender.js';
import { windowOptions } from './shell/windowOptions.js';
import { gatewayStdioInvocation, parseStdioArgs, GATEWAY_STDIO_FLAG } from './gateway/stdioArgs.js';
import { START_INSTALLED_APP, relayProcessStdio } from './gateway/stdioProxy.js';
import { APP_ID, PRODUCT_NAME } from '../shared/product.js';
import type { SettingsView } from '../shared/contract.js';
import { chooseWorkspaceDir } from './core/dataDir.js';
import type { DesktopIntegration } from './shell/desktopIntegration.js';
import { createDesktopIntegration } from './shell/desktopIntegration.js';
import { shellEnv } from 'shell-env';
import { applicationMenuTemplate } from './shell/appMenu.js';
import { adoptLoginShellPath } from './shell/loginShellPath.js';
import { userDataDir } from './shell/userDataDir.js';

// out/main/main.js → out/preload/preload.cjs and out/renderer/index.html (electron.vite.config.ts).
// The preload is CommonJS (sandboxed preloads cannot be ES modules); in a "type": "module"
// package electron-vite names it .cjs so Node does not read it as ESM.
const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD_FILE = join(OUT_DIR, 'preload', 'preload.cjs');
const RENDERER_INDEX = join(OUT_DIR, 'renderer', 'index.html');

const log = (message: string) => console.error(`[miniharness] ${message}`);

let mainWindow: BrowserWindow | undefined;
let desktop: DesktopIntegration | undefined;

// `<app> --gateway-stdio --client <name> [--url …]`: the stdio entry of a packaged app, which has
// no Node to run bin/miniharness-gateway.mjs. Decided before anything else: no window, no tray,
// no single-instance lock (the running app holds it), no data folder.
const relayArgs = gatewayStdioInvocation(process.argv.slice(1));
if (relayArgs) runStdioRelay(relayArgs);
else launchApp();

function runStdioRelay(args: string[]): void {
  app.dock?.hide();
  const decision = parseStdioArgs(args, process.env, `${basename(process.execPath)} ${GATEWAY_STDIO_FLAG}`);
  if (!decision.ok) {
    process.stderr.write(`miniharness-gateway: ${decision.message}\n`);
    app.exit(2);
    return;
  }
  // The installed app is its own entry: "not running" tells the person to open it, not to run npm.
  relayProcessStdio(decision.args, (code) => app.exit(code), START_INSTALLED_APP).catch((error: unknown) => {
    process.stderr.write(`MiniHarness's stdio entry could not start: ${messageOf(error)}\n`);
    app.exit(1);
  });
}

function launchApp(): void {
  // Every renderer is OS-sandboxed, whatever a window's options say.
  app.enableSandbox();

  // Windows shows toast notifications only for an app with an AppUserModelID: the installed app's
  // is electron-builder.yml's appId; run from the project, Electron's own executable stands in.
  if (process.platform === 'win32') app.setAppUserModelId(app.isPackaged ? APP_ID : process.execPath);

  // The data folder is named after the product, as browser mode's (electron/core/dataDir.ts), not
  // after package.json's name; --user-data-dir (tests, a second profile) wins, a relative one
  // resolved against the working folder. Set before the single-instance lock, which lives in this folder.
  if (!setUserData()) {
    // fatal() said why and exited.
  } else if (!app.requestSingleInstanceLock()) {
    // A second launch only brings the running app forward (its 'second-instance' handler).
    app.quit();
  } else {
    // Also the way back to a window hidden in a tray the desktop does not show (some Linux desktops).
    app.on('second-instance', () => showWindow());
    const location = appLocation();
    if (location) {
      // MCP Apps' sandbox origin: a scheme of its own, declared before the app is ready.
      protocol.registerSchemesAsPrivileged([APP_SANDBOX_SCHEME_PRIVILEGES]);
      // Registered before any webContents exists, so none escapes the guards.
      app.on('web-contents-created', (_event, contents) => {
        hardenWebContents(contents, { location, openExternal: (url) => shell.openExternal(url), log });
      });
      app.whenReady().then(() => start(location), fatal);
    }
  }
}

function setUserData(): boolean {
  try {
    const appData = app.getPath('appData');
    app.setPath(
      'userData',
      userDataDir({
        switchValue: app.commandLine.getSwitchValue('user-data-dir'),
        cwd: process.cwd(),
        appData,
        productName: PRODUCT_NAME,
      }),
    );
    return true;
  } catch (error) {
    fatal(new Error(`the data folder cannot be used (${messageOf(error)})`));
    return false;
  }
}

function appLocation(): AppLocation | undefined {
  try {
    return resolveAppLocation({
      isPackaged: app.isPackaged,
      devServerUrl: process.env['ELECTRON_RENDERER_URL'],
      rendererIndexFile: RENDERER_INDEX,
    });
  } catch (error) {
    fatal(error);
    return undefined;
  }
}

async function start(location: AppLocation): Promise<void> {
  try {
    // macOS from Finder / the Dock: the login shell's PATH, so stdio servers find npx, uvx, nvm's node.
    const loginShellPath = adoptLoginShellPath({
      platform: process.platform,
      env: process.env,
      readShellEnv: () => shellEnv(),
      log,
    });
    // A packaged app's menu has no DevTools or Reload (shell/appMenu.ts); `npm start` keeps Electron's.
    if (app.isPackaged)
      Menu.setApplicationMenu(Menu.buildFromTemplate(applicationMenuTemplate(process.platform, PRODUCT_NAME)));
    hardenSession(session.defaultSession, location);
    registerAppSandboxProtocol(session.defaultSession.protocol, location);
    const dataDir = app.getPath('userData');
    const secrets = await openSafeStorageSecrets({ safeStorage, file: join(dataDir, 'secrets.json') });
    const config = await openElectronConfigStore(dataDir);
    // electron-store answers a sync IPC query from any renderer; ours never asks, so close it.
    ipcMain.removeAllListeners('electron-store-get-data');
    for (const warning of [...(await secrets.damagedFiles()), ...(config.damaged ?? [])]) log(describeDamage(warning));

    // The same damaged files reach the GUI through app.info (the core collects them from both stores).
    // Outside the data folder (the core refuses an overlap): --workspace, MINIHARNESS_WORKSPACE, or ~/MiniHarness/workspace.
    const workspaceDir = chooseWorkspaceDir(app.commandLine.getSwitchValue('workspace') || undefined);
    // OAuth sign-in pages open in the system browser, through the same http(s)-only check as links.
    const openExternal = (url: string): Promise<void> =>
      isSafeExternalUrl(url) ? shell.openExternal(url) : Promise.reject(new Error('not an http(s) address'));
    // Packaged: the app binary is the stdio entry (--gateway-stdio); from a checkout, node runs the
    // project's bin (Electron's own binary is no Node: its fuses may forbid ELECTRON_RUN_AS_NODE).
    const gatewayPort = gatewayPortOverride(app.commandLine.getSwitchValue('gateway-port') || undefined, process.env);
    const stdio = stdioEntry({
      packaged: app.isPackaged,
      execPath: process.execPath,
      projectRoot: app.getAppPath(),
      node: 'node',
    });
    const gateway = { ...(gatewayPort !== undefined ? { port: gatewayPort } : {}), stdio };
    await loginShellPath;
    const core = await buildCore({
      mode: 'electron',
      dataDir,
      workspaceDir,
      secrets,
      config,
      // The SQLite file unless --database postgres://… or MINIHARNESS_DATABASE_URL is given.
      database: selectDatabase(process.argv, process.env),
      version: app.getVersion(),
      gateway,
      openExternal,
    });
    const forward = createEventForwarder(location, IPC_EVENT_CHANNEL, () => {
      const contents = liveContents();
      return contents && { url: () => contents.getURL(), send: (channel, ...args) => contents.send(channel, ...args) };
    });
    const integration = createDesktopIntegration({
      platform: process.platform,
      window: () => (mainWindow && !mainWindow.isDestroyed() ? mainWindow : undefined),
      showWindow,
      sendToWindow: (event, payload) => forward(event, payload),
      quit: () => app.quit(),
      log,
    });
    desktop = integration;
    bindLifecycle(core, integration);
    ipcMain.handle(
      IPC_INVOKE_CHANNEL,
      createInvokeHandler<IpcMainInvokeEvent>({
        location,
        describeSender,
        dispatch: (channel, payload) => core.dispatch(channel, payload),
        log,
      }),
    );
    core.onEvent((event, payload) => {
      forward(event, payload);
      integration.onCoreEvent(event, payload);
    });

    mainWindow = createWindow(location);
    const settings = await core.dispatch('settings.get', {});
    if (settings.ok) integration.setKeepRunning((settings.result as SettingsView).keepRunningOnClose);
    core.start().catch((error: unknown) => log(`Starting the app core failed: ${messageOf(error)}`));
  } catch (error) {
    fatal(error);
  }
}

function createWindow(location: AppLocation): BrowserWindow {
  const window = new BrowserWindow(windowOptions(PRELOAD_FILE));
  window.once('ready-to-show', () => window.show());
  // Hidden instead of closed while the app keeps running in the tray / dock (Settings).
  window.on('close', (event) => desktop?.onWindowClose(event));
  window.on('focus', () => desktop?.onWindowFocus());
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = undefined;
  });
  const loaded = location.kind === 'dev' ? window.loadURL(location.url) : window.loadFile(location.file);
  loaded.catch(fatal);
  return window;
}

function showWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function liveContents(): WebContents | undefined {
  return mainWindow && !mainWindow.isDestroyed() ? mainWindow.webContents : undefined;
}

/** The IPC event's sender, as the pure check in shell/sender.ts sees it. */
function describeSender(event: IpcMainInvokeEvent): SenderInfo | null {
  const frame = event.senderFrame;
  const contents = liveContents();
  if (!frame || !contents) return null;
  return {
    url: frame.url,
    origin: frame.origin,
    isMainFrame:
      frame.parent === null && !frame.detached && frame.frameTreeNodeId === event.sender.mainFrame.frameTreeNodeId,
    fromAppWindow: event.sender.id === contents.id,
  };
}

function bindLifecycle(core: Core, integration: DesktopIntegration): void {
  const guard = createQuitGuard({
    close: () => core.close(),
    quit: () => app.quit(),
    exit: (code) => app.exit(code),
    log,
  });
  app.on('before-quit', (event) => {
    integration.onBeforeQuit();
    guard.onBeforeQuit(event);
  });
  app.on('will-quit', () => integration.dispose());
  // The Dock icon (macOS) brings a hidden window back.
  app.on('activate', () => showWindow());
  // The window really closed (the setting is off, or the app is quitting): the session ends on
  // every platform — the core runs MCP server processes, which must not live on unseen.
  app.on('window-all-closed', () => app.quit());
  // Ctrl+C in the terminal (npm start) or a service manager: close the core, then exit.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());
}

function fatal(error: unknown): void {
  const message = `MiniHarness could not start: ${messageOf(error)}`;
  log(message);
  if (app.isPackaged) dialog.showErrorBox(PRODUCT_NAME, message);
  // A non-zero exit right away also tells `npm start` to fall back to browser mode.
  app.exit(1);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
