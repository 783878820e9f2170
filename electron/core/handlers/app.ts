/** `app.*`: what the app is running as (mode, version, secret store, sandbox) and its warnings. */
import type { AppWarning } from '../../../shared/contract.js';
import { detectSandbox } from '../../sandbox/commandSandbox.js';
import type { Handlers } from '../dispatcher.js';
import type { DescribedSecretStore } from '../../secrets/types.js';
import { secretBackendView } from '../views.js';

export function appHandlers(deps: {
  mode: 'electron' | 'browser';
  version: string;
  secrets: DescribedSecretStore;
  warnings: () => AppWarning[];
}): Pick<Handlers, 'app.info'> {
  return {
    'app.info': async () => {
      const sandbox = await detectSandbox();
      return {
        mode: deps.mode,
        version: deps.version,
        secretBackend: secretBackendView(deps.secrets.describe()),
        sandbox: { kind: sandbox.kind, ...(sandbox.reason ? { reason: sandbox.reason } : {}), detail: sandbox.detail },
        warnings: deps.warnings(),
      };
    },
  };
}
