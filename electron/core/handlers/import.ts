/** `import.*`: previewing and applying a server list from another client's configuration file. */
import type { MCPToolRegistry } from '../../mcp/registry.js';
import type { SecretRedactor } from '../../secrets/secretRedactor.js';
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';
import { planImport } from '../importer.js';
import type { ServerService } from '../serverService.js';
import { importServerView } from '../views.js';

export function importHandlers(deps: {
  registry: MCPToolRegistry;
  servers: ServerService;
  redactor: SecretRedactor;
}): Pick<Handlers, 'import.preview' | 'import.apply'> {
  const { registry, servers, redactor } = deps;
  return {
    'import.preview': ({ content, fileName }) => {
      const plan = planImport(content, fileName);
      return {
        format: plan.format,
        inputs: plan.inputs,
        servers: plan.servers.map((server) => importServerView(server, (id) => registry.server(id) !== undefined)),
      };
    },
    'import.apply': async ({ content, fileName, names, inputs }) => {
      const plan = planImport(content, fileName);
      const chosen = plan.servers.filter((s) => names.includes(s.name));
      const missing = names.filter((n) => !plan.servers.some((s) => s.name === n));
      if (missing.length)
        throw new AppError(
          'import_unknown_server',
          `The file has no server named ${missing.map((n) => `"${n}"`).join(', ')}. Nothing was imported.`,
        );
      for (const server of chosen) for (const value of Object.values(server.fileSecrets)) redactor.add(value);
      for (const value of Object.values(inputs)) redactor.add(value);
      return { imported: await servers.importPlanned(chosen, inputs) };
    },
  };
}
