/**
 * The egress ask's wiring (issue 29, sandbox/egressAsk.ts): which call runs on a server now (from
 * the tracer's started and finished traces), the approval broker that asks, the server service
 * that keeps "always" in a server's profile, and the `sandbox.*` handlers (host rules beside the
 * permission rules, and the choice to run a server unsandboxed).
 */
import { EgressAsks } from '../sandbox/egressAsk.js';
import type { EgressCall } from '../sandbox/egressAsk.js';
import type { Tracer } from '../tracing/tracer.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { Late } from '../util/late.js';
import type { ApprovalBroker } from './approvalBroker.js';
import type { Handlers } from './dispatcher.js';
import type { ServerService } from './serverService.js';

/** The calls running on each server, newest last, followed from the tracer's notifications (an ask names the newest). */
class CallsInFlight {
  private readonly running = new Map<string, EgressCall & { serverId: string }>();
  private idleWaiters: { serverId: string; resolve: () => void }[] = [];

  constructor(tracer: Tracer) {
    tracer.onEvent((notification) => {
      if (notification.kind === 'trace_started') {
        const { traceId, serverId, sessionId, callId, toolName, userId } = notification.trace;
        this.running.set(traceId, { serverId, sessionId, callId, toolName, userId });
      } else if (notification.kind === 'trace_finished') {
        this.running.delete(notification.trace.traceId);
        this.wakeIdle();
      }
    });
  }

  /** Resolves when no call runs on the server (at once when none does). */
  idle(serverId: string): Promise<void> {
    if (!this.newestOn(serverId)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ serverId, resolve }));
  }

  private wakeIdle(): void {
    const waiting = this.idleWaiters;
    this.idleWaiters = waiting.filter((w) => this.newestOn(w.serverId));
    for (const w of waiting) if (!this.newestOn(w.serverId)) w.resolve();
  }

  newestOn(serverId: string): EgressCall | undefined {
    let newest: EgressCall | undefined;
    for (const call of this.running.values()) if (call.serverId === serverId) newest = call;
    return newest;
  }
}

export function wireEgress(deps: {
  tracer: Tracer;
  broker: ApprovalBroker;
  approvalTimeoutMs: () => number;
  servers: Late<ServerService>;
  registry: Late<MCPToolRegistry>;
  onRulesChanged: () => void;
}): EgressAsks {
  const { registry } = deps;
  const calls = new CallsInFlight(deps.tracer);
  return new EgressAsks({
    ask: deps.broker.requestEgress,
    timeoutMs: deps.approvalTimeoutMs,
    callInFlight: (serverId) => calls.newestOn(serverId),
    addToProfile: async (serverId, entry) => {
      // Saving the profile restarts the server: not under the call that is using the connection.
      await calls.idle(serverId);
      await deps.servers
        .get()
        .updateSandbox(serverId, (sandbox) =>
          sandbox.hosts.includes(entry) ? sandbox : { ...sandbox, hosts: [...sandbox.hosts, entry] },
        );
      deps.onRulesChanged();
    },
    onChange: deps.onRulesChanged,
    note: (serverId, text) => {
      if (registry.get().server(serverId)) registry.get().logOf(serverId).note(text);
    },
  });
}

export function sandboxHandlers(deps: {
  egress: EgressAsks;
  registry: MCPToolRegistry;
  servers: ServerService;
  onRulesChanged: () => void;
}): Pick<Handlers, 'sandbox.hostRules' | 'sandbox.revokeHost' | 'sandbox.runUnsandboxed'> {
  const { egress, registry, servers } = deps;
  return {
    'sandbox.hostRules': () => [
      ...registry
        .servers()
        .flatMap((config) =>
          config.transport === 'stdio'
            ? (config.sandbox?.hosts ?? []).map((host) => ({ serverId: config.id, host, source: 'profile' as const }))
            : [],
        ),
      ...egress.sessionGrants().map((grant) => ({ ...grant, source: 'session' as const })),
    ],
    'sandbox.revokeHost': async ({ serverId, host, source }) => {
      if (source === 'session') return { revoked: egress.revokeSession(serverId, host) };
      const config = registry.server(serverId);
      if (config?.transport !== 'stdio' || !config.sandbox?.hosts.includes(host)) return { revoked: false };
      await servers.updateSandbox(serverId, (sandbox) => ({
        ...sandbox,
        hosts: sandbox.hosts.filter((h) => h !== host),
      }));
      deps.onRulesChanged();
      return { revoked: true };
    },
    'sandbox.runUnsandboxed': async ({ serverId }) => {
      await servers.updateSandbox(serverId, (sandbox) => ({ ...sandbox, enabled: false }));
      return { ok: true as const };
    },
  };
}
