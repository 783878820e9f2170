/**
 * Each agent's share of what the gateway holds open, so that no agent can lock the others out.
 * The HTTP server closes any connection beyond its cap (security/httpLimits.ts), whoever opens
 * it: before these shares, one agent that opened 512 `subscriptions/listen` streams took every
 * connection, and every other agent's was reset. Now an agent may hold at most
 * MAX_LISTEN_STREAMS_PER_AGENT listen streams (as it may hold at most 32 sessions:
 * sessionLimit.ts), and at most a quarter of the connection cap in requests open at once (streams,
 * calls waiting, anything not yet answered): beyond either, the new request is refused (503,
 * Retry-After) with a sentence naming the limit, and what the agent already holds keeps running.
 * The GUI never shares these connections (Electron's IPC, or browser mode's own server).
 */
import type { ServerResponse } from 'node:http';

/** Listen streams one agent may hold open at once. */
export const MAX_LISTEN_STREAMS_PER_AGENT = 32;

/** The part of the connection cap one agent may hold in open requests: a quarter, so that others always keep room. */
export function openRequestShare(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 4));
}

/** Responses still open, counted per agent, each until it closes. */
export class OpenPerAgent {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Counts `res` for `agentId` until it closes; false (and not counted) when the agent already holds `max`. */
  hold(agentId: string, res: ServerResponse): boolean {
    const now = this.open.get(agentId) ?? 0;
    if (now >= this.max) return false;
    this.open.set(agentId, now + 1);
    res.once('close', () => {
      const left = (this.open.get(agentId) ?? 1) - 1;
      if (left > 0) this.open.set(agentId, left);
      else this.open.delete(agentId);
    });
    return true;
  }

  /** How many `agentId` holds now. */
  count(agentId: string): number {
    return this.open.get(agentId) ?? 0;
  }
}
