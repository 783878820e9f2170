/**
 * `MCPClient`: one connection to one MCP server, over the official SDK `Client`.
 *
 * What it adds to the SDK: a lifecycle with clear refusals (before initialize, after close), a
 * deadline on every request that cancels it on the wire, the negotiated metadata kept as the
 * server answered, normalized tool results, and errors that name the server and say what to do
 * (never a secret: anything that came from outside is redacted first).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { redactString } from '../tracing/redact.js';
import {
  MCPAuthError,
  MCPClientClosedError,
  MCPCommandNotFoundError,
  MCPConfigError,
  DEFAULT_MAX_MESSAGE_BYTES,
  MCPError,
  MCPNotAnMCPServerError,
  MCPNotInitializedError,
  MCPProtocolError,
  MCPRemoteError,
  MCPRequestCancelled,
  MCPRequestTimeout,
  MCPResultTooLargeError,
  MCPServerExitedError,
  MCPServerUnavailableError,
  MCPTransportError,
  MCPUnreachableError,
} from './errors.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { LogBuffer } from './logBuffer.js';
import { networkFailureOf } from './networkFailure.js';
import type { OpenedTransport } from './transports.js';
import { openTransport } from './transports.js';
import { MCPSignInRequiredError } from './oauth/errors.js';
import { mapOAuthFailure } from './oauth/failures.js';
import type { OAuthSession } from './oauth/session.js';
import type {
  ClientState,
  DisconnectInfo,
  NegotiatedInfo,
  RequestOptions,
  ToolClient,
  ToolDescriptor,
} from './types.js';

export const CLIENT_INFO = { name: 'miniharness-desktop', version: '0.1.0' } as const;

/** How many stderr lines an exit error quotes. */
const STDERR_TAIL_LINES = 10;

/** Errors of an HTTP request that say the server is gone (not that it refused this request). */
const SERVER_GONE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export interface MCPClientOptions {
  secrets: SecretResolver;
  log?: LogBuffer;
  clientInfo?: { name: string; version: string };
  /** The largest message the server may send (a tool result, a tool list); 16 MiB by default. */
  maxMessageBytes?: number;
  /** OAuth servers (issue 11): the server's session — the SDK's provider, and the browser sign-in. */
  oauth?: OAuthSession;
}

/** Browser sign-ins one request may go through: the sign-in, and one step-up to more scopes. */
const MAX_SIGN_IN_ROUNDS = 2;

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
  /** Aborted by close(): ends a wait for a browser sign-in (issue 11). */
  private readonly closedSignal = new AbortController();

  constructor(
    private readonly config: ServerConfig,
    private readonly options: MCPClientOptions,
  ) {
    this.serverId = config.id;
    this.log = options.log ?? new LogBuffer();
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
      this._negotiated = info;
      this._state = 'ready';
      this.log.note(`ready: ${info.serverInfo.name} ${info.serverInfo.version}, protocol ${info.protocolVersion}`);
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
  private async handshake(timeoutMs: number, signal: AbortSignal, started: number, signInRound = 0): Promise<NegotiatedInfo> {
    const limits = {
      maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onTooLarge: (error: MCPResultTooLargeError) => this.onTooLarge(error),
      onRequestFailed: (error: unknown) => this.onRequestFailed(error),
    };
    this.opened = await openTransport(this.config, this.options.secrets, this.log, limits, this.options.oauth ? { oauth: this.options.oauth } : {}).catch((error: unknown) => {
      throw error instanceof MCPError ? error : new MCPConfigError(this.serverId, error instanceof Error ? error.message : String(error));
    });
    const sdk = new Client(this.options.clientInfo ?? CLIENT_INFO, { capabilities: {} });
    this.sdk = sdk;
    sdk.onerror = (error) => this.onWireError(error);
    sdk.onclose = () => this.onTransportClosed();
    this.log.note(`connecting to ${this.opened.target}`);
    try {
      await sdk.connect(this.opened.transport, { timeout: timeoutMs, signal });
    } catch (error) {
      // ── OAuth (issue 11): a browser sign-in was needed and is done: initialize again, signed in ──
      if (!(await this.completedSignIn(error, signInRound, signal))) throw error;
      await sdk.close().catch(() => undefined);
      return this.handshake(timeoutMs, signal, started, signInRound + 1);
    }

    const version = this.opened.protocolVersion();
    const serverInfo = sdk.getServerVersion();
    const capabilities = sdk.getServerCapabilities();
    if (!version || !serverInfo || !capabilities) {
      throw new MCPProtocolError(this.serverId, 'initialize completed without a protocol version, server info or capabilities');
    }
    return {
      protocolVersion: version,
      capabilities,
      serverInfo,
      instructions: sdk.getInstructions(),
      timings: { initializeMs: performance.now() - started, readyAt: Date.now() },
    };
  }

  /** Lists every tool, following pagination cursors. */
  async listTools(options: RequestOptions = {}): Promise<ToolDescriptor[]> {
    const sdk = this.requireReady('tools/list');
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    const seenCursors = new Set<string>();
    try {
      do {
        const page = await this.signedIn(() => sdk.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) }), options.signal);
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (cursor !== undefined) {
          if (seenCursors.has(cursor)) throw new MCPProtocolError(this.serverId, `tools/list repeated the cursor ${JSON.stringify(cursor)}`);
          seenCursors.add(cursor);
        }
      } while (cursor !== undefined);
    } catch (error) {
      throw this.noteFailure(this.mapError(error, 'tools/list', timeoutMs, options.signal));
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<NormalizedToolResult> {
    const sdk = this.requireReady(`tools/call "${name}"`);
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      const result = await this.signedIn(
        () =>
          sdk.callTool({ name, arguments: args }, undefined, {
            timeout: timeoutMs,
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onProgress ? { onprogress: options.onProgress } : {}),
          }),
        options.signal,
      );
      return normalizeToolResult(result);
    } catch (error) {
      throw this.noteFailure(this.mapError(error, `tools/call "${name}"`, timeoutMs, options.signal));
    }
  }

  /** Closes the connection (and ends a stdio server). Safe to call any number of times. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this._state = 'closed';
    this.closedSignal.abort(new MCPClientClosedError(this.serverId, 'sign-in'));
    this.closing = (async () => {
      try {
        await this.sdk?.close();
      } catch (error) {
        this.log.note(`close: ${this.redact(error instanceof Error ? error.message : String(error))}`);
      }
    })();
    return this.closing;
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
    const detail = 'it wrote output that is not JSON-RPC on its stdout (servers must log to stderr only)';
    this.log.note(`protocol violation: ${detail}`);
    if (this._state === 'initializing' && !this.violation) {
      this.violation = new MCPProtocolError(this.serverId, detail);
      this.abortHandshake?.();
    }
  }

  private onTransportClosed(): void {
    if (this.isClosed() || this._state !== 'ready' || this.lost) return;
    this.markLost(this.connectionLostError('the session'));
  }

  /** The HTTP server stopped answering (refused, reset): the session is lost. */
  private onRequestFailed(error: unknown): void {
    if (this.isClosed() || this._state !== 'ready' || this.lost || this.config.transport !== 'streamable_http') return;
    const errno = errnoOf(error);
    const failure = errno && SERVER_GONE_ERRNOS.has(errno) ? networkFailureOf(error, this.config.url) : undefined;
    if (failure) this.markLost(new MCPUnreachableError(this.serverId, failure));
  }

  /** A request failure that means the session is gone (an HTTP server that restarted forgot it). */
  private noteFailure(error: MCPError): MCPError {
    if (error instanceof MCPServerUnavailableError && this._state === 'ready' && !this.isClosed() && !this.lost) this.markLost(error);
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

  private connectionLostError(during: string): MCPError {
    // A fresh error per request: callers attach their own data (a trace id) to the instance.
    if (this.tooLarge) return new MCPResultTooLargeError(this.serverId, this.tooLarge.limitBytes);
    const exit = this.opened?.exitInfo();
    return new MCPServerExitedError(
      this.serverId,
      { exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail: this.log.tail(STDERR_TAIL_LINES) },
      during,
    );
  }

  private secrets(): SecretValue[] {
    return [...(this.opened?.secrets ?? []), ...(this.options.oauth?.secrets() ?? [])];
  }

  // ── OAuth (issue 11) ──────────────────────────────────────────────────────────────────────

  /**
   * Runs a request; when the server refused it (401/403, so it did not run) and the SDK started
   * a browser sign-in (interactive sessions only), waits for the sign-in and runs it again —
   * at most MAX_SIGN_IN_ROUNDS times (the sign-in, and a step-up to more scopes).
   */
  private async signedIn<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let round = 0; ; round++) {
      try {
        return await request();
      } catch (error) {
        if (!(await this.completedSignIn(error, round, signal))) throw error;
      }
    }
  }

  /**
   * True once a browser sign-in that `error` stands for has completed and its code was exchanged
   * for tokens; false when `error` is something else (the caller rethrows it). The wait for the
   * person has its own deadline (the session's), not the request's; close() or `signal` end it.
   */
  private async completedSignIn(error: unknown, round: number, signal?: AbortSignal): Promise<boolean> {
    const oauth = this.options.oauth;
    const pending = oauth?.pendingAuthorization();
    if (!oauth || !pending || !(error instanceof UnauthorizedError) || round >= MAX_SIGN_IN_ROUNDS || this.isClosed()) return false;
    const stop = signal ? AbortSignal.any([signal, this.closedSignal.signal]) : this.closedSignal.signal;
    try {
      const code = await pending.code(stop);
      this.log.note('sign-in: the authorization arrived; requesting the token');
      if (!this.opened?.finishAuth) return false;
      await this.opened.finishAuth(code);
      this.log.note('sign-in: signed in');
      return true;
    } finally {
      oauth.settlePendingAuthorization();
    }
  }

  private redact(text: string): string {
    return redactString(text, this.secrets().map((s) => s.reveal()));
  }

  /** Maps whatever the SDK, Node or fetch threw to one of the MCP layer's errors. */
  private mapError(error: unknown, operation: string, timeoutMs: number, callerSignal?: AbortSignal): MCPError {
    // After an oversized message, whatever the reset threw (a closed connection, a failed body
    // read) has that one cause; a timeout or the caller's own cancel stays what it was.
    if (this.tooLarge && !(error instanceof McpError && error.code === ErrorCode.RequestTimeout)) return this.connectionLostError(operation);
    if (error instanceof MCPError) return error;
    if (this.violation && this._state === 'initializing') return this.violation;
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        return callerSignal?.aborted ? new MCPRequestCancelled(this.serverId, operation) : new MCPRequestTimeout(this.serverId, operation, timeoutMs);
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        if (this.isClosed()) return new MCPClientClosedError(this.serverId, operation);
        return this.connectionLostError(operation);
      }
      // A program that is not an MCP server: it does not know "initialize" (`cat` echoes the
      // request back, and the SDK's own "method not found" comes back as the answer).
      if (this._state === 'initializing' && error.code === ErrorCode.MethodNotFound) {
        return new MCPNotAnMCPServerError(this.serverId, this.opened?.target ?? this.serverId, error.code);
      }
      return new MCPRemoteError(this.serverId, error.code, this.redact(error.message.replace(/^MCP error -?\d+: /, '')));
    }
    // ── OAuth (issue 11): "sign in", and the OAuth exchanges that failed ──
    const oauthFailure = mapOAuthFailure(this.serverId, error, { oauth: this.config.transport === 'streamable_http' && this.config.auth.kind === 'oauth' });
    if (oauthFailure) return oauthFailure;
    if (error instanceof StreamableHTTPError && error.code === 401 && this.opened?.oauthChallenged?.()) return new MCPSignInRequiredError(this.serverId, 'not_configured');
    if (error instanceof UnauthorizedError) return new MCPAuthError(this.serverId, 401);
    if (error instanceof StreamableHTTPError) {
      if (error.code === 401 || error.code === 403) return new MCPAuthError(this.serverId, error.code);
      // 404 on a request of a live session: the server no longer knows it (it restarted), so it
      // did not process the request. The session is lost; a new one must be initialized.
      if (error.code === 404 && this._state === 'ready' && this.opened?.sessionId()) {
        return new MCPServerUnavailableError(this.serverId, 'the server no longer knows this session (did it restart?); it is being reconnected');
      }
      const status = error.code && error.code > 0 ? error.code : undefined;
      return new MCPTransportError(this.serverId, `${operation} failed: ${this.redact(error.message)}`, status);
    }
    const errno = errnoOf(error);
    if (errno === 'ENOENT' && this.config.transport === 'stdio') return new MCPCommandNotFoundError(this.serverId, this.config.command);
    if ((errno === 'EACCES' || errno === 'ENOEXEC') && this.config.transport === 'stdio') {
      return new MCPConfigError(this.serverId, `the command "${this.config.command}" cannot be executed (${errno}); check its permissions`);
    }
    // The socket of a live session closed under a request: it may have reached the server and
    // acted, so the outcome is unknown (as when a stdio server dies mid-call).
    if (this.config.transport === 'streamable_http' && this._state === 'ready' && errno && ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(errno)) {
      return this.connectionLostError(operation);
    }
    if (this.config.transport === 'streamable_http') {
      const failure = networkFailureOf(error, this.config.url);
      if (failure) return new MCPUnreachableError(this.serverId, failure);
    }
    if (error instanceof Error && (error.name === 'ZodError' || /protocol version is not supported|invalid initialize result/i.test(error.message))) {
      return new MCPProtocolError(this.serverId, this.redact(error.message), { cause: error });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new MCPTransportError(this.serverId, `${operation} failed: ${this.redact(message)}`);
  }
}

/** A request that failed on a reused socket the server had already closed. */
function isStaleSocket(error: unknown): boolean {
  const code = errnoOf(error);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

/** The errno code of a Node error or of a fetch failure's cause. */
function errnoOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One shape for every result: old-style `toolResult` answers become a text block. */
export function normalizeToolResult(result: unknown): NormalizedToolResult {
  const r = (result ?? {}) as { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown };
  const content = Array.isArray(r.content)
    ? (r.content as NormalizedToolResult['content'])
    : r.toolResult !== undefined
      ? [{ type: 'text' as const, text: JSON.stringify(r.toolResult) }]
      : [];
  const structured =
    r.structuredContent && typeof r.structuredContent === 'object' && !Array.isArray(r.structuredContent)
      ? (r.structuredContent as Record<string, unknown>)
      : undefined;
  return { content, structuredContent: structured, isError: r.isError === true };
}
