/**
 * Calls a tool by name on the server a call by name reaches (the registry's routing), as the
 * harness does; the registry itself only calls a tool on a given server.
 */
import { MCPUnknownToolError } from '../../electron/mcp/errors.js';
import type { MCPToolRegistry, RegistryCallOptions } from '../../electron/mcp/registry.js';
import type { NormalizedToolResult } from '../../electron/results/toolResult.js';

export function callByName(
  registry: MCPToolRegistry,
  name: string,
  args: Record<string, unknown>,
  options: RegistryCallOptions = {},
): Promise<NormalizedToolResult> {
  const target = registry.resolve(name);
  if (!target) throw new MCPUnknownToolError(name);
  return registry.callServerTool(target.serverId, name, args, options);
}
