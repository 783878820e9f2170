/**
 * The MCP server an agent talks to, the same for both protocol eras: an SDK (v2) `Server` whose
 * `tools/list` answers with the tools the agent may see, under the gateway's names, and whose
 * `tools/call` runs through the app's call path (`HarnessApplication.executeTool`: permissions,
 * the person's approval, the checkpoint, the trace) as the agent. Anything that stops a call
 * comes back as an `isError` result the model can act on. A 2026-07-28 agent that declares the
 * tasks extension gets a task instead when the server behind runs the call as one (agentTasks.ts). A legacy (2025) agent gets one of these
 * per session (agentSession.ts); a modern (2026-07-28) agent gets one per request
 * (modernAgents.ts) — the era only decides how a call without an idempotency key is keyed.
 *
 * The checkpoint key. An agent may send `_meta["io.miniharness/callId"]` (and
 * `_meta["io.miniharness/session"]`) as an idempotency key: the same key replays the stored result
 * — across reconnects, eras and restarts of the app — instead of running again. Without them a
 * legacy call is keyed by its MCP session plus the JSON-RPC request id (a re-delivery of one
 * request within one session is caught, nothing across sessions); a modern request has no
 * session, so a modern call without a callId is a new call each time it is sent. Keys are always
 * scoped to the agent, so no agent can replay another's results.
 */
import type { RequestSpans } from '../telemetry/requestSpans.js';
import { traceRequests } from '../telemetry/requestSpans.js';
import { randomUUID } from 'node:crypto';
import type { CallToolResult, GetPromptResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { META_CALL_ID, META_REPLAYED, META_SESSION, META_TRACE_ID } from '../../shared/agents.js';
import type { AgentVisibility, GatewayToolName } from '../../shared/agents.js';
import { CALL_KEY_PART_MAX, CallKeyPartSchema } from '../../shared/contract/callKey.js';
import type { CallOutcome, ErrorShape } from '../../shared/contract.js';
import { gatewayMarkCapability, gatewayMarkMeta } from '../mcp/ownGateway.js';
import { MCPFeatureNotOfferedError } from '../mcp/features/errors.js';
import type { ProgressUpdate } from '../mcp/types.js';
import type { GatewayFeatures } from './agentFeatures.js';
import {
  asRequested,
  listAgentPrompts,
  listAgentResources,
  listAgentTemplates,
  resolveAgentPrompt,
  routeAgentCompletion,
  routeAgentResource,
} from './agentFeatures.js';
import { agentErrorResult, agentErrorText } from './agentResults.js';
import type { CallsInFlight } from './callsInFlight.js';
import { ApprovalWaitProgress } from './approvalWaitProgress.js';
import { callerWaitOf } from './callerWait.js';
import type { CallerWait } from '../security/approvals.js';
import { waitEndedOf } from '../security/waitEnded.js';
import type { StoredAgent } from './agentStore.js';
import type { GatewayCatalog } from './catalog.js';
import type { AgentElicit, AgentRefuse, AgentRound, AgentSample, ModernRounds } from './modernRounds.js';
import type { CallServerRequestHandlers, InputKind, RoundRelay } from '../mcp/types.js';
import type { AgentTasks } from './agentTasks.js';
import { agentDeclaresTasks, serveAgentTasks } from './agentTasks.js';
import type { ToolCallParams } from '../mcp/sdkAdapter.js';
import { GatewayServer, handAsIs, plainInEveryEra } from '../mcp/sdkAdapter.js';
import type { TaskEvent } from '../mcp/tasks/followTask.js';
import { TASKS_EXTENSION_ID } from '../mcp/tasks/taskWire.js';
import type { AgentSubscriptions, CallsPerServer, GatewayFollowing } from './agentSubscriptions.js';

/** The app's call path as the gateway uses it (CallService.call). */
export interface GatewayCalls {
  call(
    request: { name: string; serverId: string; args: Record<string, unknown>; callId: string },
    caller: { userId: string; sessionId: string },
    options: {
      signal: AbortSignal;
      onProgress?: (update: ProgressUpdate) => void;
      /**
       * Where a question a downstream server asks during this call (an elicitation) may go: to the
       * agent, in its era's way (a request on a 2025 session, `input_required` on 2026-07-28).
       * Absent when the agent cannot answer one (it declared no elicitation capability).
       */
      elicit?: AgentElicit;
      /** The same for a downstream sampling request: the agent's model answers it. Absent when the agent declared no sampling. */
      sample?: AgentSample;
      /** A 2026-07-28 agent: a 2026-07-28 server's rounds relayed whole, under the server's keys (mcp/types.ts RoundRelay). */
      relay?: RoundRelay;
      /** How long the agent's client will wait, when known (callerWait.ts): the approval dialog shows it. */
      callerWait?: CallerWait;
      /** The call started (or stopped) waiting for the person's approval: the agent is kept informed (approvalWaitProgress.ts). */
      onApprovalWait?: (waiting: { expiresAt: number } | undefined) => void;
      /** The server behind runs the call as a task: its id and each status (agentTasks.ts). */
      onTask?: (event: TaskEvent) => void;
    },
  ): Promise<CallOutcome>;
}

export interface AgentSessionDeps {
  catalog: GatewayCatalog;
  /** OpenTelemetry: each request as a server span, the agent's traceparent continued (absent: none). */
  requestSpans?: RequestSpans;
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
  /** This run's mark, sent in the capabilities and each tools/list page so the app's own client refuses the gateway (mcp/ownGateway.ts). */
  mark?: string;
  /** The gateway's requests in flight (callsInFlight.ts): ended with a reason, and answered, before the agent's connections close. */
  inFlight?: CallsInFlight;
  /** How often a call waiting for approval tells the agent so by progress (default WAITING_PROGRESS_MS). */
  waitingProgressMs?: number;
  /** The marks of the MiniHarness gateways this app is connected to, named beside its own (a ring of runs is refused). */
  marksThrough?: () => readonly string[];
  /** The gateway's tasks (agentTasks.ts): a 2026-07-28 agent that declares the tasks extension gets one when the server behind makes one. */
  tasks?: AgentTasks;
  /**
   * Waits (bounded) until the servers this agent may see that are still starting (the app just
   * started: `idle` or connecting, their tools not listed yet) are ready or failed; resolves at once
   * when none is. `tools/list` waits for it (the list is whole), and a name not found is looked up
   * again after it, so a call made while the app starts is not refused as an unknown tool.
   */
  serversStarting?(visibility: AgentVisibility, signal: AbortSignal): Promise<void>;
  /** Resource subscriptions (2025) and the servers' log messages (agentSubscriptions.ts); absent: neither is offered. */
  followers?: { source: GatewayFollowing; subscriptions: AgentSubscriptions; calls: CallsPerServer };
}

/** What differs between the eras: the key of a call without a callId, and the caller's session label. */
export interface AgentServerScope {
  /** The checkpoint key of a call that carries no `io.miniharness/callId`. */
  keyWithoutCallId(agent: StoredAgent, requestId: string | number): { sessionId: string; callId: string };
  /** The trace session of resource reads and prompt gets. */
  featureSession(agent: StoredAgent): string;
  /** The agent listed its tools (legacy sessions remember what it saw, for list_changed). */
  onListed?(fingerprint: string): void;
  /** A 2025 session: a downstream question goes to the agent as a real request (when it declared it can answer one). */
  answerersVia?(ctx: ServerContext): { elicit?: AgentElicit; sample?: AgentSample };
  /** The stateless era: a downstream question makes the round `input_required` (modernRounds.ts). */
  rounds?: ModernRounds;
  /** A 2025 session: its id, so that a session with work in flight is known busy (never evicted). */
  session?(): string | undefined;
}

/**
 * The agent's callId and session from `_meta`, or undefined when either is present but not a key
 * part: the contract's schema (History addresses a recorded call with the same one), checked on
 * the two values alone — never a parse of the whole `_meta`.
 */
function callMetaOf(
  meta: Record<string, unknown>,
): { callId: string | undefined; session: string | undefined } | undefined {
  const callId = meta[META_CALL_ID];
  const session = meta[META_SESSION];
  const valid = (value: unknown) => value === undefined || CallKeyPartSchema.safeParse(value).success;
  return valid(callId) && valid(session)
    ? { callId: callId as string | undefined, session: session as string | undefined }
    : undefined;
}

const INSTRUCTIONS =
  'MiniHarness runs each tool call through the user’s permission rules and, where they ask, the user’s approval; every call is recorded. ' +
  `To make a call safe to retry, pass _meta["${META_CALL_ID}"] (and optionally _meta["${META_SESSION}"]): repeating it returns the first result instead of running again. ` +
  'Without it, a call on a 2025 session is protected only against re-delivery within that session, and a 2026-07-28 (stateless) request is a new call every time it is sent.';

/** The checkpoint identity of an agent call that names its own key. */
function agentCallKey(
  agent: StoredAgent,
  meta: { callId: string; session?: string },
): { sessionId: string; callId: string } {
  return { sessionId: `agent:${agent.id}:${meta.session ?? 'default'}`, callId: meta.callId };
}

function requireAgent(deps: AgentSessionDeps): StoredAgent {
  const agent = deps.agent();
  // Revoking closes the sessions; a request already inside one still must not run.
  if (!agent)
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'This agent’s access was revoked in MiniHarness.');
  return agent;
}

export function buildAgentServer(deps: AgentSessionDeps, scope: AgentServerScope): GatewayServer {
  const capabilities = {
    tools: { listChanged: true },
    // Subscriptions are the 2025 era's (2026-07-28 follows resources through subscriptions/listen).
    ...(deps.features ? { resources: deps.followers && !scope.rounds ? { subscribe: true } : {}, prompts: {} } : {}),
    ...(deps.features?.complete ? { completions: {} } : {}),
    // The servers' log messages during the agent's calls, at the agent's level (the SDK registers logging/setLevel).
    ...(deps.followers ? { logging: {} } : {}),
    ...(deps.mark !== undefined ? { experimental: gatewayMarkCapability(deps.mark, deps.marksThrough?.()) } : {}),
    // Tasks are the 2026-07-28 extension: offered to the stateless era only.
    ...(deps.tasks && scope.rounds ? { extensions: { [TASKS_EXTENSION_ID]: {} } } : {}),
  };
  // The SDK's low-level Server through the app's adapter (mcp/sdkAdapter.ts says why not McpServer, and what it adds).
  const server = new GatewayServer(
    { name: 'MiniHarness', version: deps.version },
    // The gateway's own sealed requestState: verified before any handler runs (tampered or expired → -32602).
    {
      capabilities,
      instructions: INSTRUCTIONS,
      ...(scope.rounds ? { requestState: { verify: scope.rounds.verify } } : {}),
    },
  );
  // Each request served from here on is a server span when OpenTelemetry export is on (telemetry/requestSpans.ts).
  if (deps.requestSpans)
    traceRequests(server, deps.requestSpans, scope.rounds ? '2026-07-28' : '2025', () => deps.agent()?.name);
  if (deps.tasks && scope.rounds) serveAgentTasks(server, deps.tasks, () => requireAgent(deps));
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    // Right after the app starts, the servers still connecting are waited for (bounded): the list is then whole.
    await deps.serversStarting?.(requireAgent(deps).visibility, ctx.mcpReq.signal);
    const agent = requireAgent(deps);
    scope.onListed?.(deps.catalog.fingerprint(agent.visibility));
    return {
      tools: deps.catalog.visible(agent.visibility),
      ...(deps.mark !== undefined ? { _meta: gatewayMarkMeta(deps.mark, deps.marksThrough?.()) } : {}),
    };
  });
  server.serveToolCalls((params, ctx) => callTool(deps, scope, params, ctx));
  if (deps.features) serveFeatures(server, deps, scope, deps.features);
  if (deps.features && deps.followers && !scope.rounds) serveSubscriptions(server, deps, deps.features, deps.followers);
  return server;
}

/** Resources and prompts, read-only (agentFeatures.ts): lists filtered by visibility; each read and get decided and traced. */
function serveFeatures(
  server: GatewayServer,
  deps: AgentSessionDeps,
  scope: AgentServerScope,
  features: GatewayFeatures,
): void {
  const caller = (agent: StoredAgent) => ({ userId: agent.name, sessionId: scope.featureSession(agent) });
  const refused = (error: unknown, what: string): ProtocolError =>
    new ProtocolError(ProtocolErrorCode.InvalidRequest, agentErrorText(deps.describe(error), what, '-'));
  server.setRequestHandler('resources/list', () => listAgentResources(features, requireAgent(deps).visibility));
  server.setRequestHandler('resources/templates/list', () =>
    listAgentTemplates(features, requireAgent(deps).visibility),
  );
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const agent = requireAgent(deps);
    const route = await routeAgentResource(features, agent.visibility, request.params.uri);
    // The SDK's typed not-found: -32602 on the wire with the URI in `data` (SEP-2164), in both eras.
    if (!route)
      throw new ResourceNotFoundError(
        request.params.uri,
        `Unknown resource: ${request.params.uri}. Call resources/list for the resources this agent may read.`,
      );
    if ('ambiguous' in route) {
      const choices = route.ambiguous.join(' or ');
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Several servers offer ${request.params.uri}: read ${choices} instead.`,
        { uri: request.params.uri, candidates: route.ambiguous },
      );
    }
    const work = deps.inFlight?.begin(agent.id, scope.session?.(), ctx.mcpReq.signal);
    try {
      return asRequested(
        await features.read(caller(agent), route.serverId, route.uri, work?.signal ?? ctx.mcpReq.signal),
        request.params.uri,
        route,
      );
    } catch (error) {
      throw refused(error, `resources/read of ${request.params.uri}`);
    } finally {
      work?.done();
    }
  });
  serveCompletion(server, deps, features, refused);
  servePrompts(server, deps, scope, features, caller, refused);
}

/** `completion/complete` for the prompts and resource templates the agent may see, when the app offers completion. */
function serveCompletion(
  server: GatewayServer,
  deps: AgentSessionDeps,
  features: GatewayFeatures,
  refused: (error: unknown, what: string) => ProtocolError,
): void {
  const complete = features.complete;
  if (complete)
    server.setRequestHandler('completion/complete', async (request, ctx) => {
      const agent = requireAgent(deps);
      const { ref, argument, context } = request.params;
      const route = await routeAgentCompletion(features, agent.visibility, ref);
      const what = ref.type === 'ref/prompt' ? `prompt ${ref.name}` : `resource template ${ref.uri}`;
      if (!route)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown ${what}. Call prompts/list or resources/templates/list for what this agent may complete.`,
        );
      if ('ambiguous' in route)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Several servers offer ${what}: complete ${route.ambiguous.join(' or ')} instead.`,
        );
      try {
        const completion = await complete(
          route.serverId,
          { target: route.target, argument, ...(context?.arguments ? { context: context.arguments } : {}) },
          ctx.mcpReq.signal,
        );
        return { completion };
      } catch (error) {
        // A server that offers no completion: no suggestions (the person types the value), not an error.
        if (error instanceof MCPFeatureNotOfferedError) return { completion: { values: [] } };
        throw refused(error, `completion/complete of ${what}`);
      }
    });
}

/** `prompts/list` and `prompts/get`; a 2026-07-28 agent answers a server's questions during the get itself. */
function servePrompts(
  server: GatewayServer,
  deps: AgentSessionDeps,
  scope: AgentServerScope,
  features: GatewayFeatures,
  caller: (agent: StoredAgent) => { userId: string; sessionId: string },
  refused: (error: unknown, what: string) => ProtocolError,
): void {
  server.setRequestHandler('prompts/list', () => listAgentPrompts(features, requireAgent(deps).visibility));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const agent = requireAgent(deps);
    const named = await resolveAgentPrompt(features, agent.visibility, request.params.name);
    if (!named)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt: ${request.params.name}. Call prompts/list for the prompts this agent may get.`,
      );
    const get = async (signal: AbortSignal, asks?: CallServerRequestHandlers): Promise<GetPromptResult> => {
      const work = deps.inFlight?.begin(agent.id, scope.session?.(), signal);
      try {
        const args = request.params.arguments ?? {};
        return await features.getPrompt(
          caller(agent),
          named.serverId,
          named.toolName,
          args,
          work?.signal ?? signal,
          asks,
        );
      } catch (error) {
        throw refused(error, request.params.name);
      } finally {
        work?.done();
      }
    };
    // A 2026-07-28 agent: a modern server's questions during the get are its own input_required rounds (modernRounds.ts).
    if (scope.rounds)
      return scope.rounds.round(
        agent.id,
        { sessionId: 'prompts/get', callId: randomUUID() },
        ctx,
        (_key, answerers, signal) => get(signal, agentAnswerersOf(ctx, answerers)),
      );
    return get(ctx.mcpReq.signal);
  });
}

/** `resources/subscribe` and `unsubscribe` of a 2025 session (agentSubscriptions.ts): a resource it may read, routed as a read. */
function serveSubscriptions(
  server: GatewayServer,
  deps: AgentSessionDeps,
  features: GatewayFeatures,
  followers: NonNullable<AgentSessionDeps['followers']>,
): void {
  /** What this session follows: `<server>\0<uri>` → the URI the agent asked for. */
  const followed = new Map<string, string>();
  const route = async (uri: string): Promise<{ serverId: string; uri: string }> => {
    const found = await routeAgentResource(features, requireAgent(deps).visibility, uri);
    if (!found)
      throw new ResourceNotFoundError(
        uri,
        `Unknown resource: ${uri}. Call resources/list for the resources this agent may read.`,
      );
    if ('ambiguous' in found)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Several servers offer ${uri}: subscribe to ${found.ambiguous.join(' or ')} instead.`,
      );
    return found;
  };
  server.setRequestHandler('resources/subscribe', async (request) => {
    const target = await route(request.params.uri);
    try {
      await followers.subscriptions.subscribe(server, target.serverId, target.uri);
    } catch (error) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        agentErrorText(deps.describe(error), `resources/subscribe of ${request.params.uri}`, '-'),
      );
    }
    followed.set(`${target.serverId}\0${target.uri}`, request.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const target = await route(request.params.uri);
    followed.delete(`${target.serverId}\0${target.uri}`);
    await followers.subscriptions.unsubscribe(server, target.serverId, target.uri);
    return {};
  });
  const off = followers.source.onResourceUpdated((serverId, uri) => {
    const asked = followed.get(`${serverId}\0${uri}`);
    if (asked !== undefined) void server.sendResourceUpdated({ uri: asked }).catch(() => undefined);
  });
  const before = server.onclose;
  server.onclose = () => {
    before?.();
    off();
    followed.clear();
    void followers.subscriptions.release(server);
  };
}

/**
 * What a 2026-07-28 agent answers, by what its request declared (its envelope's capabilities): a
 * 2025 server's questions one at a time, a 2026-07-28 server's rounds whole (mcp/inputRounds.ts).
 */
function agentAnswerersOf(
  ctx: ServerContext,
  answerers: { elicit: AgentElicit; sample: AgentSample; round: AgentRound; refuse: AgentRefuse },
): { elicit?: AgentElicit; sample?: AgentSample; relay: RoundRelay } {
  // (The SDK types the lifted envelope as an empty object: read it as the record it is.)
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    Partial<Record<InputKind, unknown>> | undefined;
  const answers = new Set(
    (['elicitation', 'sampling', 'roots'] as const).filter((k) => capabilities?.[k] !== undefined),
  );
  return {
    ...(answers.has('elicitation') ? { elicit: answerers.elicit } : {}),
    ...(answers.has('sampling') ? { sample: answerers.sample } : {}),
    relay: { answers, round: answerers.round, refuse: answerers.refuse },
  };
}

type CallAnswerers = { elicit?: AgentElicit; sample?: AgentSample; relay?: RoundRelay };
type CallParams = ToolCallParams;

async function callTool(
  deps: AgentSessionDeps,
  scope: AgentServerScope,
  params: CallParams,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const agent = requireAgent(deps);
  const named = await resolveTool(deps, agent, params.name, ctx.mcpReq.signal);
  const rawMeta: Record<string, unknown> = { ...ctx.mcpReq._meta, ...params._meta };
  const key = callKeyOf(agent, scope, rawMeta, ctx);
  const { progress, callerWait } = progressOf(deps, params.name, rawMeta.progressToken, ctx);
  const run = (
    callKey: { sessionId: string; callId: string },
    answerers: CallAnswerers,
    requestSignal: AbortSignal,
    onTask?: (event: TaskEvent) => void,
  ): Promise<CallToolResult> =>
    runCall(
      deps,
      scope,
      { agent, named, params, ctx, progress, callerWait },
      callKey,
      answerers,
      requestSignal,
      onTask,
    );
  // A 2026-07-28 agent that declared tasks: a call the server behind runs as a task becomes the
  // agent's own task (agentTasks.ts); downstream questions then go to the person.
  if (scope.rounds && deps.tasks && agentDeclaresTasks(ctx))
    return deps.tasks.start(agent.id, (signal, onTask) => run(key, {}, signal, onTask)) as Promise<CallToolResult>;
  if (scope.rounds) {
    return scope.rounds.round(agent.id, key, ctx, (callKey, answerers, signal) =>
      run(callKey, agentAnswerersOf(ctx, answerers), signal),
    );
  }
  return run(key, scope.answerersVia?.(ctx) ?? {}, ctx.mcpReq.signal);
}

/** The tool an agent's name reaches (looked up again once the servers still starting are ready), or -32602. */
async function resolveTool(
  deps: AgentSessionDeps,
  agent: StoredAgent,
  name: string,
  signal: AbortSignal,
): Promise<GatewayToolName> {
  let named = deps.catalog.resolve(agent.visibility, name);
  if (!named && deps.serversStarting) {
    await deps.serversStarting(agent.visibility, signal);
    named = deps.catalog.resolve(agent.visibility, name);
  }
  if (!named)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${name}. Call tools/list for the tools this agent may use.`,
    );
  return named;
}

/** The call's checkpoint key: the agent's callId (and session) from `_meta`, else the era's key; a malformed one is -32602. */
function callKeyOf(
  agent: StoredAgent,
  scope: AgentServerScope,
  rawMeta: Record<string, unknown>,
  ctx: ServerContext,
): { sessionId: string; callId: string } {
  const meta = callMetaOf(rawMeta);
  if (!meta) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `_meta["${META_CALL_ID}"] and _meta["${META_SESSION}"] must be 1–${CALL_KEY_PART_MAX} printable ASCII characters without spaces.`,
    );
  }
  const { callId, session } = meta;
  return callId !== undefined
    ? agentCallKey(agent, { callId, ...(session !== undefined ? { session } : {}) })
    : scope.keyWithoutCallId(agent, ctx.mcpReq.id);
}

/** With a progress token the agent hears the server's progress, and while the call waits for approval, that it waits. */
function progressOf(
  deps: AgentSessionDeps,
  toolName: string,
  progressToken: unknown,
  ctx: ServerContext,
): { progress: ApprovalWaitProgress | undefined; callerWait: CallerWait | undefined } {
  const sentAt = Date.now();
  const hasToken = typeof progressToken === 'string' || typeof progressToken === 'number';
  const progress = hasToken
    ? new ApprovalWaitProgress(
        (update: ProgressUpdate) => {
          const params = {
            progressToken,
            progress: update.progress,
            ...(update.total !== undefined ? { total: update.total } : {}),
            ...(update.message !== undefined ? { message: update.message } : {}),
          };
          ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
        },
        toolName,
        deps.waitingProgressMs,
      )
    : undefined;
  return { progress, callerWait: callerWaitOf(sentAt, hasToken) };
}

/** One run of the call through the app's call path, answered as the agent's result (a failure as an isError result). */
async function runCall(
  deps: AgentSessionDeps,
  scope: AgentServerScope,
  call: {
    agent: StoredAgent;
    named: GatewayToolName;
    params: CallParams;
    ctx: ServerContext;
    progress: ApprovalWaitProgress | undefined;
    callerWait: CallerWait | undefined;
  },
  callKey: { sessionId: string; callId: string },
  answerers: CallAnswerers,
  requestSignal: AbortSignal,
  onTask?: (event: TaskEvent) => void,
): Promise<CallToolResult> {
  const { agent, named, params, ctx, progress, callerWait } = call;
  deps.onActivity();
  // The app may end this call (the agent revoked or removed): it is then answered with why, before the connection closes.
  const work = deps.inFlight?.begin(agent.id, scope.session?.(), requestSignal);
  const signal = work?.signal ?? requestSignal;
  // The server's log messages reach the agent while this is the gateway's only call there (agentSubscriptions.ts).
  const endCall = deps.followers?.calls.begin(named.serverId);
  const stopLogs = deps.followers?.source.onServerLog(named.serverId, (message) => {
    if (deps.followers?.calls.alone(named.serverId))
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- MCP logging is deprecated in 2026-07-28 but still offered; the README promises it
      ctx.mcpReq.log(message.level, message.text, message.logger).catch(() => undefined);
  });
  try {
    const outcome = await deps.calls.call(
      { name: named.toolName, serverId: named.serverId, args: params.arguments ?? {}, callId: callKey.callId },
      { userId: agent.name, sessionId: callKey.sessionId },
      {
        signal,
        ...(progress ? { onProgress: progress.forward, onApprovalWait: progress.onApprovalWait } : {}),
        ...(callerWait ? { callerWait } : {}),
        ...(answerers.elicit ? { elicit: answerers.elicit } : {}),
        ...(answerers.sample ? { sample: answerers.sample } : {}),
        ...(answerers.relay ? { relay: answerers.relay } : {}),
        ...(onTask ? { onTask } : {}),
      },
    );
    const answer: CallToolResult = {
      content: outcome.result.content as CallToolResult['content'],
      ...(outcome.result.structuredContent ? { structuredContent: outcome.result.structuredContent } : {}),
      ...(outcome.result.isError ? { isError: true } : {}),
      _meta: { [META_CALL_ID]: callKey.callId, [META_TRACE_ID]: outcome.traceId, [META_REPLAYED]: outcome.replayed },
    };
    // Valid in every era by its shape: the SDK's second check of it is skipped (mcp/sdkAdapter.ts); else checked for the agent's era.
    return plainInEveryEra(answer) ? handAsIs(answer) : answer;
  } catch (error) {
    return agentErrorResult(deps.describe(error), params.name, callKey.callId, waitEndedOf(signal));
  } finally {
    stopLogs?.();
    endCall?.();
    progress?.stop();
    work?.done();
    deps.onActivity();
  }
}
