/**
 * The product's identity, in one place for every host: the Electron shell names the data folder
 * and the window after it, browser mode names the same data folder, and the keyring files secrets
 * under it. It must equal `productName` in package.json (electron-builder and Electron's default
 * `userData` folder use that one); test/lint/layering.test.ts checks they agree.
 */
export const PRODUCT_NAME = 'MiniHarness Desktop';

/** The app's id for the OS (Windows notifications, macOS bundle): electron-builder.yml `appId` (test/shell/packaging.test.ts checks they agree). */
export const APP_ID = 'dev.miniharness.desktop';
