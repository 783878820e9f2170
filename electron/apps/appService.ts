/**
 * MCP Apps in the main process: an app's HTML (`apps.load`), and what a rendered app asks of its
 * server — `tools/call` (`apps.callTool`) and `resources/read` (`apps.readResource`).
 *
 * Everything goes through the same paths as any use, under the caller "<server name>'s app"
 * (appCallerId) in the GUI's session: a call through `CallService.call` → `executeTool`
 * (permission, approval naming the app, checkpoint, trace); a read through the features
 * service's decided, traced read (the permission engine's `resources/read` of that server).
 * The GUI's session because the app runs in the person's own window: its calls show in the
 * current History session, `tools.cancel` cancels them, and a session grant given there holds
 * for them — but the caller id is the app's, so approvals, traces and History name it.
 *
 * Invariants: an app belongs to a tool of its server that declares an app (`no_app` otherwise);
 * it reaches only that server (every request carries the server id and the pipeline resolves the
 * tool on it); it calls only tools whose `_meta.ui.visibility` includes `app`
 * (`app_call_refused`). A load is of a `ui://` URI some tool of the server declares.
 *
 * A load for a call (`forCall`: the call panel's live call, a History record, its replay) is the
 * app's own page for that call: where the rules would ask the person, that call's decision answers
 * instead — allowed when the call was (it is recorded, or it was allowed and runs), refused when it
 * was denied, and waited for while the call waits for its own approval. A DENY rule still refuses;
 * a load for no call, or for a call of another tool, is asked as any read.
 *
 * An app instance calls at most at its rate (appCallRate.ts: `app_rate_limited`), with arguments of
 * at most MAX_JSON_VALUES values (shared/jsonBounds.ts: `request_too_large`).
 */
import type { CallOutcome, ParsedRequestOf } from '../../shared/contract.js';
import type { AppReadResult, AppResourceView } from '../../shared/contract/apps.js';
import { MAX_APP_RESOURCE_BYTES, appCallerId } from '../../shared/contract/apps.js';
import { formatBytes, jsonByteLength } from '../../shared/limits.js';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { HarnessToolInfo } from '../harness/application.js';
import type { ImpliedDecision } from '../security/secureExecutor.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import { appResourceView } from './appResource.js';
import { AppCallRate } from './appCallRate.js';
import { AppsError } from './errors.js';
import { jsonBreachSentence, jsonValueBreach } from '../../shared/jsonBounds.js';
import { callableByApp } from '../mcp/toolUi.js';

/** Who makes a call or a read (core/callService.ts's Caller): the checkpoints' key with the callId. */
type RecordedCall = { serverId: string; toolName: string };

export interface AppCaller {
  userId: string;
  sessionId: string;
}

/** What the app layer gives (composed in core/core.ts): the pipeline's call and the decided, traced read. */
export interface AppServiceDeps {
  registry: Pick<MCPToolRegistry, 'server' | 'features'>;
  listTools: () => HarnessToolInfo[];
  /** The GUI's checkpoint session (its caller's). */
  guiSessionId: () => string;
  /** `CallService.call`: the whole pipeline as `caller`. */
  call: (request: ParsedRequestOf<'tools.call'>, caller: AppCaller) => Promise<CallOutcome>;
  /** `ServerFeatureService.readAsTraced`: decided by the permission engine, traced as `caller`. */
  read: (
    caller: AppCaller,
    serverId: string,
    uri: string,
    signal: AbortSignal,
    impliedBy?: (signal: AbortSignal | undefined) => Promise<ImpliedDecision | undefined>,
  ) => Promise<{ result: ReadResourceResult; traceId: string }>;
  /** A call still running — waiting for its approval or executing (`CallService.runningCall`). */
  runningCall?: (
    sessionId: string,
    callId: string,
  ) => { serverId: string; toolName: string; decided: Promise<CallDecision> } | undefined;
  /** A recorded call (a checkpoint exists only for a call that was allowed), from either checkpoint store. */
  recordedCall?: (sessionId: string, callId: string) => RecordedCall | undefined | Promise<RecordedCall | undefined>;
  /** How fast each app instance may call tools (default: appCallRate.ts's rate, on the wall clock). */
  callRate?: AppCallRate;
}

/** How a call was decided (core/callService.ts's CallDecision): allowed, denied, or never decided. */
type CallDecision = 'allowed' | 'denied' | 'undecided';

/** The call an app's page is loaded for (`apps.load`'s `forCall`); no session: the GUI's own. */
export interface AppPageCall {
  sessionId?: string | undefined;
  callId: string;
}

export class AppService {
  private readonly rate: AppCallRate;

  constructor(private readonly deps: AppServiceDeps) {
    this.rate = deps.callRate ?? new AppCallRate();
  }

  /** Who a server's app calls as: its own name, in the GUI's session. */
  callerFor(serverId: string): AppCaller {
    const server = this.deps.registry.server(serverId);
    if (!server) throw new AppsError('not_found', `There is no server "${serverId}".`, { serverId });
    return { userId: appCallerId(server.name), sessionId: this.deps.guiSessionId() };
  }

  async load(request: ParsedRequestOf<'apps.load'>): Promise<AppResourceView> {
    const { serverId, resourceUri } = request;
    const caller = this.callerFor(serverId);
    if (!this.toolsOf(serverId).some((tool) => tool.app?.resourceUri === resourceUri)) {
      throw new AppsError('no_app', `No tool of "${serverId}" declares the app ${resourceUri}.`, { serverId });
    }
    const forCall = request.forCall;
    const impliedBy = forCall ? () => this.pageDecision(serverId, resourceUri, forCall) : undefined;
    const { result, traceId } = await this.deps.read(
      caller,
      serverId,
      resourceUri,
      new AbortController().signal,
      impliedBy,
    );
    return appResourceView(resourceUri, result, traceId, await this.listedMeta(serverId, resourceUri));
  }

  /**
   * What the decision of the call an app's page is shown for says of reading that page: undefined
   * when the call is unknown or of a tool whose app this is not (the person is asked then).
   */
  async pageDecision(
    serverId: string,
    resourceUri: string,
    forCall: AppPageCall,
  ): Promise<ImpliedDecision | undefined> {
    const sessionId = forCall.sessionId ?? this.deps.guiSessionId();
    const running = this.deps.runningCall?.(sessionId, forCall.callId);
    const call = running ?? (await this.deps.recordedCall?.(sessionId, forCall.callId));
    if (!call || call.serverId !== serverId) return undefined;
    const tool = this.toolsOf(serverId).find((t) => t.name === call.toolName);
    if (tool?.app?.resourceUri !== resourceUri) return undefined;
    const decision: CallDecision = running ? await running.decided : 'allowed';
    const what = `the call ${forCall.callId} of ${call.toolName}`;
    if (decision === 'allowed') return { allowed: true, reason: `the app's own page, for ${what}, which was allowed` };
    if (decision === 'denied')
      return { allowed: false, reason: `the app's page was for ${what}, which was not allowed` };
    return undefined;
  }

  async callTool(request: ParsedRequestOf<'apps.callTool'>): Promise<CallOutcome> {
    const { serverId, toolName, name } = request;
    const caller = this.callerFor(serverId);
    this.appTool(serverId, toolName);
    // Over IPC the arguments arrive already built (no JSON text to count): bounded before any layer walks them.
    const breach = jsonValueBreach(request.args);
    if (breach)
      throw new AppsError(
        'request_too_large',
        `${jsonBreachSentence(breach, 'The app’s arguments')} Nothing was run.`,
        {
          serverId,
        },
      );
    // Each instance's own rate; a call beyond it never reaches the pipeline.
    if (!this.rate.take(JSON.stringify([serverId, toolName, request.instanceId ?? ''])))
      throw new AppsError('app_rate_limited', this.rate.sentence(), { serverId, retryable: true });
    const target = this.toolsOf(serverId).find((tool) => tool.name === name);
    if (!target) throw new AppsError('unknown_tool', `"${serverId}" has no tool "${name}".`, { serverId });
    if (!callableByApp(target.app))
      throw new AppsError(
        'app_call_refused',
        `The tool "${name}" of "${serverId}" is for the model only (its _meta.ui.visibility leaves out "app").`,
        { serverId },
      );
    return this.deps.call(
      {
        name,
        serverId,
        args: request.args,
        callId: request.callId,
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      },
      caller,
    );
  }

  async readResource(request: ParsedRequestOf<'apps.readResource'>): Promise<AppReadResult> {
    const { serverId, toolName, uri } = request;
    const caller = this.callerFor(serverId);
    this.appTool(serverId, toolName);
    const { result, traceId } = await this.deps.read(caller, serverId, uri, new AbortController().signal);
    const sizeBytes = jsonByteLength(result.contents);
    if (sizeBytes > MAX_APP_RESOURCE_BYTES) {
      throw new AppsError(
        'result_too_large',
        `${uri} is ${formatBytes(sizeBytes)}; an app may read at most ${formatBytes(MAX_APP_RESOURCE_BYTES)} at once.`,
        { limitBytes: MAX_APP_RESOURCE_BYTES, sizeBytes, traceId },
      );
    }
    return { contents: result.contents as AppReadResult['contents'], traceId };
  }

  private toolsOf(serverId: string): HarnessToolInfo[] {
    return this.deps.listTools().filter((tool) => tool.source === 'mcp' && tool.serverId === serverId);
  }

  /** The tool whose app makes the request: it must be the server's and declare an app. */
  private appTool(serverId: string, toolName: string): HarnessToolInfo {
    const tool = this.toolsOf(serverId).find((t) => t.name === toolName);
    if (!tool?.app?.resourceUri)
      throw new AppsError('no_app', `The tool "${toolName}" of "${serverId}" has no app.`, { serverId });
    return tool;
  }

  /** The `_meta` of the resource's resources/list entry (the fallback for its `_meta.ui`), when the server lists it. */
  private async listedMeta(serverId: string, uri: string): Promise<unknown> {
    const lists = await this.deps.registry.features.resources(serverId).catch(() => undefined);
    return lists?.resources.items.find((r) => r.uri === uri)?._meta;
  }
}
