/**
 * The client transports: stdio is our own on the SDK's public `Transport` interface
 * (stdioTransport.ts), HTTP is the v2 SDK's `StreamableHTTPClientTransport` with our `fetch`. What
 * they add: stdio — a bounded stderr buffer and the child's exit code; HTTP — auth headers added at request
 * time (the token never sits in a plain options object), a 404 for the session id noticed (the
 * server forgot the session), the kind of a 401's challenge, and the SDK's `DELETE` that ends the
 * session; both — the negotiated protocol version,
 * and one bound on the size of a message from the server (`maxMessageBytes`), reported as a typed
 * `MCPResultTooLargeError` instead of a dropped connection.
 */
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { HttpServerConfig, ServerConfig, StdioServerConfig, ValueOrSecret } from '../../shared/serverConfig.js';
import { sandboxEnabled } from '../../shared/serverConfig.js';
import type { ServerSandboxes } from '../sandbox/serverSandbox.js';
import { SandboxCommandNotFoundError, SandboxUnavailableError, sandboxedServerOf } from '../sandbox/serverSandbox.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import type { HttpAuth } from './auth.js';
import { BearerTokenAuth, CombinedAuth, HeaderAuth } from './auth.js';
import type { AuthChallenge, ExitInfo } from './errors.js';
import {
  MCPCommandNotFoundError,
  MCPConfigError,
  MCPResultTooLargeError,
  MCPSandboxUnavailableError,
} from './errors.js';
import type { LogBuffer } from './logBuffer.js';
import type { OAuthSession } from './oauth/session.js';
import { ProcessStdioTransport } from './stdioTransport.js';

const LF = 0x0a;
const CR = 0x0d;

export interface OpenedTransport {
  transport: Transport;
  /** What the GUI and errors name: the command line or the URL (never a secret). */
  target: string;
  /** Secrets this connection uses, to redact from anything that came back from the server. */
  secrets: SecretValue[];
  /** For stdio: how the process ended, once it has. */
  exitInfo(): Omit<ExitInfo, 'stderrTail'> | undefined;
  /** For stdio: the process ended on its own (not because the connection was closed). */
  exitedUnasked(): boolean;
  /** For a sandboxed stdio server: the hidden folder its stderr names, to offer "allow reading" (deniedAccess.ts). */
  deniedRead?(stderr: readonly string[]): string | undefined;
  /** For HTTP: the session the server assigned, once it has. */
  sessionId(): string | undefined;
  /** For HTTP: true once the server answered 404 to a request carrying this session's id (it forgot the session). */
  sessionExpired(): boolean;
  /** For HTTP: how the last 401 asked for credentials (`oauth`: an OAuth challenge, RFC 9728), if one came. */
  authChallenge(): AuthChallenge | undefined;
  /** For HTTP: ends the session on the server (`DELETE`, through the SDK's transport); absent for stdio. */
  terminate?(): Promise<void>;
  // ── OAuth ──
  /** OAuth servers: hands the authorization code of a browser sign-in to the SDK (token exchange). */
  finishAuth?(code: string, iss?: string): Promise<void>;
  /** HTTP: the last 401 carried an OAuth challenge (`WWW-Authenticate: Bearer resource_metadata=…`). */
  oauthChallenged?(): boolean;
}

/** What a transport may need beyond the configuration (an OAuth server's session). */
export interface TransportExtras {
  oauth?: OAuthSession;
  /** stdio: where a server whose sandbox is on is wrapped (sandbox/serverSandbox.ts). */
  sandboxes: ServerSandboxes;
}

export interface TransportLimits {
  /** The largest message the server may send (a result, a tool list), in bytes. */
  maxMessageBytes: number;
  /**
   * Called when a message went over the limit, before the transport fails with the same error.
   * The message is dropped unread; the caller resets the connection (a stream cannot resume in the
   * middle of a message) so the requests in flight fail with this error.
   */
  onTooLarge(error: MCPResultTooLargeError): void;
  /** HTTP: a request failed before any answer (refused, reset): the server may be gone. */
  onRequestFailed?(error: unknown): void;
  /** HTTP: the server answered 404 to a request carrying the session id: it no longer knows the session. */
  onSessionExpired?(): void;
  /** stdio: the server wrote a line that is not JSON-RPC (a `SyntaxError` or a `ZodError`). */
  onViolation?(error: Error): void;
}

async function resolveValues(
  values: Record<string, ValueOrSecret>,
  secrets: SecretResolver,
  collected: SecretValue[],
): Promise<{ plain: Record<string, string>; secret: Map<string, SecretValue> }> {
  const plain: Record<string, string> = {};
  const secret = new Map<string, SecretValue>();
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') plain[name] = value;
    else {
      const resolved = await secrets.resolve(value.secret);
      secret.set(name, resolved);
      collected.push(resolved);
    }
  }
  return { plain, secret };
}

/** Builds the error for an oversized message and tells the caller, once per message. */
function tooLargeReporter(serverId: string, limits: TransportLimits): () => MCPResultTooLargeError {
  return () => {
    const error = new MCPResultTooLargeError(serverId, limits.maxMessageBytes);
    limits.onTooLarge(error);
    return error;
  };
}

/**
 * A server whose sandbox is on is spawned through sandbox-runtime's wrap (its argv quoted word by
 * word into the library's inner shell); never unconfined when the sandbox cannot run.
 */
async function sandboxed(
  config: StdioServerConfig,
  env: Record<string, string>,
  sandboxes: ServerSandboxes,
): Promise<{
  command: string;
  args: string[];
  release?: () => void;
  deniedRead?: (stderr: readonly string[]) => string | undefined;
}> {
  if (!sandboxEnabled(config)) return { command: config.command, args: config.args };
  try {
    const wrapped = await sandboxes.wrap(sandboxedServerOf(config), { ...getDefaultEnvironment(), ...env });
    return { command: wrapped.command, args: wrapped.args, release: wrapped.release, deniedRead: wrapped.deniedRead };
  } catch (error) {
    if (error instanceof SandboxUnavailableError)
      throw new MCPSandboxUnavailableError(config.id, error.reason, error.detail);
    if (error instanceof SandboxCommandNotFoundError) throw new MCPCommandNotFoundError(config.id, config.command);
    throw error;
  }
}

/**
 * A sandboxed server runs under the library's shell and bwrap, which report a child killed by a
 * signal as the shell does (exit 128 + its number): told as the signal, as an unsandboxed one is.
 */
function signalOfShell(exit: Omit<ExitInfo, 'stderrTail'> | undefined): Omit<ExitInfo, 'stderrTail'> | undefined {
  if (!exit || exit.signal || exit.exitCode === null || exit.exitCode <= 128) return exit;
  const name = Object.entries(constants.signals).find(([, number]) => number === (exit.exitCode as number) - 128)?.[0];
  return name ? { exitCode: null, signal: name } : exit;
}

async function openStdio(
  config: StdioServerConfig,
  secrets: SecretResolver,
  log: LogBuffer,
  limits: TransportLimits,
  extras: TransportExtras,
): Promise<OpenedTransport> {
  const collected: SecretValue[] = [];
  const { plain, secret } = await resolveValues(config.env, secrets, collected);
  const env: Record<string, string> = { ...plain };
  for (const [name, value] of secret) env[name] = value.reveal();
  log.redact(collected);
  const spawned = await sandboxed(config, env, extras.sandboxes);

  // Spawned without a shell, from the SDK's getDefaultEnvironment() (an allow-list: HOME,
  // PATH, …); only the server's own configured variables are added to it.
  const transport = new ProcessStdioTransport({
    command: spawned.command,
    args: spawned.args,
    env,
    ...(spawned.release ? { onEnded: spawned.release } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    maxLineBytes: limits.maxMessageBytes,
    tooLarge: tooLargeReporter(config.id, limits),
    ...(limits.onViolation ? { onViolation: limits.onViolation } : {}),
  });
  const decoder = new StringDecoder('utf8'); // a character may straddle two chunks
  transport.stderr.on('data', (chunk: Buffer | string) =>
    log.appendChunk(typeof chunk === 'string' ? chunk : decoder.write(chunk)),
  );
  transport.stderr.on('end', () => log.flush());

  return {
    transport,
    target: [config.command, ...config.args].join(' '),
    secrets: collected,
    exitInfo: () => (spawned.release ? signalOfShell(transport.exit) : transport.exit),
    exitedUnasked: () => transport.exitedUnasked,
    ...(spawned.deniedRead ? { deniedRead: spawned.deniedRead } : {}),
    sessionId: () => undefined,
    sessionExpired: () => false,
    authChallenge: () => undefined,
  };
}

async function openHttp(
  config: HttpServerConfig,
  secrets: SecretResolver,
  log: LogBuffer,
  limits: TransportLimits,
  extras: TransportExtras,
): Promise<OpenedTransport> {
  const collected: SecretValue[] = [];
  const { plain, secret } = await resolveValues(config.headers, secrets, collected);
  const parts: HttpAuth[] = [new HeaderAuth(plain, secret)];
  if (config.auth.kind === 'bearer') {
    const token = await secrets.resolve(config.auth.token);
    collected.push(token);
    parts.push(new BearerTokenAuth(token));
  }
  const auth = new CombinedAuth(parts);
  // ── OAuth: the session's tokens are redacted from the log as they arrive ──
  const oauth = config.auth.kind === 'oauth' ? extras.oauth : undefined;
  if (config.auth.kind === 'oauth' && !oauth)
    throw new MCPConfigError(config.id, 'OAuth sign-in is not available in this host');
  if (oauth) oauth.redactIn(log, collected);
  else log.redact(collected);
  const serverOrigin = new URL(config.url).origin;
  let oauthChallenged = false;

  // Headers are added per request by this fetch, so the token lives only inside `auth`; each
  // response body is counted message by message, so an oversized one is refused while it streams.
  const tooLarge = tooLargeReporter(config.id, limits);
  let expired = false;
  let challenge: AuthChallenge | undefined;
  const authFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    // The configured headers and token go to the server only: with OAuth this fetch also reaches
    // the authorization server, which must not see them.
    if (originOf(input) === serverOrigin) auth.applyTo(headers);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers });
    } catch (error) {
      if (!init?.signal?.aborted) limits.onRequestFailed?.(error);
      throw error;
    }
    if (response.status === 401) challenge = challengeOf(response.headers.get('www-authenticate'));
    // The spec: a 404 to a request that carries a session id means the session is gone, and the
    // client must start a new one. (A DELETE that finds none has nothing left to end.)
    if (response.status === 404 && headers.has('mcp-session-id') && init?.method !== 'DELETE' && !expired) {
      expired = true;
      limits.onSessionExpired?.();
    }
    // ── OAuth: what a refusal asked for ──
    if ((response.status === 401 || response.status === 403) && originOf(input) === serverOrigin) {
      const header = response.headers.get('www-authenticate');
      oauth?.noteChallenge(response.status, header);
      if (response.status === 401) oauthChallenged = isOAuthChallenge(header);
    }
    return boundResponse(response, limits.maxMessageBytes, tooLarge);
  };
  const transport = new StreamableHTTPClientTransport(
    new URL(config.url),
    oauth ? { fetch: oauth.coalescingFetch(authFetch), authProvider: oauth.provider } : { fetch: authFetch },
  );
  return {
    transport,
    target: config.url,
    secrets: collected,
    exitInfo: () => undefined,
    exitedUnasked: () => false,
    sessionId: () => transport.sessionId,
    sessionExpired: () => expired,
    authChallenge: () => challenge,
    terminate: () => transport.terminateSession(),
    // The issuer the redirect named is checked against the authorization server's (RFC 9207).
    ...(oauth ? { finishAuth: (code: string, iss?: string) => transport.finishAuth(code, iss) } : {}),
    oauthChallenged: () => oauthChallenged,
  };
}

// ── OAuth ──
function originOf(input: string | URL | Request): string | undefined {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).origin;
  } catch {
    return undefined;
  }
}

/** A Bearer challenge that points at OAuth protected-resource metadata (MCP 2025-06-18 and later). */
function isOAuthChallenge(header: string | null): boolean {
  return !!header && /^\s*bearer\b/i.test(header) && /\bresource_metadata=/i.test(header);
}

/**
 * An OAuth-protected MCP server's 401 points at its protected-resource metadata (RFC 9728
 * `resource_metadata=`, which the MCP authorization spec requires): the person must sign in.
 * Anything else (`Bearer realm=…`, `error="invalid_token"`, no header) asks for a token.
 */
function challengeOf(header: string | null): AuthChallenge {
  return header && /(^|[\s,])resource_metadata\s*=/i.test(header) ? 'oauth' : 'token';
}

/**
 * Wraps a successful response's body in a byte counter. A JSON body is one message: its whole
 * size counts. An event stream (SSE) carries many messages, each ended by a blank line: the bytes
 * since the last blank line count, so a long-lived stream of small events is never refused.
 * Over the limit, the body fails with the error (the SDK's read rejects, the socket is released).
 */
export function boundResponse(response: Response, maxBytes: number, tooLarge: () => Error): Response {
  if (!response.ok || !response.body || response.status === 202) return response;
  const eventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
  let pending = 0;
  /** The stream so far ends with LF (CRs ignored): a LF at the start of the next chunk ends an event. */
  let endsWithLf = false;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (!eventStream) pending += chunk.byteLength;
      else {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        // The index of the LF that ends the last blank line in this chunk, if any.
        const lf = bytes.lastIndexOf('\n\n');
        const crlf = bytes.lastIndexOf('\n\r\n');
        let boundary = Math.max(lf >= 0 ? lf + 1 : -1, crlf >= 0 ? crlf + 2 : -1);
        if (boundary < 0 && endsWithLf) {
          if (bytes[0] === LF) boundary = 0;
          else if (bytes[0] === CR && bytes[1] === LF) boundary = 1;
        }
        pending = boundary >= 0 ? bytes.length - boundary - 1 : pending + bytes.length;
        const last = bytes[bytes.length - 1] === CR ? bytes[bytes.length - 2] : bytes[bytes.length - 1];
        endsWithLf = bytes.length > 0 ? last === LF : endsWithLf;
      }
      if (pending > maxBytes) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Builds the transport a configuration asks for. Secrets are resolved here, at connect time. */
export async function openTransport(
  config: ServerConfig,
  secrets: SecretResolver,
  log: LogBuffer,
  limits: TransportLimits,
  extras: TransportExtras,
): Promise<OpenedTransport> {
  switch (config.transport) {
    case 'stdio':
      return openStdio(config, secrets, log, limits, extras);
    case 'streamable_http':
      return openHttp(config, secrets, log, limits, extras);
    default: {
      const unknown: { transport?: unknown } = config;
      throw new MCPConfigError(undefined, `unknown transport ${JSON.stringify(unknown.transport)}`);
    }
  }
}
