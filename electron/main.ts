/**
 * The Electron main process: a thin shell around the app core (electron/app/core.ts). It owns
 * the window, the IPC binding and the app lifecycle; every security decision it applies is a
 * pure function in electron/shell/ (tested in plain Node), and this file only wires them to
 * Electron.
 */
import { BrowserWindow, app, dialog, ipcMain, safeStorage, session, shell } from 'electron';
import type { IpcMainInvokeEvent, WebContents } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../shared/preloadApi.js';
import { buildAppCore } from './app/core.js';
import type { AppCore } from './app/types.js';
import type { AppLocation } from './shell/appLocation.js';
import { resolveAppLocation } from './shell/appLocation.js';
import { openElectronConfigStore } from './shell/configStore.js';
import { hardenSession, hardenWebContents } from './shell/harden.js';
import { createEventForwarder, createInvokeHandler } from './shell/ipcHandler.js';
import { isSafeExternalUrl } from './shell/navigation.js';
import { createQuitGuard } from './shell/quitGuard.js';
import { openSafeStorageSecrets } from './shell/safeStorageSecrets.js';
import { describeDamage } from './storage/damagedFile.js';
import type { SenderInfo } from './shell/sender.js';
import { windowOptions } from './shell/windowOptions.js';
import { PRODUCT_NAME } from '../shared/product.js';
import { chooseWorkspaceDir } from './app/dataDir.js';

// out/main/main.js → out/preload/preload.cjs and out/renderer/index.html (electron.vite.config.ts).
// The preload is CommonJS (sandboxed preloads cannot be ES modules); in a "type": "module"
// package electron-vite names it .cjs so Node does not read it as ESM.
const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD_FILE = join(OUT_DIR, 'preload', 'preload.cjs');
const RENDERER_INDEX = join(OUT_DIR, 'renderer', 'index.html');

const log = (message: string) => console.error(`[miniharness] ${message}`);

// Every renderer is OS-sandboxed, whatever a window's options say.
app.enableSandbox();

// The data folder is named after the product, as browser mode's (electron/app/dataDir.ts), not
// after package.json's name; --user-data-dir (tests, a second profile) wins. Set before the
// single-instance lock, which lives in this folder.
app.setPath('userData', app.commandLine.getSwitchValue('user-data-dir') || join(app.getPath('appData'), PRODUCT_NAME));

let mainWindow: BrowserWindow | undefined;

if (!app.requestSingleInstanceLock()) {
  // A second launch only brings the running app forward (its 'second-instance' handler).
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
  });
  const location = appLocation();
  if (location) {
    // Registered before any webContents exists, so none escapes the guards.
    app.on('web-contents-created', (_event, contents) => {
      hardenWebContents(contents, { location, openExternal: (url) => shell.openExternal(url), log });
    });
    app.whenReady().then(() => start(location), fatal);
  }
}

function appLocation(): AppLocation | undefined {
  try {
    return resolveAppLocation({ isPackaged: app.isPackaged, devServerUrl: process.env['ELECTRON_RENDERER_URL'], rendererIndexFile: RENDERER_INDEX });
  } catch (error) {
    fatal(error);
    return undefined;
  }
}

async function start(location: AppLocation): Promise<void> {
  try {
    hardenSession(session.defaultSession, location);
    const dataDir = app.getPath('userData');
    const secrets = await openSafeStorageSecrets({ safeStorage, file: join(dataDir, 'secrets.json') });
    const config = await openElectronConfigStore(dataDir);
    // electron-store answers a sync IPC query from any renderer; ours never asks, so close it.
    ipcMain.removeAllListeners('electron-store-get-data');
    for (const warning of [...(await secrets.damagedFiles()), ...(config.damaged ?? [])]) log(describeDamage(warning));

    // The same damaged files reach the GUI through app.info (the core collects them from both stores).
    // Outside the data folder (the core refuses an overlap): --workspace, MINIHARNESS_WORKSPACE, or ~/MiniHarness/workspace.
    const workspaceDir = chooseWorkspaceDir(app.commandLine.getSwitchValue('workspace') || undefined);
    // OAuth sign-in pages (issue 11) open in the system browser, through the same http(s)-only check as links.
    const openExternal = (url: string): Promise<void> => (isSafeExternalUrl(url) ? shell.openExternal(url) : Promise.reject(new Error('not an http(s) address')));
    const core = await buildAppCore({ mode: 'electron', dataDir, workspaceDir, secrets, config, version: app.getVersion(), openExternal });
    bindLifecycle(core);
    ipcMain.handle(
      IPC_INVOKE_CHANNEL,
      createInvokeHandler<IpcMainInvokeEvent>({ location, describeSender, dispatch: (channel, payload) => core.dispatch(channel, payload), log }),
    );
    core.onEvent(
      createEventForwarder(location, IPC_EVENT_CHANNEL, () => {
        const contents = liveContents();
        return contents && { url: () => contents.getURL(), send: (channel, ...args) => contents.send(channel, ...args) };
      }),
    );

    mainWindow = createWindow(location);
    core.start().catch((error: unknown) => log(`Starting the app core failed: ${messageOf(error)}`));
  } catch (error) {
    fatal(error);
  }
}

function createWindow(location: AppLocation): BrowserWindow {
  const window = new BrowserWindow(windowOptions(PRELOAD_FILE));
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = undefined;
  });
  const loaded = location.kind === 'dev' ? window.loadURL(location.url) : window.loadFile(location.file);
  loaded.catch(fatal);
  return window;
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
    isMainFrame: frame.parent === null && !frame.detached && frame.frameTreeNodeId === event.sender.mainFrame.frameTreeNodeId,
    fromAppWindow: event.sender.id === contents.id,
  };
}

function bindLifecycle(core: AppCore): void {
  const guard = createQuitGuard({ close: () => core.close(), quit: () => app.quit(), exit: (code) => app.exit(code), log });
  app.on('before-quit', (event) => guard.onBeforeQuit(event));
  // Closing the window ends the session on every platform: the core runs MCP server processes,
  // which should not live on behind an app with no window.
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
