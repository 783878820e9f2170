/**
 * Egress asked like a call (issue 29): a sandboxed server reaching a host its profile does not
 * decide gets an approval through the app's approval broker — Allow once / for this session /
 * always (added to its profile) / Deny.
 *
 * How a connection is tied to its server. sandbox-runtime 0.0.83 calls its ask callback with
 * `{host, port}` only: the proxy knows the wrap's id (from the proxy username) but does not pass
 * it on (`filterNetworkRequest` in its sandbox-manager.js), and every wrap's traffic reaches the
 * one proxy through the same bridge socket, so neither the callback nor the socket can say which
 * server asked. An approval naming a guessed server would let one server borrow another's rules,
 * so the app gives the library no ask callback: a host nobody decided is denied at once (the
 * server's connection fails fast), and the library files that denial under the wrap's id
 * (`deny network-outbound host:port (host is not on the allow list)`), which names the server.
 * That denial opens the approval; the answer goes into the wrap's per-command allow list, so the
 * server's next attempt is decided by it:
 * - once: allowed until the first call on that server that ends after the answer (then asked again);
 * - session: allowed while the app runs, for every run of that server (revocable in Permissions);
 * - always: added to the server's `sandbox.hosts` (the server restarts with it);
 * - deny, or no answer in time: denied without asking until the server runs again.
 */
import type { ApprovalAnswer } from '../security/approvals.js';
import { newRequestId, waitForApproval } from '../security/approvals.js';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { EgressAsk } from '../../shared/contract.js';
import { isSandboxHost } from '../../shared/serverConfig.js';

/** The library's reason for a host no rule decided (and no ask callback was given). */
const UNDECIDED = 'host is not on the allow list';
const DENIAL = /^deny network-outbound (.+):(\d{1,5}) \((.*)\)$/;
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
  /** Lists a host in a server's profile for good ("always"). */
  addToProfile: (serverId: string, entry: string) => Promise<void>;
  /** The session grants changed (the Permissions view shows them). */
  onChange?: () => void;
  /** Told when an answer could not be applied (the server's Log tab). */
  note?: (serverId: string, text: string) => void;
  /** Replaces a wrap's per-command allow list (default: the library's registry). */
  register?: (commandId: string, hosts: string[]) => void;
}

/** What `ServerSandboxes` feeds the violations of one wrap to. */
export type EgressViolations = (line: string) => void;

interface LiveWrap {
  serverId: string;
  /** The profile's hosts, as the wrap registered them. */
  base: readonly string[];
  /** "Allow once" grants, until a call on the server ends. */
  once: Set<string>;
  /** Denied by the person (or by no answer): not asked again while this run lasts. */
  denied: Set<string>;
}

/** A denial the library recorded for a host no rule decided, as `{host, port}`; else undefined. */
export function undecidedHostOf(line: string): { host: string; port: number } | undefined {
  const match = DENIAL.exec(line.trim());
  if (!match || match[3] !== UNDECIDED) return undefined;
  const host = (match[1] ?? '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = Number(match[2]);
  if (!host || port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** The `host:port` entry for an allow list (IPv6 in brackets), as the server's profile spells it. */
export function entryOf(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class EgressAsks {
  private readonly live = new Map<string, LiveWrap>();
  /** "For this session" grants, by server id. */
  private readonly session = new Map<string, Set<string>>();
  /** Asks waiting for the person, by server id and entry: one at a time for each. */
  private readonly asking = new Set<string>();

  constructor(private readonly options: EgressAskOptions) {}

  /** Called by the wrap of a sandboxed server, after it registered the profile's hosts. */
  attach(serverId: string, commandId: string, hosts: readonly string[]): EgressViolations {
    const wrap: LiveWrap = { serverId, base: [...hosts], once: new Set(), denied: new Set() };
    this.live.set(commandId, wrap);
    if (this.session.get(serverId)?.size) this.registerOne(commandId, wrap);
    return (line) => this.onViolation(commandId, line);
  }

  /** The wrap's process is gone (or never started). */
  detach(commandId: string): void {
    this.live.delete(commandId);
  }

  /** A call on a server ended: its "allow once" grants end with it. */
  callEnded(serverId: string): void {
    for (const [commandId, wrap] of this.live) {
      if (wrap.serverId !== serverId || wrap.once.size === 0) continue;
      wrap.once.clear();
      this.registerOne(commandId, wrap);
    }
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

  private onViolation(commandId: string, line: string): void {
    const wrap = this.live.get(commandId);
    const target = undecidedHostOf(line);
    if (!wrap || !target) return;
    const entry = entryOf(target.host, target.port);
    const key = JSON.stringify([wrap.serverId, entry]);
    if (wrap.denied.has(entry) || this.asking.has(key)) return;
    const open = [...this.asking].filter((k) => (JSON.parse(k) as string[])[0] === wrap.serverId).length;
    if (open >= MAX_OPEN_ASKS_PER_SERVER) {
      this.options.note?.(wrap.serverId, `Sandbox: ${entry} was refused without asking: ${open} asks already wait.`);
      return;
    }
    this.asking.add(key);
    void this.ask(commandId, wrap, target, entry)
      .catch((error: unknown) =>
        this.options.note?.(wrap.serverId, `Sandbox: the answer for ${entry} was not applied: ${String(error)}`),
      )
      .finally(() => this.asking.delete(key));
  }

  private async ask(
    commandId: string,
    wrap: LiveWrap,
    target: { host: string; port: number },
    entry: string,
  ): Promise<void> {
    const { serverId } = wrap;
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
      reason: `The sandboxed server "${serverId}" tried to reach ${entry}, which its sandbox does not list. The attempt was refused; your answer decides its next attempts.`,
      expiresAt: Date.now() + timeoutMs,
    };
    const { answer } = await waitForApproval(this.options.ask, request, { timeoutMs });
    this.apply(answer === 'allow-always' && !listable ? 'allow-session' : answer, commandId, wrap, entry);
    if (answer === 'allow-always' && listable) await this.options.addToProfile(serverId, entry);
  }

  private apply(answer: ApprovalAnswer, commandId: string, wrap: LiveWrap, entry: string): void {
    switch (answer) {
      case 'deny':
        wrap.denied.add(entry);
        return;
      case 'allow-once':
        // Only the run that asked: a restarted server asks again.
        if (this.live.get(commandId) !== wrap) return;
        wrap.once.add(entry);
        this.registerOne(commandId, wrap);
        return;
      case 'allow-session': {
        const hosts = this.session.get(wrap.serverId) ?? new Set<string>();
        hosts.add(entry);
        this.session.set(wrap.serverId, hosts);
        this.registerServer(wrap.serverId);
        this.options.onChange?.();
        return;
      }
      case 'allow-always':
        // The profile gets it (the server restarts with it); until then this run may reach it.
        wrap.once.add(entry);
        this.registerOne(commandId, wrap);
        return;
    }
  }

  private registerServer(serverId: string): void {
    for (const [commandId, wrap] of this.live) if (wrap.serverId === serverId) this.registerOne(commandId, wrap);
  }

  private registerOne(commandId: string, wrap: LiveWrap): void {
    const hosts = [...new Set([...wrap.base, ...(this.session.get(wrap.serverId) ?? []), ...wrap.once])];
    const register =
      this.options.register ??
      ((id: string, list: string[]) => SandboxManager.registerCommandNetworkLists(id, { allowedDomains: list }));
    try {
      register(commandId, hosts);
    } catch (error) {
      this.options.note?.(wrap.serverId, `Sandbox: the hosts could not be applied: ${String(error)}`);
    }
  }
}
