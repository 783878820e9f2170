/**
 * Egress asked like a call (issue 29): a sandboxed server reaching a host its profile does not
 * decide waits while the person is asked, through the app's approval broker — Allow once / for
 * this session / always (added to its profile) / Deny.
 *
 * Each attempt reaches `decide` through the egress gate (egressGate.ts), which names the wrap it
 * came from by the wrap's random id, so the ask names the right server and an answer widens that
 * wrap's allow list only (one server never borrows another's grant). The answer is put in the
 * wrap's per-command allow list of sandbox-runtime before the attempt goes on, so the library's
 * proxy, which has the last word, lets it through:
 * - once: this attempt only (the entry is in the list until the library's proxy has answered it);
 * - session: allowed while the app runs, for every run of that server (revocable in Permissions);
 * - always: allowed for the rest of this run, and added to the server's `sandbox.hosts` (saved, and
 *   the server restarted with it, once its calls in flight have ended);
 * - deny, or no answer in time: refused at once, and without asking until the server runs again.
 */
import type { ApprovalAnswer } from '../security/approvals.js';
import { newRequestId, waitForApproval } from '../security/approvals.js';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { EgressAsk } from '../../shared/contract.js';
import { isSandboxHost } from '../../shared/serverConfig.js';
import type { GateDecision } from './egressGate.js';

/**
 * The most asks one server may have open at once: a server trying host after host must not flood
 * the person's queue. Beyond it an attempt is refused without an ask (its Log says so).
 */
export const MAX_OPEN_ASKS_PER_SERVER = 3;

/** A sandboxed server's connection waiting for the person, as the approval broker shows it. */
export interface EgressApprovalRequest {
  requestId: string;
  serverId: string;
  ask: EgressAsk;
  /** The session of the call in flight, when there is one. */
  sessionId?: string;
  reason: string;
  expiresAt: number;
}

/** A call running on a server (its newest), named in the approval. */
export interface EgressCall {
  sessionId: string;
  callId: string;
  toolName: string;
  userId: string;
}

export interface EgressAskOptions {
  /** Shows the approval and resolves with the answer (the approval broker's `requestEgress`). */
  ask: (request: EgressApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;
  /** How long an ask waits before it counts as denied (the app's approval timeout). */
  timeoutMs: () => number;
  callInFlight: (serverId: string) => EgressCall | undefined;
  /** Lists a host in a server's profile for good ("always"); may wait for the server's calls to end. */
  addToProfile: (serverId: string, entry: string) => Promise<void>;
  /** The session grants changed (the Permissions view shows them). */
  onChange?: () => void;
  /** Told when an answer could not be applied (the server's Log tab). */
  note?: (serverId: string, text: string) => void;
  /** Replaces a wrap's per-command allow list (default: the library's registry). */
  register?: (commandId: string, hosts: string[]) => void;
}

interface LiveWrap {
  serverId: string;
  /** The profile's hosts, as the wrap registered them. */
  base: readonly string[];
  /** Answered "always" during this run (the profile has them from the next run). */
  kept: Set<string>;
  /** "Allow once" grants in use, by entry: how many attempts are passing with it now. */
  once: Map<string, number>;
  /** Denied by the person (or by no answer): not asked again while this run lasts. */
  denied: Set<string>;
}

/** The `host:port` entry for an allow list (IPv6 in brackets), as the server's profile spells it. */
export function entryOf(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Whether `host:port` is matched by an allow-list entry, as sandbox-runtime matches them (a name,
 * `*.name` for the names below it, optional `:port`). Only decides whether to ask: the library's
 * proxy matches again and has the last word.
 */
export function listedIn(entries: Iterable<string>, host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const entry of entries) {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.toLowerCase());
    if (!match?.[1]) continue;
    if (match[2] !== undefined && Number(match[2]) !== port) continue;
    const pattern = match[1].replace(/^\[(.*)\]$/, '$1');
    if (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern) return true;
  }
  return false;
}

export class EgressAsks {
  private readonly live = new Map<string, LiveWrap>();
  /** "For this session" grants, by server id. */
  private readonly session = new Map<string, Set<string>>();
  /** Asks waiting for the person, by server id and entry: attempts to the same wait on one ask. */
  private readonly asking = new Map<
    string,
    { serverId: string; answer: Promise<ApprovalAnswer>; stop: AbortController }
  >();

  constructor(private readonly options: EgressAskOptions) {}

  /** Called by the wrap of a sandboxed server, after it registered the profile's hosts. */
  attach(serverId: string, commandId: string, hosts: readonly string[]): void {
    const wrap: LiveWrap = { serverId, base: [...hosts], kept: new Set(), once: new Map(), denied: new Set() };
    this.live.set(commandId, wrap);
    if (this.session.get(serverId)?.size) this.registerOne(commandId, wrap);
  }

  /** The wrap's process is gone (or never started). */
  detach(commandId: string): void {
    const wrap = this.live.get(commandId);
    this.live.delete(commandId);
    if (!wrap || [...this.live.values()].some((w) => w.serverId === wrap.serverId)) return;
    // No run of that server is left to wait: its open asks are withdrawn (the dialogs close).
    for (const pending of this.asking.values())
      if (pending.serverId === wrap.serverId) pending.stop.abort(new Error('the server stopped'));
  }

  /** This session's grants, for the Permissions view. */
  sessionGrants(): { serverId: string; host: string }[] {
    return [...this.session].flatMap(([serverId, hosts]) => [...hosts].map((host) => ({ serverId, host })));
  }

  /** Ends a "for this session" grant: the server's next connection to it is asked again. */
  revokeSession(serverId: string, entry: string): boolean {
    const hosts = this.session.get(serverId);
    if (!hosts?.delete(entry)) return false;
    this.registerServer(serverId);
    this.options.onChange?.();
    return true;
  }

  /**
   * Decides one connection attempt of the wrap `commandId` (from the egress gate): at once when
   * its lists decide, else after the person's answer (or the ask's timeout, a deny).
   */
  async decide(commandId: string | undefined, host: string, port: number): Promise<GateDecision> {
    const wrap = commandId === undefined ? undefined : this.live.get(commandId);
    if (!commandId || !wrap) return { allow: false, reason: 'no sandboxed server named' };
    const entry = entryOf(host, port);
    if (listedIn(this.hostsOf(wrap, false), host, port)) return { allow: true };
    if (wrap.denied.has(entry)) return { allow: false, reason: 'denied by you' };
    const key = JSON.stringify([wrap.serverId, entry]);
    let pending = this.asking.get(key);
    if (!pending) {
      const open = [...this.asking.values()].filter((p) => p.serverId === wrap.serverId).length;
      if (open >= MAX_OPEN_ASKS_PER_SERVER) {
        this.options.note?.(wrap.serverId, `Sandbox: ${entry} was refused without asking: ${open} asks already wait.`);
        return { allow: false, reason: 'too many asks wait' };
      }
      const stop = new AbortController();
      const answer = this.ask(wrap.serverId, { host, port }, entry, stop.signal).finally(() => this.asking.delete(key));
      pending = { serverId: wrap.serverId, answer, stop };
      this.asking.set(key, pending);
    }
    const answer = await pending.answer;
    return this.apply(answer, commandId, entry);
  }

  private async ask(
    serverId: string,
    target: { host: string; port: number },
    entry: string,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const call = this.options.callInFlight(serverId);
    const timeoutMs = this.options.timeoutMs();
    const listable = isSandboxHost(entry);
    const request: EgressApprovalRequest = {
      requestId: newRequestId(),
      serverId,
      ask: {
        ...target,
        ...(call ? { call: { callId: call.callId, toolName: call.toolName, userId: call.userId } } : {}),
        ...(listable ? { entry } : {}),
      },
      ...(call ? { sessionId: call.sessionId } : {}),
      reason: `The sandboxed server "${serverId}" is trying to reach ${entry}, which its sandbox does not list. The connection waits for your answer.`,
      expiresAt: Date.now() + timeoutMs,
    };
    const { answer } = await waitForApproval(this.options.ask, request, { timeoutMs, signal });
    if (answer !== 'allow-always') return answer;
    if (!listable) return 'allow-session';
    // Not awaited: the profile is saved (and the server restarted) once its calls have ended.
    void this.options.addToProfile(serverId, entry).catch((error: unknown) => {
      this.options.note?.(serverId, `Sandbox: ${entry} could not be added to the profile: ${String(error)}`);
    });
    return answer;
  }

  /** Puts the answer in the wrap's allow list (the library's proxy decides by it) and says what the gate does. */
  private apply(answer: ApprovalAnswer, commandId: string, entry: string): GateDecision {
    // The wrap may have ended while the person was asked: its attempt has nowhere to go.
    const wrap = this.live.get(commandId);
    if (!wrap) return { allow: false, reason: 'the server stopped' };
    switch (answer) {
      case 'deny':
        wrap.denied.add(entry);
        return { allow: false, reason: 'denied by you' };
      case 'allow-session': {
        const hosts = this.session.get(wrap.serverId) ?? new Set<string>();
        hosts.add(entry);
        this.session.set(wrap.serverId, hosts);
        this.registerServer(wrap.serverId);
        this.options.onChange?.();
        return { allow: true };
      }
      case 'allow-always':
        wrap.kept.add(entry);
        this.registerOne(commandId, wrap);
        return { allow: true };
      case 'allow-once':
        return this.allowOnce(commandId, wrap, entry);
    }
  }

  /** Listed while this attempt is on its way through the library's proxy, then taken out again. */
  private allowOnce(commandId: string, wrap: LiveWrap, entry: string): GateDecision {
    wrap.once.set(entry, (wrap.once.get(entry) ?? 0) + 1);
    this.registerOne(commandId, wrap);
    let done = false;
    return {
      allow: true,
      done: () => {
        if (done) return;
        done = true;
        const left = (wrap.once.get(entry) ?? 1) - 1;
        if (left > 0) wrap.once.set(entry, left);
        else wrap.once.delete(entry);
        if (this.live.get(commandId) === wrap) this.registerOne(commandId, wrap);
      },
    };
  }

  /** The wrap's allow list; with `once`, also the "allow once" grants of the attempts passing now. */
  private hostsOf(wrap: LiveWrap, once = true): string[] {
    const session = this.session.get(wrap.serverId) ?? [];
    return [...new Set([...wrap.base, ...wrap.kept, ...session, ...(once ? wrap.once.keys() : [])])];
  }

  private registerServer(serverId: string): void {
    for (const [commandId, wrap] of this.live) if (wrap.serverId === serverId) this.registerOne(commandId, wrap);
  }

  private registerOne(commandId: string, wrap: LiveWrap): void {
    const register =
      this.options.register ??
      ((id: string, list: string[]) => SandboxManager.registerCommandNetworkLists(id, { allowedDomains: list }));
    try {
      register(commandId, this.hostsOf(wrap));
    } catch (error) {
      this.options.note?.(wrap.serverId, `Sandbox: the hosts could not be applied: ${String(error)}`);
    }
  }
}
