/**
 * The servers a run may use (its visibility: every enabled server, or the listed ones), on the
 * registry: which are not ready now, and a bounded wait until each is ready with its tools listed
 * (a cold start lists them after connecting) or has failed. The app may have just started — its
 * servers still `idle` or connecting — when a run is started or resumed (runs/runEngine.ts).
 */
import type { AgentVisibility } from '../../shared/agents.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { RunServers, ServerNotReady } from './runEngine.js';

export const RUN_SERVER_WAIT_MS = 30_000;

type Registry = Pick<MCPToolRegistry, 'servers' | 'status' | 'whenReady' | 'hasTools'>;

export function runServers(registry: Registry, waitMs = RUN_SERVER_WAIT_MS): RunServers {
  const visible = (visibility: AgentVisibility): string[] =>
    registry
      .servers()
      .filter((config) => config.enabled && (visibility.allServers || visibility.serverIds.includes(config.id)))
      .map((config) => config.id);
  return {
    waitMs,
    notReady(visibility): ServerNotReady[] {
      return visible(visibility).flatMap((serverId) => {
        const status = registry.status(serverId);
        if (status?.state === 'ready' && registry.hasTools(serverId)) return [];
        const reason =
          status?.state === 'error' || status?.state === 'reconnecting'
            ? status.reason
            : status?.state === 'ready'
              ? 'its tools are not listed yet'
              : (status?.state ?? 'not configured');
        return [{ serverId, reason }];
      });
    },
    async settle(serverIds, signal): Promise<ServerNotReady[]> {
      return settle(registry, waitMs, serverIds, signal);
    },
  };
}

/**
 * The servers of this visibility still starting — `idle` or connecting, or ready with their tools
 * not listed yet — as opposed to failed or reconnecting: what a caller that found no tool by a
 * name waits for (the gateway, while the app starts) before saying there is none.
 */
export function startingServers(registry: Registry, visibility: AgentVisibility): string[] {
  return registry
    .servers()
    .filter((config) => config.enabled && (visibility.allServers || visibility.serverIds.includes(config.id)))
    .filter((config) => {
      const state = registry.status(config.id)?.state;
      return state === 'idle' || state === 'connecting' || (state === 'ready' && !registry.hasTools(config.id));
    })
    .map((config) => config.id);
}

/** Waits until each server is ready with its tools listed, or failed, or `waitMs`; resolves with those not ready. */
export async function settle(
  registry: Registry,
  waitMs: number,
  serverIds: string[],
  signal: AbortSignal,
): Promise<ServerNotReady[]> {
  const outcomes = await Promise.all(
    serverIds.map((serverId) =>
      registry.whenReady(serverId, { timeoutMs: waitMs, signal, throughIdle: true, withTools: true }).then(
        () => undefined,
        (error: unknown) => ({ serverId, reason: error instanceof Error ? error.message : String(error) }),
      ),
    ),
  );
  return outcomes.filter((o): o is ServerNotReady => o !== undefined);
}
