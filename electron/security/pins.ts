/**
 * Tool pins (issue 31): the definition a tool had when a decision first let it run — a person's
 * approval (once, session or always) or a rule's (or a default's) allow — keyed by the server's
 * identity (`uid`) and the tool's name. A listing whose definition hashes otherwise marks the tool
 * **changed**: its next call asks again whatever the rules say (a DENY still denies), with the
 * diff, and an allow re-pins. A tool removed and listed again keeps its pin, so a re-add with
 * another definition is the same case. The check on the call path is one Map lookup.
 */
import type { ToolDefinition } from './toolDefinition.js';

export interface ToolPin {
  serverUid: string;
  /** The server's id when pinned (for the Permissions view once the server is gone). */
  serverId: string;
  toolName: string;
  hash: string;
  definition: ToolDefinition;
  pinnedAt: number;
  /** Who let it run: `gui` (the person), an agent's name (the person approving its call), or `rule:<id>` / `default`. */
  pinnedBy: string;
  /** How: `allow-once`, `allow-session`, `allow-always`, or `rule` (a rule's or default's allow). */
  decision: PinDecision;
}

export type PinDecision = 'allow-once' | 'allow-session' | 'allow-always' | 'rule';

/** Where pins live between runs (storage: sqlitePinStore.ts). Synchronous: a pin is written as its call is let through. */
export interface PinStore {
  load(): ToolPin[];
  put(pin: ToolPin): void;
  delete(serverUid: string, toolName: string): boolean;
  deleteServer(serverUid: string): number;
}

export type PinState = { state: 'unpinned' } | { state: 'pinned'; pin: ToolPin } | { state: 'changed'; pin: ToolPin };

export class ToolPins {
  private readonly pins = new Map<string, ToolPin>();

  constructor(private readonly store: PinStore) {
    for (const pin of store.load()) this.pins.set(ToolPins.key(pin.serverUid, pin.toolName), pin);
  }

  private static key(serverUid: string, toolName: string): string {
    return `${serverUid}\0${toolName}`;
  }

  /** The per-call check: the tool's pin, and whether the current definition's hash still matches it. */
  check(serverUid: string, toolName: string, hash: string): PinState {
    const pin = this.pins.get(ToolPins.key(serverUid, toolName));
    if (!pin) return { state: 'unpinned' };
    return pin.hash === hash ? { state: 'pinned', pin } : { state: 'changed', pin };
  }

  /** Binds (or re-binds) the tool to this definition. Saved first: memory never claims what the disk lacks. */
  pin(pin: ToolPin): void {
    this.store.put(pin);
    this.pins.set(ToolPins.key(pin.serverUid, pin.toolName), pin);
  }

  unpin(serverUid: string, toolName: string): boolean {
    this.store.delete(serverUid, toolName);
    return this.pins.delete(ToolPins.key(serverUid, toolName));
  }

  /** Drops every pin of a server (it was removed). Returns how many. */
  unpinServer(serverUid: string): number {
    this.store.deleteServer(serverUid);
    let dropped = 0;
    for (const [key, pin] of this.pins) {
      if (pin.serverUid !== serverUid) continue;
      this.pins.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Takes the pins the store holds now (another instance on a shared store changed them). */
  reload(): void {
    this.pins.clear();
    for (const pin of this.store.load()) this.pins.set(ToolPins.key(pin.serverUid, pin.toolName), pin);
  }

  list(): ToolPin[] {
    return [...this.pins.values()].sort(
      (a, b) => a.serverId.localeCompare(b.serverId) || a.toolName.localeCompare(b.toolName),
    );
  }
}
