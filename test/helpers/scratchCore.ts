/**
 * The app core as browser mode builds it, over a scratch folder (`<dir>/data`, `<dir>/workspace`),
 * its secrets in a file, its gateway on a free port unless told otherwise. Shared by the gateway
 * tests, the conformance run's gateway leg and the benchmarks that drive a whole core.
 */
import { join } from 'node:path';
import { buildCore } from '../../electron/core/core.js';
import type { Core, CoreOptions } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';

export function buildScratchCore(
  dir: string,
  options: {
    version: string;
    secretsLabel: string;
    gateway?: CoreOptions['gateway'];
    clientConfigPlaces?: CoreOptions['clientConfigPlaces'];
    database?: CoreOptions['database'];
  },
): Promise<Core> {
  const dataDir = join(dir, 'data');
  return buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir: join(dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json'), options.secretsLabel),
    config: openConfConfigStore(dataDir),
    version: options.version,
    gateway: options.gateway ?? { port: 0 },
    ...(options.clientConfigPlaces ? { clientConfigPlaces: options.clientConfigPlaces } : {}),
    ...(options.database ? { database: options.database } : {}),
  });
}
