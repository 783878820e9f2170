/**
 * A stdio server's sandbox profile as the GUI shows it (issue 29): what was added to the defaults
 * and why — its launcher's needs among them — computed from its saved configuration as its wrap
 * would (the command looked up on its PATH), without starting anything.
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { SandboxProfileView } from '../../shared/contract.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { sandboxEnabled } from '../../shared/serverConfig.js';
import type { ServerSandboxes } from './serverSandbox.js';
import { sandboxedServerOf } from './serverSandbox.js';

export function sandboxProfileView(sandboxes: ServerSandboxes, config: ServerConfig): SandboxProfileView | undefined {
  if (config.transport !== 'stdio' || !sandboxEnabled(config)) return undefined;
  // Only a plain PATH of its own changes where its command is found; a secret one is not read here.
  const path = config.env?.PATH;
  const env = { ...getDefaultEnvironment(), ...(typeof path === 'string' ? { PATH: path } : {}) };
  const profile = sandboxes.profileOf(sandboxedServerOf(config), env);
  return {
    ...(profile.launcher ? { launcher: profile.launcher } : {}),
    hidden: profile.read.deny,
    additions: profile.additions.map((addition) => ({ ...addition })),
  };
}
