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
import { SANDBOX_CALLER } from '../../shared/contract/approvals.js';

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

/**
 * The person as the sandbox tests need them: every tool call asked about is allowed once, and every
 * connection the sandbox asks about (the egress ask, caller `sandbox`) is denied — so the refusal
 * those tests look for still happens.
 */
export function allowCallsDenyEgress(core: Core): void {
  core.onEvent((event, payload) => {
    if (event !== 'approval.requested') return;
    const asked = payload as { requestId: string; userId: string };
    void core.dispatch('approvals.answer', {
      requestId: asked.requestId,
      answer: asked.userId === SANDBOX_CALLER ? 'deny' : 'allow-once',
    });
  });
}
