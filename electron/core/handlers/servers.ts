/** `servers.*`: the configured servers, their connections, details and logs. */
import type { HarnessApplication } from '../../harness/application.js';
import type { MCPToolRegistry } from '../../mcp/registry.js';
import type { SecretRedactor } from '../../secrets/secretRedactor.js';
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';
import type { PermissionService } from '../permissionService.js';
import type { ServerService } from '../serverService.js';
import type { SandboxProfileView } from '../../../shared/contract.js';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import { negotiatedView, toolView } from '../views.js';

type ServerChannels =
  | 'servers.list'
  | 'servers.get'
  | 'servers.save'
  | 'servers.remove'
  | 'servers.setEnabled'
  | 'servers.connect'
  | 'servers.disconnect'
  | 'servers.discover'
  | 'servers.log'
  | 'servers.setLogLevel';

export function serverHandlers(deps: {
  servers: ServerService;
  registry: MCPToolRegistry;
  harness: HarnessApplication;
  redactor: SecretRedactor;
  permissions: PermissionService;
  warn: (message: string) => void;
  /** A sandboxed stdio server's profile, for its details (sandbox/profileView.ts). */
  sandboxProfile?: (config: ServerConfig) => SandboxProfileView | undefined;
}): Pick<Handlers, ServerChannels> {
  const { servers, registry, harness, redactor, permissions } = deps;
  return {
    'servers.list': () => servers.views(),
    'servers.get': async ({ id }) => {
      const server = await servers.view(id);
      const negotiated = registry.negotiated(id);
      const cached = registry.toolsFromCache(id);
      const logLevel = registry.logLevel(id);
      const config = registry.server(id);
      const sandboxProfile = config ? deps.sandboxProfile?.(config) : undefined;
      return {
        server,
        // The server's own words (instructions, its info) may quote a credential it was given.
        ...(negotiated ? { negotiated: redactor.redactSecretValues(negotiatedView(negotiated)) } : {}),
        tools: harness
          .listTools()
          .filter((t) => t.serverId === id)
          .map((t) => toolView(t, cached)),
        conflicts: registry.conflicts().filter((c) => c.servers.some((s) => s.serverId === id)),
        ...(logLevel ? { logLevel } : {}),
        ...(sandboxProfile ? { sandboxProfile } : {}),
      };
    },
    'servers.save': (request) => {
      // The values the person typed are secrets from now on: keep them out of every message.
      for (const value of Object.values(request.secrets)) redactor.add(value);
      return servers.save(request);
    },
    // Its rules go first when asked (the GUI offers it), so none outlives the server.
    'servers.remove': async ({ id, removeRules }) => ({
      rulesRemoved: removeRules ? await permissions.removeRulesOfServer(id) : 0,
      removed: await servers.remove(id),
    }),
    'servers.setEnabled': ({ id, enabled }) => servers.setEnabled(id, enabled),
    'servers.connect': ({ id }) => servers.connect(id),
    'servers.disconnect': ({ id }) => servers.disconnect(id),
    'servers.discover': async ({ refresh }) => {
      // Answers at once with the servers as they are now; discovery runs on, and each server's
      // status streams in as 'server.status' / 'servers.changed' events (never a rejection).
      const views = await servers.views();
      registry
        .discover({ refresh })
        .catch((error: unknown) =>
          deps.warn(`Discovery failed: ${redactor.redactText(error instanceof Error ? error.message : String(error))}`),
        );
      return views;
    },
    'servers.log': ({ id }) => {
      if (!registry.server(id)) throw new AppError('not_found', `There is no server "${id}".`);
      return registry.logOf(id).all();
    },
    'servers.setLogLevel': async ({ id, level }) => {
      if (!registry.server(id)) throw new AppError('not_found', `There is no server "${id}".`);
      await registry.setLogLevel(id, level);
      return { level };
    },
  };
}
