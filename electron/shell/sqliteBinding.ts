/**
 * Which better-sqlite3 binary the Electron main process loads. A package made by electron-builder
 * carries a module rebuilt for its Electron (electron-builder.yml `npmRebuild`), found the usual
 * way. Run from the project (`npm start`), node_modules holds Node's build — the tests and browser
 * mode need it — so the Electron build comes from the cache folder `npm start` fills
 * (scripts/electronSqlite.mjs), passed to better-sqlite3 as `nativeBinding`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { electronSqliteBinding, installedSqliteVersion } from '../../scripts/electronSqlite.mjs';

export interface SqliteBindingInput {
  isPackaged: boolean;
  /** app.getAppPath(): the project folder when run with `electron .`. */
  appPath: string;
  /** process.versions.modules inside Electron: its NODE_MODULE_VERSION (ABI). */
  abi: string;
  platform: string;
  arch: string;
  exists?: (path: string) => boolean;
  readText?: (path: string) => string | undefined;
}

export class MissingSqliteBindingError extends Error {
  constructor(readonly path: string) {
    super(`the database module built for Electron is missing (${path}); start the app with \`npm start\`, which fetches or builds it first`);
    this.name = 'MissingSqliteBindingError';
  }
}

/** The `nativeBinding` path to use, or undefined for better-sqlite3's own lookup (packaged app). */
export function sqliteBindingFor(input: SqliteBindingInput): string | undefined {
  if (input.isPackaged) return undefined;
  const exists = input.exists ?? existsSync;
  const readText = input.readText ?? readIfPresent;
  const sqliteVersion = installedSqliteVersion(input.appPath, readText);
  // No better-sqlite3 under the app path: not a project checkout, let the default lookup speak.
  if (sqliteVersion === undefined) return undefined;
  const path = electronSqliteBinding({ root: input.appPath, sqliteVersion, abi: input.abi, platform: input.platform, arch: input.arch });
  if (!exists(path)) throw new MissingSqliteBindingError(path);
  return path;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
