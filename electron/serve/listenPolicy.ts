/**
 * Where `miniharness serve` may listen. On loopback anything goes (a reverse proxy on the same
 * machine, or one person trying it). Elsewhere people's sign-in cookies and approvals would cross
 * the network: it needs TLS here, or a reverse proxy that is named as trusted (it terminates TLS),
 * and the public address people open (Host and Origin are checked against it).
 */
import { isIP } from 'node:net';
import type { ServeConfig } from './config.js';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** Why this configuration may not listen, as a sentence; undefined when it may. */
export function listenRefusal(
  config: Pick<ServeConfig, 'listen' | 'tls' | 'trustedProxies' | 'publicUrl'>,
): string | undefined {
  if (isLoopbackHost(config.listen.host)) return undefined;
  if (!config.tls && config.trustedProxies.length === 0)
    return (
      `MiniHarness will not listen on ${config.listen.host} without TLS: set tls.certFile and tls.keyFile, ` +
      'or put a reverse proxy that terminates TLS in front and name it in trustedProxies.'
    );
  if (!config.publicUrl)
    return `MiniHarness listens on ${config.listen.host}: set publicUrl to the https address people open, so that Host and Origin can be checked.`;
  if (new URL(config.publicUrl).protocol !== 'https:')
    return `The publicUrl ${config.publicUrl} is not https: people's sign-in cookies would cross the network in the clear.`;
  return undefined;
}
