/**
 * `resources.*`, `prompts.*`, `completion.complete`: what a server offers beside tools — browse
 * its resources and prompts, read, get (traced: serverFeatureService.ts), subscribe, complete —
 * and the registry's feature events as contract events.
 */
import type { EventName, EventOf } from '../../../shared/contract.js';
import type { MCPToolRegistry } from '../../mcp/registry.js';
import type { Handlers } from '../dispatcher.js';
import type { ServerFeatureService } from '../serverFeatureService.js';
import { completionView, promptListView, resourceListView } from '../views.js';

type FeatureChannels =
  | 'resources.list'
  | 'resources.read'
  | 'resources.subscribe'
  | 'resources.unsubscribe'
  | 'prompts.list'
  | 'prompts.get'
  | 'completion.complete';

export function resourceHandlers(deps: {
  registry: MCPToolRegistry;
  features: ServerFeatureService;
}): Pick<Handlers, FeatureChannels> {
  const { features } = deps.registry;
  return {
    'resources.list': async ({ serverId, refresh }) =>
      resourceListView(await features.resources(serverId, { refresh })),
    'resources.read': (request) => deps.features.read(request),
    'resources.subscribe': async ({ serverId, uri }) => ({
      subscribed: await features.subscribeResource(serverId, uri),
    }),
    'resources.unsubscribe': async ({ serverId, uri }) => ({
      subscribed: await features.unsubscribeResource(serverId, uri),
    }),
    'prompts.list': async ({ serverId, refresh }) => promptListView(await features.prompts(serverId, { refresh })),
    'prompts.get': (request) => deps.features.getPrompt(request),
    'completion.complete': async ({ serverId, ref, argument, context }) =>
      completionView(await features.complete(serverId, { target: ref, argument, ...(context ? { context } : {}) })),
  };
}

/** The registry's feature events → 'resources.changed', 'resources.updated', 'prompts.changed'. */
export function forwardFeatureEvents(
  registry: MCPToolRegistry,
  emit: <E extends EventName>(event: E, payload: EventOf<E>) => void,
): () => void {
  return registry.features.subscribe((event) => {
    if (event.type === 'resources') emit('resources.changed', { serverId: event.serverId });
    else if (event.type === 'prompts') emit('prompts.changed', { serverId: event.serverId });
    else emit('resources.updated', { serverId: event.serverId, uri: event.uri, at: event.at });
  });
}
