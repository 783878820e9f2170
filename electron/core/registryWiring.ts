/**
 * The registry's and the tracer's events as contract events: a server's status (and the end of
 * the calls of a server that is gone: serverGone.ts), tool lists for the GUI and — through
 * `gatewayToolsChanged` — for the agents, the servers list (once per turn), every server's log
 * lines, and the traces written (an agent's also updates the Agents view).
 */
import { throttle } from '../util/throttle.js';
import type { HarnessApplication } from '../harness/application.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { Tracer } from '../tracing/tracer.js';
import { GUI_USER } from './callService.js';
import type { CallService } from './callService.js';
import type { EventHub } from './eventHub.js';
import { toolsPayload } from './handlers/tools.js';
import { serverGoneWhy } from './serverGone.js';
import { statusView } from './views.js';
import type { AppWarnings } from './warnings.js';

/** How often agent traffic may rebuild the Agents view. */
const AGENT_ACTIVITY_EVERY_MS = 500;

export interface RegistryWiringDeps {
  hub: EventHub;
  warnings: AppWarnings;
  registry: MCPToolRegistry;
  harness: HarnessApplication;
  tracer: Tracer;
  calls: CallService;
  /** The servers list changed (sent once per turn). */
  serversChanged: () => void;
  /** The tools agents may see changed. */
  gatewayToolsChanged: () => void;
  /** An agent's trace was written: its last call and count follow in the Agents view. */
  agentsChanged: () => void;
}

export interface RegistryWiring {
  /** Follows the log of every configured server (and stops following removed ones). */
  followLogs(): void;
  /** Stops following the logs. */
  stopLogs(): void;
}

export function wireRegistryEvents(deps: RegistryWiringDeps): RegistryWiring {
  const { hub, registry, harness } = deps;
  const emit = hub.emit;

  const logSubscriptions = new Map<string, () => void>();
  function followLogs(): void {
    for (const config of registry.servers()) {
      if (logSubscriptions.has(config.id)) continue;
      logSubscriptions.set(
        config.id,
        registry.logOf(config.id).subscribe((line) => emit('server.log', { serverId: config.id, line })),
      );
    }
    for (const [id, unsubscribe] of logSubscriptions) {
      if (!registry.server(id)) {
        unsubscribe();
        logSubscriptions.delete(id);
      }
    }
  }

  // The Agents view counts each agent's traces in the database: rebuilt at most twice a second
  // under agent traffic (util/throttle.ts), and only while a window or page can show it.
  const agentActivity = throttle(deps.agentsChanged, AGENT_ACTIVITY_EVERY_MS);
  deps.tracer.onEvent((notification) => {
    if (notification.kind === 'event') return;
    emit('trace.changed', { trace: notification.trace });
    // An agent's trace written (traces are committed in batches, after the call): its last call and count follow.
    if (notification.trace.userId !== GUI_USER && hub.listening) agentActivity();
  });

  registry.subscribe((event) => {
    switch (event.type) {
      case 'status': {
        emit('server.status', { serverId: event.serverId, status: statusView(event.status), at: event.at });
        // Removed, disabled or gone for good: its waiting calls are answered now (core/serverGone.ts).
        const gone = serverGoneWhy(event.serverId, event.status, registry.server(event.serverId) !== undefined);
        if (gone) deps.calls.endCallsOf(event.serverId, gone);
        // A server listed from the cache that became ready (or failed) changes its tools' "cached" mark.
        if (registry.hasCachedTools(event.serverId)) {
          emit('tools.changed', toolsPayload(harness, registry));
          deps.gatewayToolsChanged();
        }
        deps.serversChanged();
        return;
      }
      case 'tools':
        emit('tools.changed', toolsPayload(harness, registry));
        deps.gatewayToolsChanged();
        deps.serversChanged();
        return;
      case 'servers':
        followLogs();
        deps.gatewayToolsChanged();
        deps.serversChanged();
        return;
      case 'warning':
        deps.warnings.notice(event.message);
        return;
    }
  });

  return {
    followLogs,
    stopLogs: () => {
      for (const unsubscribe of logSubscriptions.values()) unsubscribe();
    },
  };
}
