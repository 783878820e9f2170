/** What a client span says of the server behind a call: its transport, address and negotiated protocol version. */
import type { ServerDescription } from './callSpans.js';

interface ServerLookup {
  server(id: string): { transport: string; url?: string | undefined } | undefined;
  negotiated(id: string): { protocolVersion: string } | undefined;
}

/** Parsed once per configuration object (a saved change makes a new one). */
const addresses = new WeakMap<object, { address?: string; port?: number }>();

export function describeServers(registry: ServerLookup): (serverId: string) => ServerDescription | undefined {
  return (serverId) => {
    const config = registry.server(serverId);
    if (!config) return undefined;
    const protocolVersion = registry.negotiated(serverId)?.protocolVersion;
    if (config.transport === 'stdio') return { transport: 'pipe', protocolVersion };
    let where = addresses.get(config);
    if (!where) {
      where = {};
      try {
        // Only the host and port: a URL's credentials, path and query never reach a span.
        const url = new URL(config.url ?? '');
        where = {
          address: url.hostname,
          port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
        };
      } catch {
        // not a URL: no address
      }
      addresses.set(config, where);
    }
    return { transport: 'tcp', protocolVersion, ...where };
  };
}
