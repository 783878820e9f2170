/**
 * What the browser-mode host still has to send one page, kept bounded however slowly that page
 * reads. The WebSocket's `bufferedAmount` (bytes handed to the socket and not yet written out)
 * is the signal: below the high-water mark frames go straight out; above it the page is
 * "backlogged" and events wait here instead, where they are coalesced or dropped by kind:
 *
 * - `server.log` lines are dropped and counted per server; when the page catches up it gets one
 *   `bridge.dropped` {event: 'server.log', serverId, count} per server (its log view says so).
 * - State events keep only their latest value per subject (`servers.changed`, `tools.changed`,
 *   `permissions.changed`, `server.status` per server, `call.progress` per call, `trace.changed`
 *   per trace, `resources.changed` / `prompts.changed` per server, `resources.updated` per
 *   resource): the page ends up in the same state, sooner.
 * - Everything else (approvals, and any event not named here) is kept in order.
 *
 * The held events are capped in bytes too; an event past the cap is dropped and counted, and the
 * page is told to reload what it shows (`bridge.dropped` without serverId). Call results are
 * never held: they answer requests, so instead the host stops reading that page's requests
 * while it is backlogged (TCP then slows the page down).
 *
 * Draining is event-driven: every write's callback runs when the bytes left the process, and the
 * last one runs when nothing is buffered, so the outbox never polls.
 */
import type { EventName } from '../../shared/contract.js';

/** The part of a `ws` WebSocket the outbox uses. */
export interface OutboxSocket {
  readonly bufferedAmount: number;
  readonly readyState: number;
  readonly OPEN: number;
  send(text: string, onWritten: (error?: Error) => void): void;
  pause(): void;
  resume(): void;
}

export interface OutboxLimits {
  /** Above this many buffered bytes the page counts as backlogged. */
  highWaterBytes: number;
  /** Held events are sent again once the buffer is down to this. */
  lowWaterBytes: number;
  /** The most held (coalesced or ordered) event bytes per page. */
  maxHeldBytes: number;
}

export const DEFAULT_OUTBOX_LIMITS: OutboxLimits = {
  highWaterBytes: 1024 * 1024,
  lowWaterBytes: 256 * 1024,
  maxHeldBytes: 4 * 1024 * 1024,
};

export interface OutboxStats {
  bufferedAmount: number;
  /** The most bytes ever buffered for this page (checked after every write). */
  maxBufferedAmount: number;
  backlogged: boolean;
  readingPaused: boolean;
  heldEvents: number;
  heldBytes: number;
  /** Log lines dropped and not yet reported to the page. */
  unreportedDroppedLines: number;
  /** Every event dropped since the page connected (log lines and others). */
  droppedTotal: number;
}

type Policy = { kind: 'drop'; serverId: string } | { kind: 'latest'; key: string } | { kind: 'keep' };

function field(value: unknown, key: string): unknown {
  return value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

function policyOf(event: EventName, payload: unknown): Policy {
  switch (event) {
    case 'server.log':
      return { kind: 'drop', serverId: String(field(payload, 'serverId')) };
    case 'servers.changed':
    case 'tools.changed':
    case 'permissions.changed':
      return { kind: 'latest', key: event };
    case 'server.status':
      return { kind: 'latest', key: `${event}:${String(field(payload, 'serverId'))}` };
    case 'call.progress':
    case 'call.task':
      return { kind: 'latest', key: `${event}:${String(field(payload, 'callId'))}` };
    case 'resources.changed':
    case 'prompts.changed':
      return { kind: 'latest', key: `${event}:${String(field(payload, 'serverId'))}` };
    case 'resources.updated':
      return {
        kind: 'latest',
        key: `${event}:${String(field(payload, 'serverId'))}\0${String(field(payload, 'uri'))}`,
      };
    case 'trace.changed':
      return { kind: 'latest', key: `${event}:${String(field(field(payload, 'trace'), 'traceId'))}` };
    default:
      return { kind: 'keep' };
  }
}

function eventFrame(event: string, payload: unknown): string {
  return JSON.stringify({ t: 'event', event, payload });
}

export class EventOutbox {
  private backlogged = false;
  private readingPaused = false;
  private closed = false;
  private readonly held = new Map<string, { text: string; bytes: number }>();
  private heldBytes = 0;
  private sequence = 0;
  private readonly droppedLines = new Map<string, number>();
  private readonly droppedEvents = new Map<string, number>();
  private droppedTotal = 0;
  private maxBufferedAmount = 0;

  constructor(
    private readonly socket: OutboxSocket,
    private readonly limits: OutboxLimits = DEFAULT_OUTBOX_LIMITS,
  ) {}

  /** A contract event for this page: sent now, held, coalesced or dropped (see above). */
  event(event: EventName, payload: unknown): void {
    if (this.closed) return;
    if (!this.backlogged) {
      this.write(eventFrame(event, payload));
      return;
    }
    const policy = policyOf(event, payload);
    if (policy.kind === 'drop') {
      this.droppedLines.set(policy.serverId, (this.droppedLines.get(policy.serverId) ?? 0) + 1);
      this.droppedTotal += 1;
      return;
    }
    const key = policy.kind === 'latest' ? policy.key : `#${this.sequence++}`;
    const previous = this.held.get(key);
    if (previous) {
      this.held.delete(key);
      this.heldBytes -= previous.bytes;
    }
    const text = eventFrame(event, payload);
    const bytes = Buffer.byteLength(text);
    if (this.heldBytes + bytes > this.limits.maxHeldBytes) {
      this.droppedEvents.set(event, (this.droppedEvents.get(event) ?? 0) + 1);
      this.droppedTotal += 1;
      return;
    }
    this.held.set(key, { text, bytes });
    this.heldBytes += bytes;
  }

  /** A call result: always sent; while the page is backlogged, its requests are not read. */
  result(text: string): void {
    if (this.closed) return;
    this.write(text);
    if (this.backlogged && !this.readingPaused) {
      this.readingPaused = true;
      this.socket.pause();
    }
  }

  /** The socket closed: forget everything held. */
  close(): void {
    this.closed = true;
    this.held.clear();
    this.heldBytes = 0;
    this.droppedLines.clear();
    this.droppedEvents.clear();
  }

  stats(): OutboxStats {
    let unreported = 0;
    for (const count of this.droppedLines.values()) unreported += count;
    return {
      bufferedAmount: this.socket.bufferedAmount,
      maxBufferedAmount: this.maxBufferedAmount,
      backlogged: this.backlogged,
      readingPaused: this.readingPaused,
      heldEvents: this.held.size,
      heldBytes: this.heldBytes,
      unreportedDroppedLines: unreported,
      droppedTotal: this.droppedTotal,
    };
  }

  private write(text: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(text, (error) => {
      if (!error) this.written();
    });
    const buffered = this.socket.bufferedAmount;
    if (buffered > this.maxBufferedAmount) this.maxBufferedAmount = buffered;
    if (buffered >= this.limits.highWaterBytes) this.backlogged = true;
  }

  private written(): void {
    if (this.closed || !this.backlogged) return;
    if (this.socket.bufferedAmount > this.limits.lowWaterBytes) return;
    this.drain();
  }

  /** The page caught up: report what was dropped, send what was held, then go live again. */
  private drain(): void {
    this.backlogged = false;
    for (const [serverId, count] of this.droppedLines)
      this.write(eventFrame('bridge.dropped', { event: 'server.log', serverId, count }));
    this.droppedLines.clear();
    for (const [event, count] of this.droppedEvents) this.write(eventFrame('bridge.dropped', { event, count }));
    this.droppedEvents.clear();
    // Writes above may have set `backlogged` again; the loop stops there and waits for the next drain.
    for (const [key, entry] of this.held) {
      if (this.backlogged) return;
      this.held.delete(key);
      this.heldBytes -= entry.bytes;
      this.write(entry.text);
    }
    if (this.backlogged) return;
    if (this.readingPaused) {
      this.readingPaused = false;
      this.socket.resume();
    }
  }
}
