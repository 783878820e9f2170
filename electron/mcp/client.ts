/**
 * `MCPClient`: one connection to one MCP server, over the v2 SDK's `Client`, in either protocol
 * era — the SDK negotiates it (negotiation.ts: `auto`, or the era the config pins; a kept verdict
 * as `prior`).
 *
 * This file is the connection's lifecycle: clear refusals (before negotiation, after close), a
 * deadline on every request that cancels it on the wire (except initialize, which the spec
 * forbids cancelling: its deadline closes the transport — also during the era probe), progress
 * that extends a call's deadline up to a maximum total, and a deadline that pauses while a person
 * answers what the server asked (requestDeadline.ts, personWaits.ts), a legacy HTTP
 * session renewed once when the server forgot it (404) and ended (`DELETE`) on close, a kept
 * verdict dropped and the era negotiated afresh when it fails (when to renew, and retrying once:
 * sessionRenewal.ts; making the new session: here), the server's log messages (the level per
 * request on a modern connection), the negotiated metadata kept as the server answered, and
 * normalized tool results. Beside it, one concern per file: errorMapping.ts (every failure as a
 * typed error that names the server and says what to do — never a secret: anything from outside
 * is redacted first), listChanges.ts, signInRounds.ts (OAuth), serverRequests.ts (elicitation,
 * sampling, roots), inputRounds.ts (a modern tool call's `input_required` rounds, answered by the
 * call's own answerers when it has them — an agent's — else the person), tasks/ (a call the
 * server answers with a task, the tasks extension: followed with `tasks/get` to its end), toolOutput.ts,
 * transports.ts and stdioTransport.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, InputRequest } from '@modelcontextprotocol/client';
import type { PriorDiscovery, RequestOptions as SdkRequestOptions } from '@modelcontextprotocol/client';
import type { LogLevel as LoggingLevel } from './retiredFeatures.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { redactString } from '../secrets/redaction.js';
import {
  MCPClientClosedError,
  MCPConfigError,
  DEFAULT_MAX_MESSAGE_BYTES,
  MCPError,
  MCPNotInitializedError,
  MCPNotSupportedError,
  MCPProtocolError,
  MCPRequestCancelled,
  MCPRequestTimeout,
  MCPResultTooLargeError,
  MCPServerExitedError,
  MCPServerUnavailableError,
  MCPUnreachableError,
} from './errors.js';
import { HEADER_MISMATCH, errnoOf, mapClientError } from './errorMapping.js';
import {
  MAX_INPUT_ROUNDS,
  negotiationOptions,
  priorFor,
  readNegotiated,
  verdictOf,
  verdictSourceOf,
} from './negotiation.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { normalizeToolResult } from '../results/toolResult.js';
import { ListChanges, openListStream } from './listChanges.js';
import { CallDeadline, DEFAULT_MAX_TOTAL_TIMEOUT_MS, NEVER_MS } from './requestDeadline.js';
import { CallsInFlight, waitOf } from './personWaits.js';
import type { TrackedCall } from './personWaits.js';
import { ServerLogLevel } from './serverLogLevel.js';
import { SessionRenewal } from './sessionRenewal.js';
import { SignInRounds } from './signInRounds.js';
import { LogBuffer } from './logBuffer.js';
import { invalidHeaderDeclaration } from './toolHeaders.js';
import { withAppsExtension } from './appsExtension.js';
import { readToolUi } from './toolUi.js';
import { answerInputRequests, runInputRounds } from './inputRounds.js';
import type { InputRoundsContext } from './inputRounds.js';
import { checkToolOutput, withoutOutputSchema } from './toolOutput.js';
import { networkFailureOf } from './networkFailure.js';
import { gatewayMarksOf, refuseOwnGateway } from './ownGateway.js';
import type { ServerRequestHandlers, TiedCall } from './serverRequests.js';
import { clientCapabilities, registerServerRequestHandlers } from './serverRequests.js';
import type { OpenedTransport } from './transports.js';
import { TaskAwareClient, taskCreatedOf, withTasksExtension } from './tasks/taskWire.js';
import { followTask, parseTask } from './tasks/followTask.js';
import { callAsLegacyTask, legacyTaskRequester } from './tasks/legacyTasks.js';
import type { TaskRequester } from './tasks/followTask.js';
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { z } from 'zod';
import { openTransport } from './transports.js';
import type { OAuthSession } from './oauth/session.js';
import type { ServerSandboxes } from '../sandbox/serverSandbox.js';
import type {
  CallServerRequestHandlers,
  ClientState,
  DisconnectInfo,
  ListKind,
  NegotiatedInfo,
  RequestOptions,
  ToolClient,
  ToolDescriptor,
  ToolListHints,
} from './types.js';
import { watchRequestIds } from '../telemetry/requestIds.js';

/** The name this client reports to servers; its version is the app's (core.ts passes it down through the registry). */
export const CLIENT_NAME = 'miniharness-desktop';

/**
 * What a client made without the app's version reports (tests, tools that build a client
 * alone): it says so rather than inventing a release number.
 */
const CLIENT_INFO = { name: CLIENT_NAME, version: 'development' } as const;

/** How many stderr lines an exit error quotes. */
const STDERR_TAIL_LINES = 10;

/** The SDK's own deadline for initialize, never reached: ours closes the transport first (see connectWithinDeadline). */
const MAX_TIMER_MS = 2_147_483_647;

/** Errors of an HTTP request that say the server is gone (not that it refused this request). */
const SERVER_GONE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export interface MCPClientOptions {
  secrets: SecretResolver;
  log?: LogBuffer;
  /** Reported to the server (initialize, and the 2026-07-28 envelope); `CLIENT_INFO` when absent. */
  clientInfo?: { name: string; version: string };
  /** The largest message the server may send (a tool result, a tool list); 16 MiB by default. */
  maxMessageBytes?: number;
  /** Who answers the server's elicitation and sampling requests; without it they are not declared. */
  serverRequests?: ServerRequestHandlers;
  /** The MCP log level chosen for this server, sent (`logging/setLevel`) whenever a session starts. */
  logLevel?: () => LoggingLevel | undefined;
  /** OAuth servers: the server's session — the SDK's provider, and the browser sign-in. */
  oauth?: OAuthSession;
  /**
   * stdio: where a server whose sandbox is on (the default) is wrapped. Required so no path that
   * builds a client can forget it; where the platform cannot sandbox, the wrap refuses with
   * `sandbox_unavailable` (never started unconfined).
   */
  sandboxes: ServerSandboxes;
  /**
   * The era verdict kept from an earlier connection (dated and expired by its keeper): connect
   * with it as the SDK's `prior` and skip the probe. Ignored when the config pins the era.
   */
  prior?: () => Promise<PriorDiscovery | undefined>;
  /** Told the verdict of every connection that became ready (to keep it), and when a kept one failed (to drop it). */
  onVerdict?: (verdict: PriorDiscovery | undefined) => void;
  /** This run's gateway mark: a server answering with it is the app's own gateway, refused (ownGateway.ts). */
  ownGatewayMark?: string;
  /** The gateway marks this server answered with (none: not a MiniHarness gateway), at each handshake and tools/list page it was not refused for. */
  onGatewayMarks?: (marks: string[]) => void;
}

export class MCPClient implements ToolClient {
  readonly serverId: string;
  readonly log: LogBuffer;
  private _state: ClientState = 'new';
  private _negotiated: NegotiatedInfo | undefined;
  private sdk: Client | undefined;
  private opened: OpenedTransport | undefined;
  private closing: Promise<void> | undefined;
  /** First non-protocol output seen on the wire; fatal while initializing. */
  private violation: MCPError | undefined;
  /** Aborts the initialize exchange in flight (set while initializing). */
  private abortHandshake: (() => void) | undefined;
  private readonly disconnectListeners = new Set<(info: DisconnectInfo) => void>();
  /** Set when the server sent a message over the size limit: the cause of the reset that follows. */
  private tooLarge: MCPResultTooLargeError | undefined;
  /** Set once the ready connection was lost; the disconnect listeners have been told. */
  private lost: MCPError | undefined;
  /** The folders offered as roots (`roots/list`); replaced by `setRoots`. */
  private roots: readonly string[];
  /** HTTP: a new session replacing one the server forgot (404), while it is being made. */
  /** The session requests go on, renewed when it no longer holds (sessionRenewal.ts). */
  private readonly session: SessionRenewal;
  /** Who hears that a list changed (listChanges.ts). */
  private readonly listChanges = new ListChanges(() => this._state === 'ready' && !this.isClosed());
  /** OAuth: browser sign-ins in the middle of a request (signInRounds.ts). */
  private readonly signIns: SignInRounds;
  /** The server's log level, asked once (legacy) or sent with each request (modern): serverLogLevel.ts. */
  private readonly logLevel = new ServerLogLevel();
  /** A modern server's cache hints of the last tool list (the schema cache honours them). */
  private lastToolListHints: ToolListHints | undefined;
  /** The tools as last listed, by name (the SDK's header mirroring and output validation read them). */
  private toolDefinitions = new Map<string, ToolDescriptor>();
  /** A kept verdict failed on this client: it negotiates afresh from now on. */
  private priorRejected = false;
  /** stdio: the server had exited when the connect (the era probe, or initialize) failed. */
  private exitedBeforeConnectFailed = false;
  /** The tool calls in flight: a legacy server's question goes to the one it belongs to, or pauses them all (personWaits.ts). */
  private readonly callsInFlight = new CallsInFlight<LegacyCall>();
  /**
   * The tool call whose requests are being sent or read now, through async context: the SDK's HTTP
   * transport reads each request's response stream in the async context the request was sent in,
   * so a legacy server's request that arrives on a call's stream is handled inside that call's
   * context (`getStore()` names it); one on the session's GET stream, or on stdio, names none.
   */
  private readonly callScope = new AsyncLocalStorage<LegacyCall>();
  /** Aborted by close(): ends a wait for a browser sign-in. */
  private readonly closedSignal = new AbortController();

  constructor(
    private readonly config: ServerConfig,
    private readonly options: MCPClientOptions,
  ) {
    this.serverId = config.id;
    this.log = options.log ?? new LogBuffer();
    this.roots = config.roots ?? [];
    this.session = new SessionRenewal({
      log: this.log,
      requireReady: (operation) => this.requireReady(operation),
      opened: () => this.opened,
      ended: () => this.isClosed() || this.lost !== undefined,
      ready: () => this._state === 'ready',
      renew: (why) => this.makeNewSession(why),
      dropVerdict: () => {
        this.priorRejected = true;
        this.options.onVerdict?.(undefined);
      },
      timeoutMs: () => this.config.timeoutMs,
      redact: (text) => this.redact(text),
    });
    this.signIns = new SignInRounds({
      oauth: options.oauth,
      log: this.log,
      closed: this.closedSignal.signal,
      finishAuth: () => this.opened?.finishAuth,
    });
  }

  get state(): ClientState {
    return this._state;
  }

  get negotiated(): NegotiatedInfo | undefined {
    return this._negotiated;
  }

  onDisconnect(listener: (info: DisconnectInfo) => void): () => void {
    this.disconnectListeners.add(listener);
    return () => this.disconnectListeners.delete(listener);
  }

  /** Connects and performs the MCP handshake; returns what the server negotiated. */
  async initialize(options: RequestOptions = {}): Promise<NegotiatedInfo> {
    if (this._state === 'closed') throw new MCPClientClosedError(this.serverId, 'initialize');
    if (this._state !== 'new') throw new MCPProtocolError(this.serverId, 'initialize() may be called once per client');
    this._state = 'initializing';
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    // Aborted by the caller's signal, or by us when the server writes garbage during the handshake.
    const handshake = new AbortController();
    this.abortHandshake = () => handshake.abort();
    const onCallerAbort = (): void => handshake.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.signal?.aborted) handshake.abort();

    try {
      const deadline = performance.now() + timeoutMs;
      let info: NegotiatedInfo;
      try {
        info = await this.handshake(timeoutMs, handshake.signal, started);
      } catch (error) {
        // A keep-alive socket to an HTTP server that restarted fails the first request before
        // the server saw it; initialize has no side effects, so one fresh attempt is safe.
        if (!isStaleSocket(error) || this.isClosed()) throw error;
        this.log.note('the connection was reset before initialize reached the server; retrying once');
        await this.sdk?.close().catch(() => undefined);
        info = await this.handshake(Math.max(1, deadline - performance.now()), handshake.signal, started);
      }
      // A close() that raced the handshake wins: the caller asked for it.
      if (this.isClosed()) throw new MCPClientClosedError(this.serverId, 'initialize');
      refuseOwnGateway(this.serverId, this.options.ownGatewayMark, info.capabilities);
      this.options.onGatewayMarks?.(gatewayMarksOf(info.capabilities));
      this._negotiated = info;
      this._state = 'ready';
      this.log.note(
        `ready: ${info.serverInfo.name} ${info.serverInfo.version}, ${info.era} era, protocol ${info.protocolVersion} (${info.verdictSource})`,
      );
      this.options.onVerdict?.(this.keptVerdictOf(info));
      this.applyLogLevel();
      return info;
    } catch (error) {
      const mapped = this.isClosed()
        ? new MCPClientClosedError(this.serverId, 'initialize')
        : this.mapError(error, 'initialize', timeoutMs, options.signal);
      this.log.note(`initialize failed: ${mapped.message}`);
      await this.close();
      throw mapped;
    } finally {
      this.abortHandshake = undefined;
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Opens the transport and runs the SDK's initialize exchange once. */
  private async handshake(
    timeoutMs: number,
    signal: AbortSignal,
    started: number,
    signInRound = 0,
    noPrior = false,
  ): Promise<NegotiatedInfo> {
    // A transport replaced by a new session (see renewSession) no longer speaks for this client.
    const current = (): boolean => opened === this.opened;
    const limits = {
      maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onTooLarge: (error: MCPResultTooLargeError) => this.onTooLarge(error),
      onRequestFailed: (error: unknown) => {
        if (current()) this.onRequestFailed(error);
      },
      onSessionExpired: () => {
        if (current()) this.session.expired();
      },
      // stdio: a line that is not JSON-RPC, seen by the transport itself (also during the era
      // probe, before the SDK's protocol layer is attached).
      onViolation: (error: Error) => {
        if (current()) this.onWireError(error);
      },
    };
    const opened = await openTransport(this.config, this.options.secrets, this.log, limits, {
      ...(this.options.oauth ? { oauth: this.options.oauth } : {}),
      sandboxes: this.options.sandboxes,
    }).catch((error: unknown) => {
      throw error instanceof MCPError
        ? error
        : new MCPConfigError(this.serverId, error instanceof Error ? error.message : String(error));
    });
    this.opened = opened;
    const prior = priorFor(
      this.config.protocolEra,
      noPrior || this.priorRejected ? undefined : await this.options.prior?.().catch(() => undefined),
    );
    // A TaskAwareClient: a tools/call the server runs as a task is followed (tasks/followTask.ts).
    const sdk = new TaskAwareClient(this.options.clientInfo ?? CLIENT_INFO, {
      capabilities: withAppsExtension(withTasksExtension(clientCapabilities(this.options.serverRequests))),
      versionNegotiation: negotiationOptions(this.config.protocolEra, timeoutMs, this.config.transport),
      // input_required rounds of prompts/get and resources/read go to the same handlers as a legacy
      // server's requests: the person's dialogs (serverRequests.ts), at most this many. A tool call
      // runs its rounds itself (inputRounds.ts): its caller may answer them.
      inputRequired: { autoFulfill: true, maxRounds: MAX_INPUT_ROUNDS },
    });
    this.sdk = sdk;
    this.registerServerRequestHandlers(sdk);
    sdk.onerror = (error) => {
      // stdio reports its violations through the transport (onViolation above).
      if (current() && this.config.transport !== 'stdio') this.onWireError(error);
    };
    sdk.onclose = () => {
      if (current()) this.onTransportClosed();
    };
    this.installNotificationHandlers(sdk);
    this.listChanges.install(sdk, current);
    this.log.note(`connecting to ${opened.target}${prior ? ` (kept verdict: ${prior.kind})` : ''}`);
    try {
      await this.connectWithinDeadline(sdk, opened, timeoutMs, signal, prior);
    } catch (error) {
      // A kept verdict that no longer holds: forget it, and negotiate afresh once.
      if (prior && !this.isClosed() && !signal.aborted) {
        this.log.note(`the kept ${prior.kind} verdict failed; negotiating afresh`);
        this.options.onVerdict?.(undefined);
        await sdk.close().catch(() => undefined);
        return this.handshake(
          Math.max(1, timeoutMs - (performance.now() - started)),
          signal,
          started,
          signInRound,
          true,
        );
      }
      // ── OAuth: a browser sign-in was needed and is done: initialize again, signed in ──
      if (!(await this.signIns.completed(error, signInRound, signal))) throw error;
      await sdk.close().catch(() => undefined);
      return this.handshake(timeoutMs, signal, started, signInRound + 1, noPrior);
    }

    const info = readNegotiated(sdk, verdictSourceOf(this.config.protocolEra, prior), {
      initializeMs: performance.now() - started,
      readyAt: Date.now(),
    });
    if (!info)
      throw new MCPProtocolError(
        this.serverId,
        'the negotiation completed without a protocol era, version, server info or capabilities',
      );
    this.session.unverifiedPrior = prior !== undefined;
    // A modern server's list changes come on a stream of their own, opened beside the connection (listChanges.ts).
    if (info.era === 'modern')
      openListStream(sdk, info.capabilities, {
        timeoutMs: this.config.timeoutMs,
        note: (line) => this.log.note(line),
        current: () => current() && !this.isClosed(),
        redact: (text) => this.redact(text),
      });
    return info;
  }

  /**
   * Runs the SDK's initialize exchange under our own deadline. The spec forbids cancelling
   * initialize, and the SDK's timeout and abort both send `notifications/cancelled`: so the SDK
   * gets neither, and on expiry (or abort) the transport is closed instead, which fails the
   * pending request.
   */
  private async connectWithinDeadline(
    sdk: Client,
    opened: OpenedTransport,
    timeoutMs: number,
    signal: AbortSignal,
    prior: PriorDiscovery | undefined,
  ): Promise<void> {
    let ended: 'timeout' | 'aborted' | undefined;
    const end = (why: 'timeout' | 'aborted'): void => {
      if (ended) return;
      ended = why;
      // The transport itself too: during the era probe the SDK's protocol layer is not attached
      // yet, and closing the client alone would leave the probe waiting.
      sdk.close().catch(() => undefined);
      opened.transport.close().catch(() => undefined);
    };
    const failure = (error: unknown): unknown => {
      if (ended === 'timeout') return new MCPRequestTimeout(this.serverId, 'initialize', timeoutMs);
      if (ended === 'aborted') return this.violation ?? new MCPRequestCancelled(this.serverId, 'initialize');
      return error;
    };
    if (signal.aborted) {
      ended = 'aborted';
      throw failure(undefined);
    }
    const timer = setTimeout(() => end('timeout'), timeoutMs);
    const onAbort = (): void => end('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // OpenTelemetry: a call span's `jsonrpc.request.id` is read off the wire (telemetry/requestIds.ts).
      watchRequestIds(opened.transport);
      await sdk.connect(opened.transport, { timeout: MAX_TIMER_MS, ...(prior ? { prior } : {}) });
      if (ended) throw failure(undefined);
    } catch (error) {
      // Whether the server had already exited when the connect failed (its exit is then the cause).
      this.exitedBeforeConnectFailed = opened.exitedUnasked();
      throw failure(error);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Lists every tool, following pagination cursors. */
  async listTools(options: RequestOptions = {}): Promise<ToolDescriptor[]> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      // A renewed session starts the list over: the old session's cursors mean nothing to it.
      return await this.session.send('tools/list', async (sdk) => {
        const tools: ToolDescriptor[] = [];
        let cursor: string | undefined;
        const seenCursors = new Set<string>();
        let hints: ToolListHints | undefined;
        do {
          const page = await this.signIns.run(
            () =>
              sdk.request(
                { method: 'tools/list', params: cursor ? { cursor } : {} },
                { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
              ),
            options.signal,
          );
          refuseOwnGateway(this.serverId, this.options.ownGatewayMark, page, () => void this.close());
          this.options.onGatewayMarks?.(gatewayMarksOf(page));
          for (const tool of page.tools) {
            // A tool whose x-mcp-header declarations are invalid is left out, as the spec says a client must.
            const fault = invalidHeaderDeclaration(tool.inputSchema);
            if (fault) this.log.note(`tool "${tool.name}" left out: ${fault}`);
            else tools.push(tool);
            // A malformed MCP App declaration is ignored (the tool stays a plain tool): the log says why.
            const uiProblem = fault ? undefined : readToolUi(tool._meta).problem;
            if (uiProblem) this.log.note(`tool "${tool.name}": its _meta.ui is ignored: ${uiProblem}`);
          }
          hints = this._negotiated?.era === 'modern' ? cacheHintsOf(page) : undefined;
          cursor = page.nextCursor;
          if (cursor !== undefined) {
            if (seenCursors.has(cursor))
              throw new MCPProtocolError(this.serverId, `tools/list repeated the cursor ${JSON.stringify(cursor)}`);
            seenCursors.add(cursor);
          }
        } while (cursor !== undefined);
        this.toolDefinitions = new Map(tools.map((tool) => [tool.name, tool]));
        this.lastToolListHints = hints;
        return tools;
      });
    } catch (error) {
      throw this.noteFailure(this.mapError(error, 'tools/list', timeoutMs, options.signal));
    }
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<NormalizedToolResult> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const maxTotalMs = Math.max(timeoutMs, this.config.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS);
    // A modern call's input_required rounds run here (inputRounds.ts), where the call's own answerers are known.
    const rounds = this._negotiated?.era === 'modern';
    // A 2025-11-25 server that runs this tool as a task is asked to (tasks/legacyTasks.ts).
    const asTask =
      this._negotiated?.era === 'legacy' &&
      callAsLegacyTask(this._negotiated.capabilities, this.toolDefinitions.get(name));
    const logMeta = this.logLevel.meta(this._negotiated?.era)._meta;
    const meta = options.meta ? { ...options.meta, ...logMeta } : logMeta;
    const params = {
      name,
      arguments: args,
      ...(meta ? { _meta: meta } : {}),
      ...(asTask ? { task: {} } : {}),
    };
    // The call's deadline (requestDeadline.ts): the server's silence and the total, both paused
    // while a person answers what the server asked — in this call's rounds, or (legacy) as a
    // request of the server's while the call is in flight (personWaits.ts).
    const deadline = new CallDeadline(timeoutMs, maxTotalMs, options.signal);
    // A legacy server's own requests during the call may be tied to it (registerServerRequestHandlers).
    let asked = 0;
    const call: LegacyCall = {
      deadline,
      asks: options.serverRequests,
      asked: (kind, answeredBy) => options.onInputRound?.({ round: ++asked, requests: [{ kind, answeredBy }] }),
    };
    this.callsInFlight.track(call);
    let taskInputs = 0;
    const inputContext: InputRoundsContext = {
      serverId: this.serverId,
      person: this.options.serverRequests
        ? { serverId: this.serverId, handlers: this.options.serverRequests, note: (line) => this.log.note(line) }
        : undefined,
      personWait: () => ({ signal: deadline.ended, answered: deadline.waitForPerson() }),
      serverRequests: options.serverRequests,
      roots: () => this.roots,
      note: (line) => this.log.note(line),
      onRound: options.onInputRound,
      maxRounds: MAX_INPUT_ROUNDS,
    };
    try {
      const send = (legParams: Record<string, unknown>): Promise<unknown> =>
        this.sendToolCall(
          name,
          legParams,
          { timeoutMs, deadline, rounds, ...(options.onProgress ? { onProgress: options.onProgress } : {}) },
          options.signal,
        ).catch((error: unknown) => {
          // Answered with a task (the tasks extension): followed to its end within the call's deadline, its result is the call's.
          const task = taskCreatedOf(error);
          if (!task) throw error;
          return followTask(task, this.taskRequester(timeoutMs), {
            serverId: this.serverId,
            operation: `tools/call "${name}"`,
            signal: deadline.signal,
            callerSignal: options.signal,
            onEvent: options.onTask,
            // The task's questions go to the same answerers as the call's input rounds.
            // Each answered set is reported like an input round (the call's trace shows what was asked and who answered).
            answerInput: async (inputRequests, signal) => {
              const answered = await answerInputRequests(
                inputRequests as Record<string, InputRequest>,
                inputContext,
                signal,
              );
              options.onInputRound?.({ round: ++taskInputs, requests: answered.requests });
              return answered.responses;
            },
          });
        });
      const result = !rounds
        ? await this.callScope.run(call, () => send(params))
        : await runInputRounds(params, send, inputContext, deadline.signal);
      if (rounds) await checkToolOutput(this.toolDefinitions.get(name), result);
      return normalizeToolResult(result);
    } catch (error) {
      throw this.noteFailure(this.mapError(error, `tools/call "${name}"`, timeoutMs, options.signal));
    } finally {
      deadline.end();
    }
  }

  /**
   * A task's state, asked of the server (`tasks/get`, the tasks extension) — how a call recorded
   * with a task id is resolved after a restart (harness/taskRecovery.ts).
   */
  async getTask(taskId: string, options: RequestOptions = {}): Promise<DetailedTaskV2> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const signal = options.signal ?? new AbortController().signal;
    try {
      return parseTask(this.serverId, await this.taskRequester(timeoutMs).get(taskId, signal));
    } catch (error) {
      throw this.noteFailure(this.mapError(error, `tasks/get "${taskId}"`, timeoutMs, options.signal));
    }
  }

  /** Cancels a task on the server (`tasks/cancel`, the tasks extension). */
  async cancelTask(taskId: string, options: RequestOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      await this.taskRequester(timeoutMs).cancel(taskId);
    } catch (error) {
      throw this.noteFailure(this.mapError(error, `tasks/cancel "${taskId}"`, timeoutMs, options.signal));
    }
  }

  /** `tasks/get` and `tasks/cancel` on this connection (the tasks extension, or the 2025-11-25 form on a legacy one). */
  private taskRequester(timeoutMs: number): TaskRequester {
    const anyResult = z.record(z.string(), z.unknown());
    if (this._negotiated?.era === 'legacy') {
      // tasks/result waits for the task's end: the follower's signal ends it, not a timer.
      return legacyTaskRequester(this.serverId, (method, params, signal) =>
        this.session.send(`${method} "${params.taskId}"`, (sdk) =>
          sdk.request({ method, params }, anyResult, {
            timeout: method === 'tasks/result' ? NEVER_MS : timeoutMs,
            ...(signal ? { signal } : {}),
          }),
        ),
      );
    }
    return {
      get: (taskId, signal) =>
        this.session.send(`tasks/get "${taskId}"`, (sdk) =>
          sdk.request({ method: 'tasks/get', params: { taskId } }, anyResult, { timeout: timeoutMs, signal }),
        ),
      cancel: async (taskId) => {
        await this.session.send(`tasks/cancel "${taskId}"`, (sdk) =>
          sdk.request({ method: 'tasks/cancel', params: { taskId } }, anyResult, { timeout: timeoutMs }),
        );
      },
      update: async (taskId, inputResponses, signal) => {
        await this.session.send(`tasks/update "${taskId}"`, (sdk) =>
          sdk.request({ method: 'tasks/update', params: { taskId, inputResponses } }, anyResult, {
            timeout: timeoutMs,
            signal,
          }),
        );
      },
    };
  }

  /** One `tools/call` request on the wire (one leg of a call with rounds), retried once when the tool's definition changed. */
  private async sendToolCall(
    name: string,
    params: Record<string, unknown>,
    leg: { timeoutMs: number; deadline: CallDeadline; rounds: boolean; onProgress?: RequestOptions['onProgress'] },
    callerSignal: AbortSignal | undefined,
  ): Promise<unknown> {
    const onProgress = leg.onProgress;
    const send = (): Promise<unknown> =>
      this.session.send(`tools/call "${name}"`, (sdk) =>
        // A 401/403 means the server did not run it: after a browser sign-in it is sent again.
        this.signIns.run(() => {
          // The definition listed, for the SDK's header mirroring (Mcp-Param-*) and output
          // validation on a modern connection (our pages are listed one by one, not by the SDK).
          // With rounds, the SDK hands an input_required answer back, and the output schema is
          // checked on the complete result only (toolOutput.ts).
          const definition = this.toolDefinitions.get(name);
          return leg.deadline.leg((signal) =>
            sdk.callTool(params as { name: string }, {
              ...(definition ? { toolDefinition: leg.rounds ? withoutOutputSchema(definition) : definition } : {}),
              ...(leg.rounds ? { allowInputRequired: true } : {}),
              // The call's deadline times it (its signal); the SDK's own timer never fires.
              timeout: NEVER_MS,
              signal,
              // Progress restarts the server's deadline. A progress handler is always set:
              // without one the SDK sends no progress token, and the server cannot report any.
              onprogress: (progress) => {
                leg.deadline.progress();
                onProgress?.(progress);
              },
            }),
          );
        }, leg.deadline.signal),
      );
    try {
      return await send();
    } catch (error) {
      // -32020: the headers did not match the server's idea of the tool (its definition changed):
      // the request was refused unread, so the tools are listed again and it is sent once more.
      if (!(error instanceof ProtocolError && error.code === HEADER_MISMATCH) || callerSignal?.aborted) throw error;
      this.log.note(
        `tools/call "${name}": the server's tool definition changed (header mismatch); listing tools again and retrying once`,
      );
      await this.listTools({ timeoutMs: leg.timeoutMs, ...(callerSignal ? { signal: callerSignal } : {}) });
      return send();
    }
  }

  // ── requests from the server: elicitation, sampling, roots (see serverRequests.ts) ────────────

  /** Answers what the server may ask; the capabilities declared in `handshake` match these handlers. */
  private registerServerRequestHandlers(sdk: Client): void {
    registerServerRequestHandlers(sdk, {
      serverId: this.serverId,
      handlers: this.options.serverRequests,
      roots: () => this.roots,
      note: (line) => this.log.note(line),
      // Only a legacy server's own requests come during a tool call; on a modern connection these
      // handlers answer the SDK's rounds of prompts/get and resources/read, which no tool call waits for.
      personWaitBegins: () =>
        this._negotiated?.era === 'modern'
          ? { signal: undefined, answered: () => undefined }
          : this.callsInFlight.personWaitBegins(),
      tiedCall: () => this.tiedCall(),
    });
  }

  /**
   * The tool call a legacy server's request (being handled now) belongs to, when that can be told:
   * on HTTP the call whose response stream carried it (the server sent it as related to the call),
   * on stdio the call in flight when it is the only one. Otherwise none: the person answers.
   */
  private tiedCall(): TiedCall | undefined {
    if (this._negotiated?.era !== 'legacy') return undefined;
    const call = this.config.transport === 'streamable_http' ? this.callScope.getStore() : this.callsInFlight.only();
    if (!call || call.deadline.signal.aborted) return undefined;
    return { asks: call.asks, wait: () => waitOf(call), asked: call.asked };
  }

  /** Replaces the folders offered as roots; a connected server is told (`notifications/roots/list_changed`). */
  async setRoots(roots: readonly string[]): Promise<void> {
    if (roots.length === this.roots.length && roots.every((root, i) => root === this.roots[i])) return;
    this.roots = [...roots];
    if (this._state !== 'ready' || !this.sdk || this.isClosed()) return; // the next initialize declares them
    // A modern server has no roots notification: it asks for them (input_required) when it needs them.
    if (this._negotiated?.era === 'modern') {
      this.log.note(
        `roots changed (${roots.length} ${roots.length === 1 ? 'folder' : 'folders'}); the server gets them when it next asks`,
      );
      return;
    }
    try {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- roots are kept in both eras (retiredFeatures.ts)
      await this.sdk.sendRootsListChanged();
      this.log.note(
        `roots changed (${roots.length} ${roots.length === 1 ? 'folder' : 'folders'}); the server was told`,
      );
    } catch (error) {
      this.log.note(
        `roots changed, but the server could not be told: ${this.redact(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }

  /** Closes the connection (ends an HTTP session with `DELETE`, ends a stdio server). Safe to call any number of times. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this._state = 'closed';
    this.closedSignal.abort(new MCPClientClosedError(this.serverId, 'sign-in'));
    this.closing = (async () => {
      await this.session.end(this.lost !== undefined);
      try {
        await this.sdk?.close();
      } catch (error) {
        this.log.note(`close: ${this.redact(error instanceof Error ? error.message : String(error))}`);
      }
    })();
    return this.closing;
  }

  // ── sessions (sessionRenewal.ts): the lifecycle's part, making the new session ──────────────

  /**
   * Replaces a session that no longer holds with a new one: a fresh transport and negotiation.
   * The new session may offer other lists, so list listeners are told. If it fails, the
   * connection is lost (the registry reconnects with backoff).
   */
  private async makeNewSession(why: string): Promise<void> {
    const old = this.sdk;
    this.log.note(`${why}; starting a new session`);
    try {
      // A new session may be made in the middle of a call: its GET stream belongs to no call.
      const info = await this.callScope.exit(() =>
        this.handshake(this.config.timeoutMs, new AbortController().signal, performance.now()),
      );
      if (this.isClosed()) {
        await this.sdk?.close().catch(() => undefined);
        throw new MCPClientClosedError(this.serverId, 'initialize');
      }
      this._negotiated = info;
      this.log.note(`new session ready: ${info.era} era, protocol ${info.protocolVersion}`);
      this.options.onVerdict?.(this.keptVerdictOf(info));
      this.applyLogLevel();
      this.listChanges.emitAll();
    } catch (error) {
      const mapped =
        error instanceof MCPClientClosedError
          ? error
          : this.mapError(error, 'initialize (new session)', this.config.timeoutMs);
      if (!this.isClosed() && !this.lost) this.markLost(mapped);
      throw mapped;
    } finally {
      // The replaced session's transport: closed quietly (its handlers no longer speak for this client).
      old?.close().catch(() => undefined);
    }
  }

  // ── logging: the server's log messages, and the level it sends ──────────────────────────────

  /**
   * Asks the server for log messages of `level` and above: `logging/setLevel` on a legacy
   * connection; on a modern one the level travels with each tool call (serverLogLevel.ts).
   */
  async setLoggingLevel(level: LoggingLevel, options: RequestOptions = {}): Promise<void> {
    const operation = 'logging/setLevel';
    this.requireReady(operation);
    if (!this._negotiated?.capabilities.logging) throw new MCPNotSupportedError(this.serverId, 'logging', operation);
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      const how = await this.logLevel.set(level, this._negotiated.era, async () => {
        await this.session.send(operation, (sdk) =>
          // eslint-disable-next-line @typescript-eslint/no-deprecated -- server logs are kept in both eras (retiredFeatures.ts)
          sdk.setLoggingLevel(level, { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) }),
        );
      });
      this.log.note(`log level set to ${level}${how === 'per request' ? ' (sent with each request)' : ''}`);
    } catch (error) {
      throw this.noteFailure(this.mapError(error, operation, timeoutMs, options.signal));
    }
  }

  /** Sends the chosen log level to a new session (when the server logs); a failure is only noted. */
  private applyLogLevel(): void {
    const level = this.options.logLevel?.();
    if (!level || !this._negotiated?.capabilities.logging) return;
    this.setLoggingLevel(level).catch((error: unknown) =>
      this.log.note(`could not set the log level: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /** Notifications this client shows: the server's log messages go to its log, bounded and redacted. */
  private installNotificationHandlers(sdk: Client): void {
    sdk.setNotificationHandler('notifications/message', (notification) => {
      if (sdk === this.sdk) this.log.message(notification.params);
    });
  }

  /** The cache hints that came with the last tool list (modern servers only). */
  toolListHints(): ToolListHints | undefined {
    return this.lastToolListHints;
  }

  // ── list changes (listChanges.ts) ─────────────────────────────────────────────────────────

  /** Called (debounced) when the server says one of its lists changed, or a new session replaced a lost one. */
  onListChanged(kind: ListKind, listener: () => void): () => void {
    return this.listChanges.on(kind, listener);
  }

  private isClosed(): boolean {
    return this.closing !== undefined;
  }

  private requireReady(operation: string): Client {
    if (this._state === 'closed') throw new MCPClientClosedError(this.serverId, operation);
    if (this._state !== 'ready' || !this.sdk) throw new MCPNotInitializedError(this.serverId, operation);
    return this.sdk;
  }

  /**
   * A message over the size limit was dropped. The stream cannot go on from the middle of a
   * message, so the connection is reset: the requests in flight fail with this cause (not as an
   * exit), and the disconnect listeners (the registry, which reconnects) learn it too.
   */
  private onTooLarge(error: MCPResultTooLargeError): void {
    if (this.tooLarge) return;
    this.tooLarge = error;
    this.log.note(error.message);
    // Not from inside the transport's read loop: close on the next turn.
    queueMicrotask(() => {
      this.sdk?.close().catch(() => undefined);
    });
  }

  private onWireError(error: Error): void {
    if (error instanceof MCPResultTooLargeError) return; // handled by onTooLarge
    const isViolation = error instanceof SyntaxError || error.name === 'ZodError';
    if (!isViolation) return;
    const detail = this.notJsonRpcDetail();
    this.log.note(`protocol violation: ${detail}`);
    if (this._state === 'initializing' && !this.violation) {
      this.violation = new MCPProtocolError(this.serverId, detail);
      this.abortHandshake?.();
    }
  }

  private onTransportClosed(): void {
    // While a new session is being made, its outcome decides (see renewSession).
    if (this.isClosed() || this._state !== 'ready' || this.lost || this.session.inProgress) return;
    this.markLost(this.connectionLostError('the session'));
  }

  /** The HTTP server stopped answering (refused, reset): the session is lost. */
  private onRequestFailed(error: unknown): void {
    if (
      this.isClosed() ||
      this._state !== 'ready' ||
      this.lost ||
      this.session.inProgress ||
      this.config.transport !== 'streamable_http'
    )
      return;
    const errno = errnoOf(error);
    const failure = errno && SERVER_GONE_ERRNOS.has(errno) ? networkFailureOf(error, this.config.url) : undefined;
    if (failure) this.markLost(new MCPUnreachableError(this.serverId, failure));
  }

  /** A request failure that means the session is gone (an HTTP server that restarted forgot it). */
  private noteFailure(error: MCPError): MCPError {
    if (error instanceof MCPServerUnavailableError && this._state === 'ready' && !this.isClosed() && !this.lost)
      this.markLost(error);
    return error;
  }

  /** Tells the disconnect listeners once, and ends what is left of the connection. */
  private markLost(error: MCPError): void {
    this.lost = error;
    if (!(error instanceof MCPResultTooLargeError)) this.log.note(error.message); // onTooLarge noted it
    for (const listener of this.disconnectListeners) listener({ error });
    // On a later turn: the request whose failure showed the loss settles first with its own
    // error (refused: it was not sent), before the close fails the others as "lost mid-call".
    setImmediate(() => {
      this.sdk?.close().catch(() => undefined);
    });
  }

  /** What "the server sent something that is not JSON-RPC" means for this transport. */
  private notJsonRpcDetail(): string {
    return this.config.transport === 'stdio'
      ? 'it wrote output that is not JSON-RPC on its stdout (servers must log to stderr only)'
      : 'it answered with something that is not JSON-RPC (check that the URL is the server’s MCP endpoint, not a web page or a proxy)';
  }

  private connectionLostError(during: string): MCPError {
    // A fresh error per request: callers attach their own data (a trace id) to the instance.
    if (this.tooLarge) return new MCPResultTooLargeError(this.serverId, this.tooLarge.limitBytes);
    const exit = this.opened?.exitInfo();
    const stderrTail = this.log.tail(STDERR_TAIL_LINES);
    return new MCPServerExitedError(
      this.serverId,
      { exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail },
      during,
      this.opened?.deniedRead?.(stderrTail),
    );
  }

  private secrets(): SecretValue[] {
    return [...(this.opened?.secrets ?? []), ...(this.options.oauth?.secrets() ?? [])];
  }

  private redact(text: string): string {
    return redactString(
      text,
      this.secrets().map((s) => s.reveal()),
    );
  }

  /** Maps whatever the SDK, Node or fetch threw to one of the MCP layer's errors (see errorMapping.ts). */
  /**
   * The verdict to keep after a connection became ready: only what `auto` negotiated. A pinned
   * connection keeps none and drops any kept before, so changing the pin (back to Automatic
   * too) negotiates afresh instead of reusing a verdict from before the pin.
   */
  private keptVerdictOf(info: NegotiatedInfo): PriorDiscovery | undefined {
    return this.config.protocolEra === 'auto' ? verdictOf(info) : undefined;
  }

  private mapError(error: unknown, operation: string, timeoutMs: number, callerSignal?: AbortSignal): MCPError {
    return mapClientError(error, {
      serverId: this.serverId,
      config: this.config,
      operation,
      timeoutMs,
      callerAborted: callerSignal?.aborted === true,
      state: this._state,
      closed: this.isClosed(),
      tooLarge: this.tooLarge !== undefined,
      violation: this.violation,
      target: this.opened?.target ?? this.serverId,
      sessionId: this.opened?.sessionId(),
      authChallenge: this.opened?.authChallenge(),
      oauthChallenged: this.opened?.oauthChallenged?.() === true,
      processExited: this.exitedBeforeConnectFailed,
      redact: (text) => this.redact(text),
      connectionLost: () => this.connectionLostError(operation),
      notJsonRpcDetail: this.notJsonRpcDetail(),
    });
  }

  // ── resources, prompts, completion: the gates the requests in features/ go through ──────────

  /**
   * Runs requests of the server's other features (resources, prompts, completion) on the SDK
   * client, with the same refusals, deadline and error mapping as a tool call. `run` passes the
   * SDK options it gets (deadline, signal) to each request it makes.
   */
  async featureRequest<T>(
    operation: string,
    run: (sdk: Client, options: SdkRequestOptions) => Promise<T>,
    options: RequestOptions = {},
  ): Promise<T> {
    const sdk = this.requireReady(operation);
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      return await run(sdk, { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      throw this.noteFailure(this.mapError(error, operation, timeoutMs, options.signal));
    }
  }

  /** Installs notification handlers (list changes, resource updates) on this ready connection's SDK client. */
  attachFeatureHandlers(install: (sdk: Client) => void): void {
    install(this.requireReady('notifications'));
  }
}

/** A tool call in flight, as a legacy server's requests may need it: its deadline, its own answerers, its trace. */
interface LegacyCall extends TrackedCall {
  asks: CallServerRequestHandlers | undefined;
  asked: TiedCall['asked'];
}

/** The cache hints a modern list result carries (hidden from the SDK's public types, present at runtime). */
function cacheHintsOf(page: object): ToolListHints {
  const { ttlMs, cacheScope } = page as { ttlMs?: unknown; cacheScope?: unknown };
  return {
    ...(typeof ttlMs === 'number' ? { ttlMs } : {}),
    ...(cacheScope === 'public' || cacheScope === 'private' ? { cacheScope } : {}),
  };
}

/** A request that failed on a reused socket the server had already closed. */
function isStaleSocket(error: unknown): boolean {
  const code = errnoOf(error);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}
