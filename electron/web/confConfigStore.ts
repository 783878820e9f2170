/**
 * Browser mode's configuration store: `conf` (electron-store's base, usable in plain Node),
 * opened through the binding both hosts share (electron/storage/configFile.ts).
 */
import Conf from 'conf';
import type { ConfigStore } from '../storage/configFile.js';
import { openConfigStore } from '../storage/configFile.js';
import { PRIVATE_FILE_MODE } from '../storage/privateFiles.js';

export function openConfConfigStore(dataDir: string, now?: () => number): ConfigStore {
  return openConfigStore(
    dataDir,
    ({ cwd, name }) => {
      const conf = new Conf<Record<string, unknown>>({
        cwd,
        configName: name,
        clearInvalidConfig: false,
        configFileMode: PRIVATE_FILE_MODE,
      });
      return { get: (key) => conf.get(key), set: (key, value) => conf.set(key, value), path: conf.path };
    },
    now,
  );
}
