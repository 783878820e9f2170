/**
 * One legacy (2025-era) agent's MCP session with the gateway: the agent server (agentServer.ts)
 * over its own sessionful Streamable HTTP transport (the SDK's Web-standard one, served by
 * webResponse.ts). It lives from `initialize` until the agent ends it (DELETE), the app revokes
 * the agent (its waiting calls answered first: callsInFlight.ts), or the gateway evicts it (to
 * make room within the agent's limit of sessions, only while no call of it is in flight:
 * sessionLimit.ts; or idle: unseen for the idle window with no request open, see clientPresence.ts); while it lives, the agent gets `tools/list_changed` when
 * what it may see changes. A call without `_meta["io.miniharness/callId"]` is keyed by this
 * session plus the JSON-RPC request id (see agentServer.ts). A question a downstream server asks
 * during the agent's call reaches the agent as a real `elicitation/create` (or
 * `sampling/createMessage`) request on the session.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CallIdSchema } from '../../shared/contract/callKey.js';
import type { Implementation } from '@modelcontextprotocol/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { GatewayServer } from '../mcp/sdkAdapter.js';
import type { AgentSessionDeps } from './agentServer.js';
import { buildAgentServer } from './agentServer.js';
import type { Clock, Presence } from './clientPresence.js';
import type { SamplingResult } from './modernRounds.js';

export class AgentSession implements Presence {
  readonly server: GatewayServer;
  /** The Web-standard transport: the gateway serves it from Node's HTTP server itself (webResponse.ts). */
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly startedAt: number;
  lastSeenAt: number;
  /** Its requests open now (a call in progress, its GET notification stream): while any is, it is not idle. */
  openRequests = 0;
  /** What the agent last saw of its tool list (listed or told changed); list_changed goes out when it differs. */
  knownTools: string | undefined;
  private closed = false;

  constructor(
    readonly agentId: string,
    private readonly deps: AgentSessionDeps,
    hooks: { onInitialized(session: AgentSession): void; onClosed(session: AgentSession): void },
    clock: Clock = Date.now,
  ) {
    this.startedAt = this.lastSeenAt = clock();
    this.server = buildAgentServer(deps, {
      // One label for the session's keys and its traces: both must name the same session.
      keyWithoutCallId: (agent, requestId) => ({
        sessionId: this.label(agent),
        callId: requestKey(requestId),
      }),
      featureSession: (agent) => this.label(agent),
      session: () => this.sessionId,
      onListed: (fingerprint) => (this.knownTools = fingerprint),
      // A downstream question goes to the agent as a real request on this session, when it declared it can answer one.
      answerersVia: (ctx) => {
        // A 2025 session: the initialize-scoped capabilities are this era's.
        const declared = this.server.initialized.capabilities;
        return {
          ...(declared?.elicitation
            ? {
                // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025 push channel, this era's way to ask
                elicit: (question, signal) => ctx.mcpReq.elicitInput(question, { signal }),
              }
            : {}),
          ...(declared?.sampling
            ? {
                // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025 push channel, this era's way to ask
                sample: (request, signal) => ctx.mcpReq.requestSampling(request, { signal }) as Promise<SamplingResult>,
              }
            : {}),
        };
      },
    });
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: () => hooks.onInitialized(this),
    });
    this.transport.onclose = () => {
      if (this.closed) return;
      this.closed = true;
      hooks.onClosed(this);
    };
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  get clientInfo(): Implementation | undefined {
    // A 2025 session: the initialize-scoped identity is exactly what the Agents view shows.
    return this.server.initialized.clientInfo;
  }

  /** The 2025 revision negotiated in `initialize`. */
  get protocolVersion(): string | undefined {
    return this.server.initialized.protocolVersion;
  }

  async start(): Promise<void> {
    await this.server.connect(this.transport);
  }

  /** Tells the agent its tool list changed, if what it sees differs from what it last saw. */
  async toolsMayHaveChanged(): Promise<void> {
    const agent = this.deps.agent();
    if (!agent || this.closed || this.sessionId === undefined) return;
    const now = this.deps.catalog.fingerprint(agent.visibility);
    if (now === this.knownTools) return;
    this.knownTools = now;
    await this.server.sendToolListChanged().catch(() => undefined);
  }

  /** The checkpoint and trace session of this session's calls without a callId, and of its reads. */
  private label(agent: { id: string }): string {
    return `agent:${agent.id}:mcp-${this.sessionId ?? 'none'}`;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.server.close().catch(() => undefined);
  }
}

/**
 * The callId of a call that names none: its JSON-RPC id. An id History could not address (a
 * string with spaces or non-ASCII, or too long) is recorded by its hash, still one key per id.
 */
function requestKey(requestId: string | number): string {
  const key = `request-${String(requestId)}`;
  return CallIdSchema.safeParse(key).success
    ? key
    : `request-sha256-${createHash('sha256').update(String(requestId)).digest('hex')}`;
}
