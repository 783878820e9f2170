import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { ServerConfig } from '../../shared/serverConfig.js';

function sha256(value: unknown): string {
  return createHash('sha256')
    .update(stringify(value) ?? 'undefined')
    .digest('hex');
}

/**
 * A fingerprint of what decides *which server* a configuration reaches: transport, command,
 * arguments, environment, cwd, URL, headers and auth references. Name, priority, timeout and
 * enabled are left out — changing them does not change the server's tools. Secret references are
 * included as references (a replaced secret under the same key keeps the fingerprint).
 */
export function connectionFingerprint(config: ServerConfig): string {
  const { id, transport } = config;
  const target =
    config.transport === 'stdio'
      ? { command: config.command, args: config.args, env: config.env, cwd: config.cwd ?? null }
      : { url: config.url, headers: config.headers, auth: config.auth };
  // The server's identity (a `uid` the app makes when a server is first saved), when the
  // configuration has one: a new server that takes a removed one's id never matches its cache.
  const uid = (config as { uid?: unknown }).uid;
  return sha256({ id, ...(typeof uid === 'string' ? { uid } : {}), transport, target });
}

/** A fingerprint of a tool's interface (schemas and annotations), e.g. to expire an "always allow". */
export function toolFingerprint(tool: { name: string; inputSchema?: unknown; outputSchema?: unknown; annotations?: unknown }): string {
  return sha256({ name: tool.name, inputSchema: tool.inputSchema ?? null, outputSchema: tool.outputSchema ?? null, annotations: tool.annotations ?? null });
}
