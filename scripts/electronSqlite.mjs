// Where the Electron build of better-sqlite3 lives. `npm install` builds the module for Node's
// ABI (tests and browser mode load that one); Electron needs a build for its own ABI. Rather than
// rebuilding the one copy in place (which would break the tests), `npm start` puts an Electron
// build in a cache folder (scripts/buildElectronSqlite.mjs) and the Electron main process loads it
// through better-sqlite3's `nativeBinding` option (electron/shell/sqliteBinding.ts).
// The name carries everything the binary depends on, so an upgrade of better-sqlite3 or
// Electron (a new ABI) finds no file and gets a new build.
import { join } from 'node:path';

/** Under the project's node_modules: `npm ci` wipes it together with the builds it matches. */
export const ELECTRON_SQLITE_CACHE = join('node_modules', '.cache', 'miniharness', 'better-sqlite3');
export const SQLITE_BINARY_NAME = 'better_sqlite3.node';

/**
 * @param {{ root: string, sqliteVersion: string, abi: string, platform: string, arch: string }} input
 * @returns {string}
 */
export function electronSqliteBinding({ root, sqliteVersion, abi, platform, arch }) {
  return join(root, ELECTRON_SQLITE_CACHE, `${sqliteVersion}-electron-v${abi}-${platform}-${arch}`, SQLITE_BINARY_NAME);
}

/**
 * The installed better-sqlite3's version, from its package.json; undefined when it is not there.
 * @param {string} root
 * @param {(path: string) => string | undefined} readText
 * @returns {string | undefined}
 */
export function installedSqliteVersion(root, readText) {
  const text = readText(join(root, 'node_modules', 'better-sqlite3', 'package.json'));
  if (text === undefined) return undefined;
  try {
    const version = JSON.parse(text).version;
    return typeof version === 'string' && version ? version : undefined;
  } catch {
    return undefined;
  }
}
