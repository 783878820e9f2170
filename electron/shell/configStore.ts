/**
 * The Electron binding of ConfigStore: electron-store (conf underneath, atomic writes) with its
 * file in the user's data folder, readable by the user only. A file that is not valid JSON is
 * moved aside rather than thrown at startup or silently emptied, and the caller is told.
 *
 * electron-store runs only inside Electron (it imports `electron`), so it is imported lazily:
 * tests drive `openConfigStore` with `conf`, which has the same API.
 */
import { join } from 'node:path';
import type { ConfigStore } from '../app/types.js';
import { moveAside } from './corruptFile.js';

export const CONFIG_NAME = 'config';

export interface ConfigStoreLocation {
  /** The folder (userData). */
  cwd: string;
  /** The file name without `.json`. */
  name: string;
}

export interface OpenedConfigStore {
  store: ConfigStore;
  /** A corrupt file that was moved aside, to show once. */
  warnings: string[];
}

export async function openConfigStore(
  dataDir: string,
  create: (location: ConfigStoreLocation) => ConfigStore,
  now?: () => number,
): Promise<OpenedConfigStore> {
  const location = { cwd: dataDir, name: CONFIG_NAME };
  try {
    return { store: create(location), warnings: [] };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const movedTo = await moveAside(join(dataDir, `${CONFIG_NAME}.json`), now);
    return {
      store: create(location),
      warnings: [`The settings file was not valid JSON and was moved to "${movedTo}"; the app started with empty settings.`],
    };
  }
}

export async function openElectronConfigStore(dataDir: string): Promise<OpenedConfigStore> {
  const { default: ElectronStore } = await import('electron-store');
  return openConfigStore(dataDir, ({ cwd, name }) => new ElectronStore<Record<string, unknown>>({ cwd, name, configFileMode: 0o600 }));
}
