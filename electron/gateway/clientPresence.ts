/**
 * Who is connected to the gateway, in both eras, and when someone stops being connected. One
 * rule for both: a client is listed while it holds a request open (a call in progress, a 2025 GET
 * notification stream, a 2026-07-28 `subscriptions/listen` stream) or was last seen within the
 * idle window (a setting, Settings → Agent gateway; AGENT_IDLE_MS by default). Only the first is
 * a live connection, and the view says which (a session's `open`, a client's `listening`): a
 * process that exits without ending its session says nothing, so a client only seen lately may
 * be gone — it is shown as seen, never as connected, and forgotten once unseen that long.
 *
 * 2025 sessions are the gateway's own (agentSession.ts; gateway.ts closes them once idle).
 * 2026-07-28 clients have no session: this registry keeps them, per agent, by the clientInfo
 * each request carries in its `_meta` envelope (`io.modelcontextprotocol/clientInfo`, the
 * client's own words), and forgets them once idle. The clock is injected (tests advance it).
 */
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { AgentRecentClientView } from '../../shared/agents.js';
import { DEFAULT_AGENT_IDLE_MINUTES } from '../../shared/agents.js';

/** By default, a client unseen this long, with no request open, is no longer connected (a 2025 session is then closed). */
export const AGENT_IDLE_MS = DEFAULT_AGENT_IDLE_MINUTES * 60_000;

/** Milliseconds since the epoch, as Date.now. */
export type Clock = () => number;

/** Something that can be idle: when it was last seen and how many of its requests are open now. */
export interface Presence {
  lastSeenAt: number;
  openRequests: number;
}

export function isIdle(presence: Presence, now: number, idleMs: number): boolean {
  return presence.openRequests === 0 && now - presence.lastSeenAt > idleMs;
}

/**
 * Marks a request of `presence` open until `res` closes (answered, stream ended or the socket
 * gone): seen at its start and at its end. `onOpenChanged`: it went from no request open to one,
 * or back (the Agents view tells a live connection from one only seen lately).
 */
export function holdWhileOpen(
  presence: Presence,
  res: { once(event: 'close', listener: () => void): unknown },
  clock: Clock,
  onOpenChanged?: () => void,
): void {
  presence.openRequests++;
  presence.lastSeenAt = clock();
  if (presence.openRequests === 1) onOpenChanged?.();
  res.once('close', () => {
    presence.openRequests--;
    presence.lastSeenAt = clock();
    if (presence.openRequests === 0) onOpenChanged?.();
  });
}

interface ModernClient extends Presence {
  name: string | undefined;
  version: string | undefined;
  protocolVersion: string;
  firstSeenAt: number;
  listening: number;
}

function stringAt(record: unknown, key: string): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 200) : undefined;
}

/** The envelope's claims of one modern request (its first message with an envelope, for a batch): who it says it is and the revision. */
export function envelopeOf(
  body: unknown,
): { name?: string; version?: string; protocolVersion: string; listen: boolean } | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
    const meta = typeof params === 'object' && params !== null ? params._meta : undefined;
    const protocolVersion = stringAt(meta, PROTOCOL_VERSION_META_KEY);
    if (!meta || !protocolVersion) continue;
    const info = meta[CLIENT_INFO_META_KEY];
    const name = stringAt(info, 'name');
    const version = stringAt(info, 'version');
    return {
      ...(name ? { name } : {}),
      ...(version ? { version } : {}),
      protocolVersion,
      listen: method === 'subscriptions/listen',
    };
  }
  return undefined;
}

/** 2026-07-28 clients seen lately, per agent, keyed by what they say they are. */
export class ModernClients {
  private readonly byAgent = new Map<string, Map<string, ModernClient>>();

  constructor(
    private readonly clock: Clock,
    private idleMs: number,
    /** A client stopped listening (its stream closed: it may have exited): the view changed. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** The idle window changed (Settings): `list` and `forgetIdle` measure by the new one from now. */
  setIdleMs(idleMs: number): void {
    this.idleMs = idleMs;
  }

  /**
   * A modern request of `agentId` (its body already read) is being served until `res` closes.
   * Returns true when this client was not listed a moment ago (the view changed).
   */
  request(agentId: string, body: unknown, res: { once(event: 'close', listener: () => void): unknown }): boolean {
    const envelope = envelopeOf(body);
    if (!envelope) return false;
    const key = JSON.stringify([envelope.name ?? null, envelope.version ?? null, envelope.protocolVersion]);
    let clients = this.byAgent.get(agentId);
    if (!clients) this.byAgent.set(agentId, (clients = new Map()));
    const known = clients.get(key);
    const now = this.clock();
    const client: ModernClient = known ?? {
      name: envelope.name,
      version: envelope.version,
      protocolVersion: envelope.protocolVersion,
      firstSeenAt: now,
      lastSeenAt: now,
      openRequests: 0,
      listening: 0,
    };
    clients.set(key, client);
    holdWhileOpen(client, res, this.clock);
    if (envelope.listen) {
      client.listening++;
      res.once('close', () => {
        client.listening--;
        if (client.listening === 0) this.onChange();
      });
    }
    // A new client, or one that starts listening (connected now), changes the view.
    return known === undefined || (envelope.listen && client.listening === 1);
  }

  /** The agent's modern clients connected now, most recently seen first. */
  list(agentId: string): AgentRecentClientView[] {
    const now = this.clock();
    return [...(this.byAgent.get(agentId)?.values() ?? [])]
      .filter((c) => !isIdle(c, now, this.idleMs))
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
      .map((c) => ({
        ...(c.name ? { clientName: c.name } : {}),
        ...(c.version ? { clientVersion: c.version } : {}),
        protocolVersion: c.protocolVersion,
        firstSeenAt: c.firstSeenAt,
        lastSeenAt: c.lastSeenAt,
        listening: c.listening > 0,
      }));
  }

  /** Forgets the clients idle now; returns true when one was forgotten (the view changed). */
  forgetIdle(): boolean {
    const now = this.clock();
    let forgot = false;
    for (const [agentId, clients] of this.byAgent) {
      for (const [key, client] of clients) {
        if (!isIdle(client, now, this.idleMs)) continue;
        clients.delete(key);
        forgot = true;
      }
      if (clients.size === 0) this.byAgent.delete(agentId);
    }
    return forgot;
  }

  /** The gateway stopped: no one is connected. */
  forgetAll(): void {
    this.byAgent.clear();
  }

  /** The agent was revoked or removed: its clients are no longer listed. */
  forgetAgent(agentId: string): void {
    this.byAgent.delete(agentId);
  }
}
