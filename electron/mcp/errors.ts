/**
 * Errors of the MCP layer. Local failures (timeouts, closed clients, a process that exited)
 * and errors received from the wire (a JSON-RPC error the server answered) are distinct types,
 * so callers — retries, the GUI — can tell "it never reached the server" from "the server said no".
 *
 * Messages say what happened and what to do; they never contain a secret (callers redact
 * anything that came from outside, such as stderr, before it lands here).
 */
import type { ElicitationLink, ErrorCause, ErrorDetails, SandboxReason } from '../../shared/errors.js';
import { CodedError } from '../util/codedError.js';

export type MCPErrorCode =
  | 'not_initialized'
  | 'closed'
  | 'timeout'
  | 'cancelled'
  | 'auth'
  | 'command_not_found'
  // The server's sandbox cannot run here (sandbox/serverSandbox.ts): the server was not started
  | 'sandbox_unavailable'
  | 'unreachable'
  | 'not_an_mcp_server'
  | 'server_exited'
  | 'protocol'
  | 'config'
  | 'remote'
  | 'unavailable'
  | 'unknown_tool'
  | 'transport'
  | 'result_too_large'
  | 'not_offered'
  | 'not_supported'
  // OAuth: see oauth/errors.ts
  | 'sign_in_required'
  | 'oauth_failed'
  // The server is this app's own agent gateway (ownGateway.ts)
  | 'gateway_loop'
  // A server answered a call with -32042: the person must open a link (URL elicitation)
  | 'url_elicitation_required';

export abstract class MCPError extends CodedError<MCPErrorCode> {
  /** The server this error concerns, when there is one. */
  readonly serverId: string | undefined;

  constructor(message: string, serverId?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.serverId = serverId;
  }

  override toJSON(): { name: string; code: MCPErrorCode; message: string; serverId?: string } {
    return { ...super.toJSON(), ...(this.serverId ? { serverId: this.serverId } : {}) };
  }

  /** The typed details the contract carries (see shared/errors.ts); subclasses add theirs. */
  get details(): ErrorDetails {
    return this.serverId ? { serverId: this.serverId } : {};
  }
}

export class MCPNotInitializedError extends MCPError {
  readonly code = 'not_initialized';
  constructor(serverId: string, operation: string) {
    super(`Server "${serverId}": ${operation} was called before initialize(). Connect the server first.`, serverId);
  }
}

export class MCPClientClosedError extends MCPError {
  readonly code = 'closed';
  constructor(serverId: string, operation: string) {
    super(
      `Server "${serverId}": ${operation} was called after the client was closed. Reconnect the server to use it again.`,
      serverId,
    );
  }
}

export class MCPRequestTimeout extends MCPError {
  readonly code = 'timeout';
  constructor(
    serverId: string,
    readonly operation: string,
    readonly timeoutMs: number,
    extra = '',
  ) {
    // The spec forbids cancelling initialize: its deadline closes the connection instead.
    const ended = operation === 'initialize' ? 'the connection was closed' : 'the request was cancelled';
    super(
      `Server "${serverId}" did not answer ${operation} within ${timeoutMs} ms; ${ended}.${extra ? ` ${extra}` : ''} Check that the server is healthy, or raise its timeout.`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return { ...super.details, retryable: false, cause: { kind: 'timeout' } };
  }
}

/** The caller's own signal aborted the request (not a deadline). */
export class MCPRequestCancelled extends MCPError {
  readonly code = 'cancelled';
  constructor(serverId: string, operation: string) {
    super(`Server "${serverId}": ${operation} was cancelled.`, serverId);
  }
}

/** How a 401 asked for credentials: `oauth` when it points at OAuth metadata (the person must sign in), else `token`. */
export type AuthChallenge = 'oauth' | 'token';

export class MCPAuthError extends MCPError {
  readonly code = 'auth';
  constructor(
    serverId: string,
    readonly status: 401 | 403,
    /** For a 401: what the server's challenge asked for. */
    readonly challenge: AuthChallenge = 'token',
  ) {
    super(
      status === 403
        ? `Server "${serverId}" denied access (HTTP 403 Forbidden). The token is valid but lacks permission for this server.`
        : challenge === 'oauth'
          ? `Server "${serverId}" asks you to sign in (HTTP 401 with an OAuth challenge). Sign in to the server to use it.`
          : `Server "${serverId}" refused the credentials (HTTP 401 Unauthorized). Set or replace its token.`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    // The GUI offers "Sign in" instead of "Replace token" from this typed cause.
    return this.status === 401 && this.challenge === 'oauth'
      ? { ...super.details, cause: { kind: 'sign_in', httpStatus: 401 } }
      : super.details;
  }
}

export class MCPCommandNotFoundError extends MCPError {
  readonly code = 'command_not_found';
  constructor(
    serverId: string,
    readonly command: string,
  ) {
    super(
      `Server "${serverId}": the command "${command}" was not found. Check the path, or that it is installed and on PATH.`,
      serverId,
    );
  }
}

/**
 * A stdio server whose sandbox is on was not started: the sandbox cannot run here, or cannot take
 * its configuration. Never started unsandboxed instead; the person turns the sandbox off to run it.
 */
export class MCPSandboxUnavailableError extends MCPError {
  readonly code = 'sandbox_unavailable';
  constructor(
    serverId: string,
    readonly reason: SandboxReason,
    /** For people: what the check found (a program's name, the library's words); never parsed. */
    detail: string,
  ) {
    super(
      `Server "${serverId}" was not started: its sandbox cannot run (${reason}: ${detail}). Fix that, or turn its sandbox off.`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return { ...super.details, retryable: false, sandbox: { reason: this.reason } };
  }
}

const CAUSE_WORDS: Record<UnreachableKind, string> = {
  connection_refused: 'the connection was refused',
  dns: 'the host name could not be resolved',
  tls: 'the TLS (https) handshake failed',
  timeout: 'the connection timed out',
  reset: 'the connection was reset',
  network: 'the network could not reach the host',
  blocked_port: 'fetch refuses to connect to this port',
};

/** The kinds of "could not reach the server" a network failure can be. */
export type UnreachableKind = Extract<
  ErrorCause['kind'],
  'connection_refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'network' | 'blocked_port'
>;

/** An HTTP server could not be reached: what failed (refused, DNS, TLS, timeout, …) and where (host:port). The request was not processed. */
export class MCPUnreachableError extends MCPError {
  readonly code = 'unreachable';
  readonly failure: ErrorCause & { kind: UnreachableKind; host: string; port: number };
  constructor(serverId: string, failure: ErrorCause & { kind: UnreachableKind; host: string; port: number }) {
    super(
      `Server "${serverId}": could not connect to ${failure.host}:${failure.port}: ${CAUSE_WORDS[failure.kind]}${failure.errno ? ` (${failure.errno})` : ''}. Check that the server is running and the URL is right.`,
      serverId,
    );
    this.failure = failure;
  }

  override get details(): ErrorDetails {
    return { ...super.details, retryable: true, cause: { ...this.failure } };
  }
}

/**
 * The program answered, but not as an MCP server: its answer to initialize was a JSON-RPC
 * "method not found" (or an echo of the request, as `cat` gives).
 */
export class MCPNotAnMCPServerError extends MCPError {
  readonly code = 'not_an_mcp_server';
  constructor(
    serverId: string,
    readonly target: string,
    readonly rpcCode: number | undefined,
  ) {
    super(
      `Server "${serverId}": "${target}" did not answer as an MCP server${rpcCode !== undefined ? ` (it answered initialize with JSON-RPC error ${rpcCode})` : ''}. Check that the command or URL starts an MCP server.`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return {
      ...super.details,
      retryable: false,
      cause: { kind: 'protocol' },
      ...(this.rpcCode !== undefined ? { rpcCode: this.rpcCode } : {}),
    };
  }
}

export interface ExitInfo {
  exitCode: number | null;
  signal: string | null;
  /** The last lines the server wrote to stderr, secrets already redacted. */
  stderrTail: string[];
}

export class MCPServerExitedError extends MCPError {
  readonly code = 'server_exited';
  constructor(
    serverId: string,
    readonly exit: ExitInfo,
    during: string,
    /** Sandboxed: the hidden folder its stderr names, the narrowest "allow reading" to offer. */
    readonly deniedRead?: string,
  ) {
    const how = exit.signal
      ? `was killed by ${exit.signal}`
      : exit.exitCode === null
        ? 'closed its connection'
        : `exited with code ${exit.exitCode}`;
    const tail = exit.stderrTail.length ? `\nLast stderr lines:\n${exit.stderrTail.join('\n')}` : '';
    super(`Server "${serverId}" ${how} during ${during}.${tail}`, serverId);
  }

  override get details(): ErrorDetails {
    return {
      ...super.details,
      retryable: false,
      cause: { kind: 'exited', exitCode: this.exit.exitCode, signal: this.exit.signal },
      ...(this.deniedRead ? { sandboxDenied: { read: this.deniedRead } } : {}),
    };
  }
}

/** The server broke the protocol: non-JSON-RPC output on stdout, an invalid response. */
export class MCPProtocolError extends MCPError {
  readonly code = 'protocol';
  constructor(serverId: string, detail: string, options?: { cause?: unknown }) {
    super(`Server "${serverId}" broke the MCP protocol: ${detail}`, serverId, options);
  }

  override get details(): ErrorDetails {
    return { ...super.details, cause: { kind: 'protocol' } };
  }
}

export class MCPConfigError extends MCPError {
  readonly code = 'config';
  constructor(serverId: string | undefined, detail: string) {
    super(
      serverId ? `Server "${serverId}" is misconfigured: ${detail}` : `Invalid server configuration: ${detail}`,
      serverId,
    );
  }
}

/** A JSON-RPC error the server sent back (it received the request and refused it). */
export class MCPRemoteError extends MCPError {
  readonly code = 'remote';
  constructor(
    serverId: string,
    readonly rpcCode: number,
    remoteMessage: string,
  ) {
    super(`Server "${serverId}" answered with error ${rpcCode}: ${remoteMessage}`, serverId);
  }

  override get details(): ErrorDetails {
    return { ...super.details, rpcCode: this.rpcCode };
  }
}

/**
 * MCP -32042: the server needs the person to open a link (URL-mode elicitation by the error path)
 * before it can process the request — it did not run it. `links` holds the http(s) links it
 * named (anything else is never offered to open); the message names their hosts only, since a
 * link's path and query may carry a one-time code, and the message reaches traces and History.
 */
export class MCPUrlElicitationRequiredError extends MCPError {
  readonly code = 'url_elicitation_required';
  constructor(
    serverId: string,
    operation: string,
    readonly links: ElicitationLink[],
  ) {
    const hosts = [...new Set(links.map((link) => link.host))];
    const where =
      hosts.length === 0
        ? 'a link this app does not open (not an http or https address)'
        : `a link at ${hosts.join(', ')}`;
    super(
      `Server "${serverId}" needs you to open ${where} before it can run ${operation}; it did not run it.${hosts.length ? ' Open the link, finish there, then run the call again.' : ''}`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return { ...super.details, rpcCode: -32042, retryable: false, links: this.links };
  }
}

/** A transport-level failure that is not one of the specific ones above (e.g. HTTP 500/503). */
export class MCPTransportError extends MCPError {
  readonly code = 'transport';
  constructor(
    serverId: string,
    detail: string,
    /** HTTP status when the failure was an HTTP response. */
    readonly httpStatus?: number,
  ) {
    super(`Server "${serverId}": ${detail}`, serverId);
  }

  override get details(): ErrorDetails {
    return {
      ...super.details,
      ...(this.httpStatus !== undefined ? { cause: { kind: 'http_status', httpStatus: this.httpStatus } } : {}),
    };
  }
}

export class MCPServerUnavailableError extends MCPError {
  readonly code = 'unavailable';
  constructor(serverId: string, reason: string) {
    super(`Server "${serverId}" is not available: ${reason}`, serverId);
  }

  override get details(): ErrorDetails {
    return { ...super.details, retryable: true };
  }
}

export class MCPUnknownToolError extends MCPError {
  readonly code = 'unknown_tool';
  constructor(toolName: string, serverId?: string) {
    super(
      serverId
        ? `Server "${serverId}" offers no tool named "${toolName}". Run discovery again if the server changed.`
        : `No connected server offers a tool named "${toolName}".`,
      serverId,
    );
  }
}

/** The server did not declare the capability a request needs (e.g. `logging` for logging/setLevel). */
export class MCPNotSupportedError extends MCPError {
  readonly code = 'not_supported';
  constructor(
    serverId: string,
    /** The capability it lacks, as the protocol names it. */
    readonly capability: string,
    operation: string,
  ) {
    super(
      `Server "${serverId}" does not support ${operation}: it did not declare the "${capability}" capability.`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return { ...super.details, retryable: false };
  }
}

/** The default bound on one message from a server (a tool result, a tool list): 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${mib.toFixed(1)} MiB`;
}

/**
 * A message from the server was bigger than the limit. It was dropped unread, and the connection
 * it arrived on was reset (a stream cannot skip half a message), so every request in flight on it
 * fails with this error; the registry reconnects the server by itself.
 */
export class MCPResultTooLargeError extends MCPError {
  readonly code = 'result_too_large';
  constructor(
    serverId: string,
    readonly limitBytes: number,
  ) {
    super(
      `Server "${serverId}" sent a result too large (limit ${formatMiB(limitBytes)}); it was dropped and the connection was reset. Ask the tool for less data (a range, a page, a filter).`,
      serverId,
    );
  }

  override get details(): ErrorDetails {
    return { ...super.details, limitBytes: this.limitBytes, retryable: false };
  }
}

/** This server is the app's own gateway (ownGateway.ts): the contract's `gateway_loop`, in the same words as a refused configuration. */
export class MCPGatewayLoopError extends MCPError {
  readonly code = 'gateway_loop';
  constructor(serverId: string) {
    super(
      'This server points at MiniHarness’s own agent gateway: its calls would come back here in a loop. Connect the agent to the gateway instead.',
      serverId,
    );
  }
}

/** A request to the tool registry after `close()` (the app is quitting). */
export class RegistryClosedError extends MCPError {
  readonly code = 'closed';
  constructor() {
    super('The tool registry has been closed (the app is quitting).');
  }
}
