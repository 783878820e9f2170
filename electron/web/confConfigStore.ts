/** Browser mode's configuration store: `conf` (electron-store's base, usable in plain Node). */
import Conf from 'conf';
import type { ConfigStore } from '../app/types.js';

export function openConfConfigStore(dataDir: string): ConfigStore {
  const conf = new Conf<Record<string, unknown>>({ cwd: dataDir, configName: 'config', clearInvalidConfig: false });
  return {
    get: (key) => conf.get(key),
    set: (key, value) => conf.set(key, value),
    path: conf.path,
  };
}
