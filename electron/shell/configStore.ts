/**
 * The Electron binding of ConfigStore: electron-store with its file in the user's data folder.
 * Checking the file and moving a damaged one aside is shared with browser mode
 * (electron/storage/configFile.ts), so both hosts behave the same.
 *
 * electron-store runs only inside Electron (it imports `electron`), so it is imported lazily.
 */
import type { ConfigStore } from '../storage/configFile.js';
import { openConfigStore } from '../storage/configFile.js';
import { PRIVATE_FILE_MODE } from '../storage/privateFiles.js';

export async function openElectronConfigStore(dataDir: string): Promise<ConfigStore> {
  const { default: ElectronStore } = await import('electron-store');
  return openConfigStore(dataDir, ({ cwd, name }) => {
    const store = new ElectronStore<Record<string, unknown>>({
      cwd,
      name,
      configFileMode: PRIVATE_FILE_MODE,
      clearInvalidConfig: false,
    });
    return { get: (key) => store.get(key), set: (key, value) => store.set(key, value), path: store.path };
  });
}
