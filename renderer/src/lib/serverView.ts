/**
 * Reading a ServerView's configuration. The contract carries it as a plain JSON object (main
 * validated it); the renderer re-reads it with the shared schema to get typed fields, cached per
 * object so list renders stay cheap.
 */
import type { ServerView } from '../../../shared/contract.js';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import { validateServerConfig } from '../../../shared/serverConfig.js';

const cache = new WeakMap<object, ServerConfig | null>();

export function configOf(view: ServerView): ServerConfig | undefined {
  let cached = cache.get(view.config);
  if (cached === undefined) {
    const result = validateServerConfig(view.config);
    cached = result.ok ? result.value : null;
    cache.set(view.config, cached);
  }
  return cached ?? undefined;
}

export function serverIdOf(view: ServerView): string {
  return typeof view.config.id === 'string' ? view.config.id : '';
}

export function serverNameOf(view: ServerView): string {
  const name = view.config.name;
  return typeof name === 'string' && name.trim() ? name : serverIdOf(view);
}

export function transportLabel(transport: unknown): string {
  return transport === 'stdio'
    ? 'stdio'
    : transport === 'streamable_http' || transport === 'http'
      ? 'HTTP'
      : String(transport);
}

/** One line saying where the server lives: the command line or the URL. */
export function endpointOf(view: ServerView): string {
  const config = configOf(view);
  if (!config) return '';
  if (config.transport === 'stdio') return [config.command, ...config.args].map(quoteArg).join(' ');
  return config.url;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
