/**
 * The one configuration binding of both hosts: browser mode opens it with `conf`, the Electron
 * shell with electron-store (the same API, conf underneath). Before the library reads the file,
 * this checks it: a file that is not a JSON object is moved aside and reported (see
 * damagedFile.ts) instead of stopping the app with a parser error or being emptied in silence.
 * The folder is 0700 and the file 0600.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import { jsonProblem, setAside } from './damagedFile.js';
import { ensurePrivateDir, makePrivate } from './privateFiles.js';

const CONFIG_NAME = 'config';

/**
 * The configuration store: the subset of `conf` / `electron-store` the app uses (both have
 * this API), so Electron binds electron-store and browser mode binds conf.
 */
export interface ConfigStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  /** The file it writes (for tests and diagnostics). */
  readonly path: string;
  /** A damaged file found when it was opened (moved aside), for the GUI. */
  readonly damaged?: readonly FileDamagedWarning[];
}

export interface ConfigStoreLocation {
  /** The folder (the data folder). */
  cwd: string;
  /** The file name without `.json`. */
  name: string;
}

/** Opens the configuration in `dataDir` with `create` (conf or electron-store, mode 0600). */
export function openConfigStore(
  dataDir: string,
  create: (location: ConfigStoreLocation) => Omit<ConfigStore, 'damaged'>,
  now?: () => number,
): ConfigStore {
  ensurePrivateDir(dataDir);
  const file = join(dataDir, `${CONFIG_NAME}.json`);
  const damaged = checkConfigFile(file, now);
  const store = create({ cwd: dataDir, name: CONFIG_NAME });
  makePrivate(file);
  return {
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value),
    path: store.path,
    damaged: damaged ? [damaged] : [],
  };
}

function checkConfigFile(file: string, now?: () => number): FileDamagedWarning | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // Unreadable is not damaged: moving it aside could hide a permissions problem.
    throw new Error(`Could not read the settings file "${file}" (${code ?? 'error'}). Check its permissions.`, {
      cause: error,
    });
  }
  const parsed = jsonProblem(text);
  if ('problem' in parsed) return setAside(file, 'settings', parsed.problem, now ? { now } : {});
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return setAside(file, 'settings', 'invalid_content', now ? { now } : {});
  return undefined;
}
