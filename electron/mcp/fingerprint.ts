import type { ServerConfig } from '../../shared/serverConfig.js';
import { stableHash } from '../util/stableHash.js';

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
  return stableHash({ id, ...(config.uid !== undefined ? { uid: config.uid } : {}), transport, target });
}
