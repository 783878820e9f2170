/**
 * One agent's MCP session with the gateway: an SDK `Server` over its own Streamable HTTP
 * transport (the SDK's Web-standard one, served by webResponse.ts). `tools/list` answers with the tools the agent may see, under the gateway's names;
 * `tools/call` runs through the app's call path (`HarnessApplication.executeTool`: permissions,
 * the person's approval, the checkpoint, the trace) as the agent, and anything that stops a call
 * comes back as an `isError` result the model can act on.
 *
 * The checkpoint key. An agent may send `_meta["io.miniharness/callId"]` (and
 * `_meta["io.miniharness/session"]`) as an idempotency key: the same key replays the stored result
 * — across reconnects and restarts of the app — instead of running again. Without them the key is
 * this MCP session plus the JSON-RPC request id: that protects a re-delivery of one request
 * within one session, nothing across sessions (a retry after a reconnect is a new call). Keys are
 * always scoped to the agent, so no agent can replay another's results.
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult, Implementation } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { META_CALL_ID, META_REPLAYED, META_SESSION, META_TRACE_ID } from '../../shared/agents.js';
import type { CallOutcome, ErrorShape } from '../../shared/contract.js';
import type { ProgressUpdate } from '../mcp/types.js';
import type { GatewayFeatures } from './agentFeatures.js';
import { listAgentPrompts, listAgentResources, listAgentTemplates, resolveAgentPrompt, serverOfUri } from './agentFeatures.js';
import { agentErrorResult, agentErrorText } from './agentResults.js';
import type { StoredAgent } from './agentStore.js';
import type { GatewayCatalog } from './catalog.js';

/** The app's call path as the gateway uses it (CallService.call). */
export interface GatewayCalls {
  call(
    request: { name: string; serverId: string; args: Record<string, unknown>; callId: string },
    caller: { userId: string; sessionId: string },
    options: { signal: AbortSignal; onProgress?: (update: ProgressUpdate) => void },
  ): Promise<CallOutcome>;
}

export interface AgentSessionDeps {
  catalog: GatewayCatalog;
  calls: GatewayCalls;
  /** The agent as it is now (visibility edits apply at once); undefined once removed or revoked. */
  agent(): StoredAgent | undefined;
  /** Any error → the contract's redacted shape. */
  describe(error: unknown): ErrorShape;
  version: string;
  /** A call started or ended (the Agents view's counts). */
  onActivity(): void;
  /** Resources and prompts of the servers behind, read-only; absent: the gateway offers tools only. */
  features?: GatewayFeatures;
}

const KeyPart = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
const CallMetaSchema = z.looseObject({ [META_CALL_ID]: KeyPart.optional(), [META_SESSION]: KeyPart.optional() });

const INSTRUCTIONS =
  'MiniHarness runs each tool call through the user’s permission rules and, where they ask, the user’s approval; every call is recorded. ' +
  `To make a call safe to retry, pass _meta["${META_CALL_ID}"] (and optionally _meta["${META_SESSION}"]): repeating it returns the first result instead of running again.`;

/** The checkpoint identity of one agent call (see the file comment). */
export function agentCallKey(agent: StoredAgent, meta: { callId?: string; session?: string }, mcpSessionId: string, requestId: string | number): { sessionId: string; callId: string } {
  if (meta.callId !== undefined) return { sessionId: `agent:${agent.id}:${meta.session ?? 'default'}`, callId: meta.callId };
  return { sessionId: `agent:${agent.id}:mcp-${mcpSessionId}`, callId: `request-${String(requestId)}` };
}

export class AgentSession {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the gateway is a proxy whose tool, resource and prompt lists are computed per request: the SDK's low-level Server is meant for exactly that (McpServer registers fixed handlers)
  readonly server: Server;
  /** The Web-standard transport: the gateway serves it from Node's HTTP server itself (webResponse.ts). */
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly startedAt = Date.now();
  lastSeenAt = Date.now();
  /** What the agent last saw of its tool list (listed or told changed); list_changed goes out when it differs. */
  knownTools: string | undefined;
  private closed = false;

  constructor(
    readonly agentId: string,
    private readonly deps: AgentSessionDeps,
    hooks: { onInitialized(session: AgentSession): void; onClosed(session: AgentSession): void },
  ) {
    const capabilities = { tools: { listChanged: true }, ...(deps.features ? { resources: {}, prompts: {} } : {}) };
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- see `server` above
    this.server = new Server({ name: 'MiniHarness', version: deps.version }, { capabilities, instructions: INSTRUCTIONS });
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: () => hooks.onInitialized(this),
    });
    this.transport.onclose = () => {
      if (this.closed) return;
      this.closed = true;
      hooks.onClosed(this);
    };
    this.server.setRequestHandler(ListToolsRequestSchema, () => {
      const agent = this.requireAgent();
      this.knownTools = this.deps.catalog.fingerprint(agent.visibility);
      return { tools: this.deps.catalog.visible(agent.visibility) };
    });
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.callTool(request.params, extra));
    if (deps.features) this.serveFeatures(deps.features);
  }

  /** Resources and prompts, read-only (agentFeatures.ts): lists filtered by visibility; each read and get decided and traced. */
  private serveFeatures(features: GatewayFeatures): void {
    const caller = (agent: StoredAgent) => ({ userId: agent.name, sessionId: `agent:${agent.id}:mcp-${this.sessionId ?? 'none'}` });
    const refused = (error: unknown, what: string): McpError => new McpError(ErrorCode.InvalidRequest, agentErrorText(this.deps.describe(error), what, '-'));
    this.server.setRequestHandler(ListResourcesRequestSchema, () => listAgentResources(features, this.requireAgent().visibility));
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listAgentTemplates(features, this.requireAgent().visibility));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const agent = this.requireAgent();
      const serverId = await serverOfUri(features, agent.visibility, request.params.uri);
      if (!serverId) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}. Call resources/list for the resources this agent may read.`);
      try {
        return await features.read(caller(agent), serverId, request.params.uri, extra.signal);
      } catch (error) {
        throw refused(error, `resources/read of ${request.params.uri}`);
      }
    });
    this.server.setRequestHandler(ListPromptsRequestSchema, () => listAgentPrompts(features, this.requireAgent().visibility));
    this.server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const agent = this.requireAgent();
      const named = await resolveAgentPrompt(features, agent.visibility, request.params.name);
      if (!named) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}. Call prompts/list for the prompts this agent may get.`);
      try {
        return await features.getPrompt(caller(agent), named.serverId, named.toolName, request.params.arguments ?? {}, extra.signal);
      } catch (error) {
        throw refused(error, request.params.name);
      }
    });
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  get clientInfo(): Implementation | undefined {
    return this.server.getClientVersion();
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

  async close(): Promise<void> {
    if (this.closed) return;
    await this.server.close().catch(() => undefined);
  }

  private requireAgent(): StoredAgent {
    const agent = this.deps.agent();
    // Revoking closes the session; a request already inside it still must not run.
    if (!agent) throw new McpError(ErrorCode.InvalidRequest, 'This agent’s access was revoked in MiniHarness.');
    return agent;
  }

  private async callTool(
    params: { name: string; arguments?: Record<string, unknown> | undefined; _meta?: Record<string, unknown> | undefined },
    extra: { signal: AbortSignal; requestId: string | number; sendNotification: (n: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void> },
  ): Promise<CallToolResult> {
    const agent = this.requireAgent();
    const named = this.deps.catalog.resolve(agent.visibility, params.name);
    if (!named) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}. Call tools/list for the tools this agent may use.`);
    const meta = CallMetaSchema.safeParse(params._meta ?? {});
    if (!meta.success) {
      throw new McpError(ErrorCode.InvalidParams, `_meta["${META_CALL_ID}"] and _meta["${META_SESSION}"] must be 1–200 printable ASCII characters without spaces.`);
    }
    const key = agentCallKey(agent, { callId: meta.data[META_CALL_ID], session: meta.data[META_SESSION] }, this.sessionId ?? 'none', extra.requestId);
    const progressToken = params._meta?.progressToken;
    const onProgress =
      typeof progressToken === 'string' || typeof progressToken === 'number'
        ? (update: ProgressUpdate) => {
            const progress = { progressToken, progress: update.progress, ...(update.total !== undefined ? { total: update.total } : {}), ...(update.message !== undefined ? { message: update.message } : {}) };
            extra.sendNotification({ method: 'notifications/progress', params: progress }).catch(() => undefined);
          }
        : undefined;
    this.deps.onActivity();
    try {
      const outcome = await this.deps.calls.call(
        { name: named.toolName, serverId: named.serverId, args: params.arguments ?? {}, callId: key.callId },
        { userId: agent.name, sessionId: key.sessionId },
        { signal: extra.signal, ...(onProgress ? { onProgress } : {}) },
      );
      return {
        content: outcome.result.content as CallToolResult['content'],
        ...(outcome.result.structuredContent ? { structuredContent: outcome.result.structuredContent } : {}),
        ...(outcome.result.isError ? { isError: true } : {}),
        _meta: { [META_CALL_ID]: key.callId, [META_TRACE_ID]: outcome.traceId, [META_REPLAYED]: outcome.replayed },
      };
    } catch (error) {
      return agentErrorResult(this.deps.describe(error), params.name, key.callId);
    } finally {
      this.deps.onActivity();
    }
  }
}
