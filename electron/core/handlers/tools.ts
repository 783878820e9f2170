/** `tools.*`: the tool list (local and every server's), calls and cancellation. */
import type { EventOf } from '../../../shared/contract.js';
import type { HarnessApplication } from '../../harness/application.js';
import type { MCPToolRegistry } from '../../mcp/registry.js';
import type { CallService } from '../callService.js';
import type { Handlers } from '../dispatcher.js';
import { toolView } from '../views.js';

/** The tool list as `tools.list` answers it and `tools.changed` sends it. */
export function toolsPayload(harness: HarnessApplication, registry: MCPToolRegistry): EventOf<'tools.changed'> {
  return {
    tools: harness.listTools().map((t) => toolView(t, registry.toolsFromCache(t.serverId))),
    conflicts: registry.conflicts(),
  };
}

export function toolHandlers(deps: {
  harness: HarnessApplication;
  registry: MCPToolRegistry;
  calls: CallService;
}): Pick<Handlers, 'tools.list' | 'tools.call' | 'tools.cancel'> {
  const { calls } = deps;
  return {
    'tools.list': () => toolsPayload(deps.harness, deps.registry),
    'tools.call': (request) => calls.call(request),
    'tools.cancel': ({ callId }) => ({ cancelled: calls.cancel(callId) }),
  };
}
