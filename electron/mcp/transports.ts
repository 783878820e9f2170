/**
 * Thin wrappers over the SDK's client transports. They add what the app needs around the SDK:
 * stdio — a bounded stderr buffer and the child's exit code; HTTP — auth headers added at request
 * time (the token never sits in a plain options object); both — the negotiated protocol version.
 */
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HttpServerConfig, ServerConfig, StdioServerConfig, ValueOrSecret } from '../../shared/serverConfig.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import type { HttpAuth } from './auth.js';
import { BearerTokenAuth, CombinedAuth, HeaderAuth } from './auth.js';
import type { ExitInfo } from './errors.js';
import { MCPConfigError } from './errors.js';
import type { LogBuffer } from './logBuffer.js';

export interface OpenedTransport {
  transport: Transport;
  /** What the GUI and errors name: the command line or the URL (never a secret). */
  target: string;
  /** Secrets this connection uses, to redact from anything that came back from the server. */
  secrets: SecretValue[];
  /** The protocol version the server agreed to, once initialize has completed. */
  protocolVersion(): string | undefined;
  /** For stdio: how the process ended, once it has. */
  exitInfo(): Omit<ExitInfo, 'stderrTail'> | undefined;
}

/**
 * The SDK's stdio transport, plus the child's exit code and signal (the SDK drops them) and the
 * protocol version handed over by `Client.connect()`.
 */
class ObservedStdioTransport extends StdioClientTransport {
  negotiatedVersion: string | undefined;
  exit: { exitCode: number | null; signal: string | null } | undefined;

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the child private; we only listen to it, never drive it.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (exitCode, signal) => {
      this.exit = { exitCode, signal };
    });
  }

  setProtocolVersion(version: string): void {
    this.negotiatedVersion = version;
  }
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

async function openStdio(config: StdioServerConfig, secrets: SecretResolver, log: LogBuffer): Promise<OpenedTransport> {
  const collected: SecretValue[] = [];
  const { plain, secret } = await resolveValues(config.env, secrets, collected);
  const env: Record<string, string> = { ...plain };
  for (const [name, value] of secret) env[name] = value.reveal();
  log.redact(collected);

  // The SDK spawns without a shell and starts from getDefaultEnvironment() (an allow-list:
  // HOME, PATH, …); only the server's own configured variables are added to it.
  const transport = new ObservedStdioTransport({
    command: config.command,
    args: config.args,
    env,
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  });
  const stderr = transport.stderr;
  const decoder = new StringDecoder('utf8'); // a character may straddle two chunks
  stderr?.on('data', (chunk: Buffer | string) => log.appendChunk(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
  stderr?.on('end', () => log.flush());

  return {
    transport,
    target: [config.command, ...config.args].join(' '),
    secrets: collected,
    protocolVersion: () => transport.negotiatedVersion,
    exitInfo: () => transport.exit,
  };
}

async function openHttp(config: HttpServerConfig, secrets: SecretResolver, log: LogBuffer): Promise<OpenedTransport> {
  const collected: SecretValue[] = [];
  const { plain, secret } = await resolveValues(config.headers, secrets, collected);
  const parts: HttpAuth[] = [new HeaderAuth(plain, secret)];
  if (config.auth.kind === 'bearer') {
    const token = await secrets.resolve(config.auth.token);
    collected.push(token);
    parts.push(new BearerTokenAuth(token));
  }
  const auth = new CombinedAuth(parts);
  log.redact(collected);

  // Headers are added per request by this fetch, so the token lives only inside `auth`.
  const authFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    auth.applyTo(headers);
    return fetch(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(config.url), { fetch: authFetch });
  return {
    transport,
    target: config.url,
    secrets: collected,
    protocolVersion: () => transport.protocolVersion,
    exitInfo: () => undefined,
  };
}

/** Builds the transport a configuration asks for. Secrets are resolved here, at connect time. */
export async function openTransport(config: ServerConfig, secrets: SecretResolver, log: LogBuffer): Promise<OpenedTransport> {
  switch (config.transport) {
    case 'stdio':
      return openStdio(config, secrets, log);
    case 'streamable_http':
      return openHttp(config, secrets, log);
    default: {
      const unknown: { transport?: unknown } = config;
      throw new MCPConfigError(undefined, `unknown transport ${JSON.stringify(unknown.transport)}`);
    }
  }
}
