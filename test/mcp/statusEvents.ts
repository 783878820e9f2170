/** Waits for registry status events, so tests react to what happened instead of sleeping. */
import type { MCPToolRegistry, ServerStatus } from '../../electron/mcp/registry.js';

/** Resolves with the first status of `serverId` from now on that matches (rejects after `timeoutMs`, a safety net). */
export function nextStatus(
  registry: MCPToolRegistry,
  serverId: string,
  match: (status: ServerStatus) => boolean,
  timeoutMs = 20_000,
): Promise<ServerStatus> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(
        new Error(
          `no matching status of "${serverId}" within ${timeoutMs} ms (last: ${JSON.stringify(registry.status(serverId))})`,
        ),
      );
    }, timeoutMs);
    const unsubscribe = registry.subscribe((event) => {
      if (event.type !== 'status' || event.serverId !== serverId || !match(event.status)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event.status);
    });
  });
}

/** Records every status of `serverId` from now on. */
export function recordStatuses(registry: MCPToolRegistry, serverId: string): ServerStatus[] {
  const seen: ServerStatus[] = [];
  registry.subscribe((event) => {
    if (event.type === 'status' && event.serverId === serverId) seen.push(event.status);
  });
  return seen;
}
