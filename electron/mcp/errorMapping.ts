/**
 * The error mapping of a client connection as a pure function: whatever the v2 SDK, Node or fetch
 * threw, plus a snapshot of the connection (`MappingContext`), becomes one of the MCP layer's
 * typed errors. No state is read or written here — the caller passes everything it knows — so
 * each rule can be tested alone.
 *
 * v2 splits what v1's `McpError` carried: errors received on the wire are `ProtocolError`
 * (numeric JSON-RPC codes, including 2026-07-28's -32020/-32021/-32022), local failures are
 * `SdkError` (string codes: timeout, connection closed, era negotiation, input rounds), and HTTP
 * answers are `SdkHttpError` (the status on `.status`). Messages that came from outside are
 * redacted by the caller's `redact` before they reach an error.
 */
import {
  OAuthError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { ElicitationLink } from '../../shared/errors.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { AuthChallenge } from './errors.js';
import {
  MCPAuthError,
  MCPClientClosedError,
  MCPCommandNotFoundError,
  MCPConfigError,
  MCPError,
  MCPNotAnMCPServerError,
  MCPProtocolError,
  MCPRemoteError,
  MCPRequestCancelled,
  MCPRequestTimeout,
  MCPServerUnavailableError,
  MCPTransportError,
  MCPUnreachableError,
  MCPUrlElicitationRequiredError,
} from './errors.js';
import { networkFailureOf } from './networkFailure.js';
import { MCPSignInRequiredError } from './oauth/errors.js';
import { mapOAuthFailure } from './oauth/failures.js';

/** The 2026-07-28 error: the request's headers do not match its body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
export const HEADER_MISMATCH = -32020;

/** What the connection knew when the error happened (a snapshot; nothing here is changed). */
export interface MappingContext {
  serverId: string;
  config: ServerConfig;
  operation: string;
  timeoutMs: number;
  callerAborted: boolean;
  state: 'new' | 'initializing' | 'ready' | 'closed';
  closed: boolean;
  /** A message over the size limit reset the connection. */
  tooLarge: boolean;
  /** The first non-protocol output seen while initializing. */
  violation: MCPError | undefined;
  /** The command line or URL (never a secret). */
  target: string;
  /** HTTP: the live session's id, if the server assigned one. */
  sessionId: string | undefined;
  authChallenge: AuthChallenge | undefined;
  oauthChallenged: boolean;
  /** stdio: the server's process had ended when the connect failed. */
  processExited: boolean;
  redact: (text: string) => string;
  /** The error for "the connection went away under this request" (an exit, a reset). */
  connectionLost: () => MCPError;
  notJsonRpcDetail: string;
}

/** Maps whatever the SDK, Node or fetch threw to one of the MCP layer's errors. */
export function mapClientError(error: unknown, ctx: MappingContext): MCPError {
  const { serverId } = ctx;
  // After an oversized message, whatever the reset threw (a closed connection, a failed body
  // read) has that one cause; a timeout or the caller's own cancel stays what it was.
  if (ctx.tooLarge && !isSdk(error, SdkErrorCode.RequestTimeout)) return ctx.connectionLost();
  if (error instanceof MCPError) return error;
  if (ctx.violation && ctx.state === 'initializing') return ctx.violation;
  // An HTML page, plain text: not an MCP endpoint.
  if (isSdk(error, SdkErrorCode.ClientHttpUnexpectedContent)) {
    return ctx.state === 'initializing'
      ? new MCPNotAnMCPServerError(serverId, ctx.target, undefined)
      : new MCPProtocolError(serverId, ctx.notJsonRpcDetail);
  }
  if (error instanceof SdkError && !(error instanceof SdkHttpError)) return mapSdkError(error, ctx);
  if (error instanceof ProtocolError) return mapProtocolError(error, ctx);
  // ── OAuth: "sign in", and the OAuth exchanges that failed ──
  const oauthFailure = mapOAuthFailure(serverId, error, {
    oauth: ctx.config.transport === 'streamable_http' && ctx.config.auth.kind === 'oauth',
  });
  if (oauthFailure) return oauthFailure;
  if (error instanceof SdkHttpError) return mapHttpError(error, ctx);
  if (error instanceof UnauthorizedError) return new MCPAuthError(serverId, 401, 'oauth');
  return mapPlatformError(error, ctx);
}

function isSdk(error: unknown, code: SdkErrorCode): boolean {
  return error instanceof SdkError && error.code === code;
}

/** Local failures of the SDK: deadlines, a closed connection, era negotiation, rounds. */
function mapSdkError(error: SdkError, ctx: MappingContext): MCPError {
  const { serverId, operation } = ctx;
  switch (error.code) {
    case SdkErrorCode.RequestTimeout: {
      if (ctx.callerAborted) return new MCPRequestCancelled(serverId, operation);
      const maxTotal = (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout;
      if (typeof maxTotal === 'number') {
        return new MCPRequestTimeout(
          serverId,
          operation,
          maxTotal,
          'Its progress reports extended the deadline up to the maximum total time this server is allowed (raise it in the server’s settings).',
        );
      }
      return new MCPRequestTimeout(serverId, operation, ctx.timeoutMs);
    }
    case SdkErrorCode.ConnectionClosed:
      return ctx.closed ? new MCPClientClosedError(serverId, operation) : ctx.connectionLost();
    case SdkErrorCode.EraNegotiationFailed: {
      // A stdio server that exited during the probe: its exit is the error.
      if (ctx.processExited) return ctx.connectionLost();
      // The probe met what any first request may meet (a refused socket, a web page, a body
      // that is not JSON-RPC): that cause is the error, named as it would be without a probe.
      if (error.cause !== undefined && error.cause !== error) {
        const inner = mapClientError(error.cause, ctx);
        if (!(inner instanceof MCPTransportError)) return inner;
      }
      // Pinned to Modern: the pin is what failed, so the advice is to lift it, not to "pin the era".
      if (ctx.config.protocolEra === 'modern')
        return new MCPConfigError(
          serverId,
          `its settings pin the Modern protocol era (2026-07-28), and the server did not offer that version in answer to server/discover: it may speak only the 2025 (Legacy) era. Set Protocol era to Automatic in the server’s settings, or to Legacy. (${ctx.redact(error.message)})`,
        );
      return new MCPProtocolError(
        serverId,
        `the protocol version could not be negotiated: ${ctx.redact(error.message)} (pin the server’s protocol era in its settings if it misbehaves on the probe)`,
        { cause: error },
      );
    }
    case SdkErrorCode.InputRequiredRoundsExceeded:
      return new MCPProtocolError(
        serverId,
        `${operation} kept asking for more input after ${String((error.data as { rounds?: unknown } | undefined)?.rounds ?? 'the allowed')} rounds; it was stopped`,
      );
    case SdkErrorCode.UnsupportedResultType:
      return new MCPProtocolError(
        serverId,
        `${operation} answered with a result this client cannot use (${String((error.data as { resultType?: unknown } | undefined)?.resultType ?? 'unknown type')})`,
      );
    case SdkErrorCode.InvalidResult:
      return new MCPProtocolError(
        serverId,
        `${operation} answered with an invalid result: ${ctx.redact(error.message)}`,
        { cause: error },
      );
    case SdkErrorCode.MethodNotSupportedByProtocolVersion:
      return new MCPProtocolError(serverId, `${operation} does not exist in the protocol version this server speaks`);
    default:
      return new MCPTransportError(serverId, `${operation} failed: ${ctx.redact(error.message)}`);
  }
}

/** A JSON-RPC error the server sent back. */
function mapProtocolError(error: ProtocolError, ctx: MappingContext): MCPError {
  const { serverId, operation } = ctx;
  // A program that is not an MCP server: it does not know "initialize" (`cat` echoes the
  // request back, and the SDK's own "method not found" comes back as the answer).
  if (ctx.state === 'initializing' && error.code === ProtocolErrorCode.MethodNotFound) {
    return new MCPNotAnMCPServerError(serverId, ctx.target, error.code);
  }
  const message = ctx.redact(error.message.replace(/^MCP error -?\d+: /, ''));
  if (error.code === ProtocolErrorCode.MissingRequiredClientCapability) {
    const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
    const names = required && typeof required === 'object' ? Object.keys(required).join(', ') : '';
    return new MCPRemoteError(
      serverId,
      error.code,
      `${operation} needs a client capability this app did not declare${names ? ` (${names})` : ''}: ${message}`,
    );
  }
  // Resource not found: -32002 from servers of earlier revisions, -32602 (invalid params) from
  // 2026-07-28 servers, which must use it for a read of an unknown URI.
  if (
    operation === 'resources/read' &&
    (error.code === ProtocolErrorCode.ResourceNotFound || error.code === ProtocolErrorCode.InvalidParams)
  ) {
    return new MCPRemoteError(
      serverId,
      error.code,
      `the resource was not found (or its URI is not one the server accepts): ${message}`,
    );
  }
  if (error.code === ProtocolErrorCode.UrlElicitationRequired) {
    return new MCPUrlElicitationRequiredError(serverId, operation, elicitationLinksOf(error.data, ctx.redact));
  }
  if (error.code === ProtocolErrorCode.UnsupportedProtocolVersion) {
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    return new MCPRemoteError(
      serverId,
      error.code,
      `the server does not support this protocol version${Array.isArray(supported) ? ` (it supports ${supported.map(String).join(', ')})` : ''}: ${message}`,
    );
  }
  return new MCPRemoteError(serverId, error.code, message);
}

/** The http(s) links of a -32042 error's `elicitations` (at most 10); anything else is left out, never offered to open. */
function elicitationLinksOf(data: unknown, redact: (text: string) => string): ElicitationLink[] {
  const elicitations = (data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(elicitations)) return [];
  const links: ElicitationLink[] = [];
  for (const entry of elicitations.slice(0, 10)) {
    const { url, message } = (entry ?? {}) as { url?: unknown; message?: unknown };
    if (typeof url !== 'string' || url.length > 8_192) continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') continue;
    links.push({
      url: parsed.href,
      host: parsed.host,
      ...(typeof message === 'string' ? { message: redact(message).slice(0, 2_000) } : {}),
    });
  }
  return links;
}

/** A -32022 (unsupported protocol version) the server sent as an HTTP 400 body: the versions it asked for and offers. */
function unsupportedVersionOf(error: SdkHttpError): { requested?: string; supported: string[] } | undefined {
  const text = (error.data as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string' || text.length > 65_536) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const rpcError = (body as { error?: { code?: unknown; data?: unknown } } | null)?.error;
  if (rpcError?.code !== ProtocolErrorCode.UnsupportedProtocolVersion) return undefined;
  const data = (rpcError.data ?? {}) as { supported?: unknown; requested?: unknown };
  const supported = Array.isArray(data.supported)
    ? data.supported.filter((v): v is string => typeof v === 'string').slice(0, 20)
    : [];
  return { ...(typeof data.requested === 'string' ? { requested: data.requested } : {}), supported };
}

/** Said with the versions, and what to change: the pin when there is one. */
function unsupportedVersionError(
  unsupported: { requested?: string; supported: string[] },
  ctx: MappingContext,
): MCPError {
  const offers = unsupported.supported.length
    ? `it offers only ${unsupported.supported.map((v) => ctx.redact(v)).join(', ')}`
    : 'it did not say which versions it offers';
  const asked = unsupported.requested ? ` ${ctx.redact(unsupported.requested)}` : '';
  const fix =
    ctx.config.protocolEra === 'legacy'
      ? ' Its settings pin the Legacy protocol era (2025). Set Protocol era to Automatic in the server’s settings, or to Modern.'
      : ctx.config.protocolEra === 'modern'
        ? ' Its settings pin the Modern protocol era (2026-07-28). Set Protocol era to Automatic in the server’s settings, or to Legacy.'
        : '';
  const detail = `the server does not support protocol version${asked}: ${offers}.${fix}`;
  return fix ? new MCPConfigError(ctx.serverId, detail) : new MCPProtocolError(ctx.serverId, detail);
}

/** An HTTP answer that was not a JSON-RPC message. */
function mapHttpError(error: SdkHttpError, ctx: MappingContext): MCPError {
  const { serverId, operation } = ctx;
  const status = error.status;
  const unsupported = unsupportedVersionOf(error);
  if (unsupported) return unsupportedVersionError(unsupported, ctx);
  if (status === 401 && ctx.oauthChallenged) return new MCPSignInRequiredError(serverId, 'not_configured');
  if (status === 401 || status === 403) return new MCPAuthError(serverId, status, ctx.authChallenge ?? 'token');
  if (/content type/i.test(error.message)) {
    return ctx.state === 'initializing'
      ? new MCPNotAnMCPServerError(serverId, ctx.target, undefined)
      : new MCPProtocolError(serverId, ctx.notJsonRpcDetail);
  }
  // 404 on a request of a live session: the server no longer knows it (it restarted), so it
  // did not process the request. The session is lost; a new one must be initialized.
  if (status === 404 && ctx.state === 'ready' && ctx.sessionId) {
    return new MCPServerUnavailableError(
      serverId,
      'the server no longer knows this session (did it restart?); it is being reconnected',
    );
  }
  return new MCPTransportError(
    serverId,
    `${operation} failed: ${ctx.redact(error.message)}`,
    status > 0 ? status : undefined,
  );
}

/** Node and fetch failures: a missing command, a refused socket, a body that is not JSON. */
function mapPlatformError(error: unknown, ctx: MappingContext): MCPError {
  const { serverId, operation, config } = ctx;
  const errno = errnoOf(error);
  if (errno === 'ENOENT' && config.transport === 'stdio') return new MCPCommandNotFoundError(serverId, config.command);
  if ((errno === 'EACCES' || errno === 'ENOEXEC') && config.transport === 'stdio') {
    return new MCPConfigError(
      serverId,
      `the command "${config.command}" cannot be executed (${errno}); check its permissions`,
    );
  }
  // The socket of a live session closed under a request: it may have reached the server and
  // acted, so the outcome is unknown (as when a stdio server dies mid-call).
  if (
    config.transport === 'streamable_http' &&
    ctx.state === 'ready' &&
    errno &&
    ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(errno)
  ) {
    return ctx.connectionLost();
  }
  if (config.transport === 'streamable_http') {
    const failure = networkFailureOf(error, config.url);
    if (failure) return new MCPUnreachableError(serverId, failure);
  }
  const parseFailure = error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError');
  // An HTTP answer that is JSON but not JSON-RPC (or not JSON at all) fails the SDK's parse.
  if (config.transport === 'streamable_http' && parseFailure)
    return new MCPProtocolError(serverId, ctx.notJsonRpcDetail, { cause: error });
  if (
    error instanceof Error &&
    (parseFailure || /protocol version is not supported|invalid initialize result/i.test(error.message))
  ) {
    return new MCPProtocolError(serverId, ctx.redact(error.message), { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new MCPTransportError(serverId, `${operation} failed: ${ctx.redact(message)}`);
}

/** The errno code of a Node error or of a fetch failure's cause. */
export function errnoOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !(current instanceof SdkError) && !(current instanceof OAuthError)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
