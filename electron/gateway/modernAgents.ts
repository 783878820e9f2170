/**
 * Modern (2026-07-28) agents: each request that carries the `_meta` envelope is served
 * statelessly by the SDK's own handler (`createMcpHandler`, legacy refused — legacy traffic never
 * reaches it, gateway.ts routes it to a session first), which owns `server/discover`, header
 * validation, the protocol's 400/404/405 answers, `resultType`, `serverInfo` and the cache fields.
 * Each request gets a fresh agent server (agentServer.ts) for the agent the gateway
 * authenticated; a call without `_meta["io.miniharness/callId"]` is a new call every time. A
 * question a downstream server asks during a call comes back as `input_required`, the retry
 * continuing the same call (modernRounds.ts).
 *
 * One handler per agent, so that `subscriptions/listen` streams are the agent's own: when what
 * the agent may see changes (a server added or removed, its tools, the agent's visibility),
 * its open streams get `notifications/tools/list_changed` — what a legacy session gets as
 * list_changed — and no other agent's do. Revoking the agent closes its handler, which ends its
 * streams and aborts its requests in flight, and ends its calls waiting for a next round. An agent
 * holds at most MAX_LISTEN_STREAMS_PER_AGENT listen streams at once (agentShare.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { AgentSessionDeps } from './agentServer.js';
import { buildAgentServer } from './agentServer.js';
import { MAX_LISTEN_STREAMS_PER_AGENT, OpenPerAgent } from './agentShare.js';
import { ModernRounds } from './modernRounds.js';
import { serveWebRequest } from './webResponse.js';

interface AgentHandler {
  handler: McpHttpHandler;
  /** The tool list the agent's streams were last told about (changes → tools list_changed). */
  knownTools: string | undefined;
}

export class ModernAgents {
  private readonly handlers = new Map<string, AgentHandler>();
  /** Calls that span rounds (a downstream question answered by the agent): their flights and sealed state. */
  private readonly rounds = new ModernRounds();
  /** Listen streams open per agent (agentShare.ts). */
  private readonly listens = new OpenPerAgent(MAX_LISTEN_STREAMS_PER_AGENT);

  /** `depsOf(agentId)`: the agent server's dependencies for that agent (its current state, the app's call path). */
  constructor(private readonly depsOf: (agentId: string) => AgentSessionDeps) {}

  /**
   * Serves one modern request of an authenticated agent; `body` is the JSON the gateway already
   * read and bounded, `request` the Web Request it decided the era by (its signal aborted when the
   * agent goes away unanswered: webResponse.ts abortedUnanswered).
   */
  async serve(
    agentId: string,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    request: Request,
  ): Promise<void> {
    // A listen stream stays open: beyond the agent's share, refused with the limit named (agentShare.ts).
    if (isListen(body) && !this.listens.hold(agentId, res)) {
      const id = (body as { id?: unknown }).id;
      res.writeHead(503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Retry-After': '5' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: typeof id === 'string' || typeof id === 'number' ? id : null,
          error: {
            code: -32000,
            message: `Too many listen streams: this agent already has ${MAX_LISTEN_STREAMS_PER_AGENT} subscriptions/listen streams open, and MiniHarness allows ${MAX_LISTEN_STREAMS_PER_AGENT} per agent. Close one you no longer use; one stream carries every list change.`,
          },
        }),
      );
      return;
    }
    const { handler } = this.handlerOf(agentId);
    await serveWebRequest(req, res, (web, options) => handler.fetch(web, options), body, request, false);
  }

  /** What an agent may see may have changed: agents whose tool list differs are told on their listen streams. */
  toolsMayHaveChanged(): void {
    for (const [agentId, entry] of this.handlers) {
      const deps = this.depsOf(agentId);
      const agent = deps.agent();
      if (!agent) continue;
      const now = deps.catalog.fingerprint(agent.visibility);
      if (now === entry.knownTools) continue;
      entry.knownTools = now;
      entry.handler.notify.toolsChanged();
    }
  }

  /** The agent was revoked or removed: its streams end and its requests in flight are aborted. */
  async closeAgent(agentId: string): Promise<void> {
    const entry = this.handlers.get(agentId);
    this.handlers.delete(agentId);
    this.rounds.closeAgent(agentId);
    await entry?.handler.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const entries = [...this.handlers.values()];
    this.handlers.clear();
    this.rounds.close();
    await Promise.all(entries.map((e) => e.handler.close().catch(() => undefined)));
  }

  private handlerOf(agentId: string): AgentHandler {
    const existing = this.handlers.get(agentId);
    if (existing) return existing;
    const deps = this.depsOf(agentId);
    const handler = createMcpHandler(
      () =>
        buildAgentServer(deps, {
          // No session: each request is its own call (see agentServer.ts).
          keyWithoutCallId: (agent) => ({ sessionId: statelessLabel(agent.id), callId: `request-${randomUUID()}` }),
          featureSession: (agent) => statelessLabel(agent.id),
          rounds: this.rounds,
        }),
      { legacy: 'reject' },
    );
    const agent = deps.agent();
    const entry: AgentHandler = { handler, knownTools: agent ? deps.catalog.fingerprint(agent.visibility) : undefined };
    this.handlers.set(agentId, entry);
    return entry;
  }
}

/** A single `subscriptions/listen` request (a batch cannot open a stream of its own). */
function isListen(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'subscriptions/listen';
}

/** The checkpoint and trace session of an agent's 2026-07-28 requests (they have no session of their own). */
function statelessLabel(agentId: string): string {
  return `agent:${agentId}:stateless`;
}
