/**
 * What a 2025 agent may follow through the gateway beside calls (issue 28.15):
 *
 * - `resources/subscribe` / `resources/unsubscribe` of a resource it may read (routed as a read
 *   is: agentFeatures.ts): the gateway subscribes on the server behind when the app is not already
 *   subscribed there, and unsubscribes there once no agent follows a URI it subscribed to itself; a
 *   `notifications/resources/updated` of that server for that URI reaches every session that
 *   follows it, under the URI the agent asked for. (2026-07-28 has no `resources/subscribe`.)
 * - The servers' log messages: while an agent's call runs on a server and is the only call of the
 *   gateway in flight there (a log message carries no request id, so it can only be tied to a call
 *   that way), that server's log messages (as the app's client received them: redacted) go to the
 *   agent as `notifications/message` on the call's stream, at the agent's level — the SDK's
 *   `ctx.mcpReq.log` applies `logging/setLevel` (2025) or the request's own level (2026-07-28).
 *   What the server sends at all is what the app asked of it (Servers → log level).
 */
import type { LogLevel } from '../mcp/logBuffer.js';

/** A log message of a server behind, as the app's client received it. */
interface ServerLogMessage {
  level: LogLevel;
  text: string;
  logger?: string;
}

/** What the gateway needs of the app for subscriptions and logs (composed in core/gatewayWiring.ts). */
export interface GatewayFollowing {
  /** Subscribes the app on that server; resolves with whether it was already subscribed (then the gateway never unsubscribes it). */
  subscribe(serverId: string, uri: string): Promise<{ already: boolean }>;
  unsubscribe(serverId: string, uri: string): Promise<void>;
  /** `notifications/resources/updated` of a server, as the app received it. */
  onResourceUpdated(listener: (serverId: string, uri: string) => void): () => void;
  /** That server's log messages from now on. */
  onServerLog(serverId: string, listener: (message: ServerLogMessage) => void): () => void;
}

const keyOf = (serverId: string, uri: string): string => `${serverId}\0${uri}`;

/** The subscriptions of every agent session, and which of them the gateway made on the servers behind. */
export class AgentSubscriptions {
  /** Sessions following each `<server>\0<uri>`. */
  private readonly followers = new Map<string, Set<object>>();
  /** Subscriptions the gateway made itself (the app was not subscribed): undone when the last follower goes. */
  private readonly owned = new Set<string>();

  constructor(private readonly following: GatewayFollowing) {}

  async subscribe(session: object, serverId: string, uri: string): Promise<void> {
    const key = keyOf(serverId, uri);
    const set = this.followers.get(key) ?? new Set<object>();
    if (set.size === 0) {
      const { already } = await this.following.subscribe(serverId, uri);
      if (!already) this.owned.add(key);
    }
    set.add(session);
    this.followers.set(key, set);
  }

  async unsubscribe(session: object, serverId: string, uri: string): Promise<void> {
    const key = keyOf(serverId, uri);
    const set = this.followers.get(key);
    if (!set?.delete(session) || set.size > 0) return;
    this.followers.delete(key);
    if (this.owned.delete(key)) await this.following.unsubscribe(serverId, uri).catch(() => undefined);
  }

  /** A session ended: everything it followed is let go. */
  async release(session: object): Promise<void> {
    const held = [...this.followers].filter(([, set]) => set.has(session)).map(([key]) => key);
    for (const key of held) {
      const [serverId, uri] = key.split('\0') as [string, string];
      await this.unsubscribe(session, serverId, uri);
    }
  }
}

/** Gateway calls in flight per server: a server's log messages are tied to a call only when it is the only one. */
export class CallsPerServer {
  private readonly counts = new Map<string, number>();

  begin(serverId: string): () => void {
    this.counts.set(serverId, (this.counts.get(serverId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(serverId) ?? 1) - 1;
      if (left === 0) this.counts.delete(serverId);
      else this.counts.set(serverId, left);
    };
  }

  alone(serverId: string): boolean {
    return this.counts.get(serverId) === 1;
  }
}
