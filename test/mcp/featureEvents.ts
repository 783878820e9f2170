/** Waits for the registry's feature events (list changes, resource updates), so tests react to what happened instead of sleeping. */
import type { FeatureEvent, MCPToolRegistry } from '../../electron/mcp/registry.js';

/** Resolves with the first feature event from now on that matches. */
export function nextFeatureEvent(
  registry: MCPToolRegistry,
  match: (event: FeatureEvent) => boolean,
): Promise<FeatureEvent> {
  return new Promise((resolve) => {
    const unsubscribe = registry.features.subscribe((event) => {
      if (!match(event)) return;
      unsubscribe();
      resolve(event);
    });
  });
}
