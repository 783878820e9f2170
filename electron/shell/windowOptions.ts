/**
 * The app window's options. Every web preference that matters for security is spelled out, even
 * where it is Electron's default, so a default changing (or someone copying a snippet) cannot
 * loosen it unnoticed; test/shell/windowOptions.test.ts pins each flag.
 */
import type { BrowserWindowConstructorOptions } from 'electron';
import { PRODUCT_NAME } from '../../shared/product.js';

export const APP_TITLE = PRODUCT_NAME;

export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    title: APP_TITLE,
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 520,
    // Shown on 'ready-to-show', so the user never sees a blank white frame.
    show: false,
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: preloadPath,
      // The page's JavaScript runs in its own world; the preload's objects are not reachable.
      contextIsolation: true,
      // The renderer process is an OS sandbox with no Node.js, the preload included.
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // No network spelling service, no dictionary downloads.
      spellcheck: false,
      // Chromium's experimental web platform features stay off.
      experimentalFeatures: false,
      // Pages may not navigate the window by drag-and-drop of files or links.
      navigateOnDragDrop: false,
      safeDialogs: true,
    },
  };
}
