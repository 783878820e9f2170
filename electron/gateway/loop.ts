/**
 * No loops: a server whose configuration reaches MiniHarness's own gateway (its HTTP endpoint, or
 * the stdio entry that proxies to it) would see the gateway's tools, which include its own —
 * every call would come back here. Such a server is refused when it is saved or loaded.
 */
import { isIP } from 'node:net';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { GatewayLoopError } from './errors.js';
import { GATEWAY_STDIO_FLAG } from './stdioArgs.js';

/** The stdio entry's name (package.json "bin") and its file. */
export const GATEWAY_BIN = 'miniharness-gateway';

/** IPv4-mapped IPv6 of 127.x or 0.0.0.0, as the URL parser writes it (`::ffff:7f00:1`) or dotted. */
const MAPPED_LOOPBACK = /^::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0|127\.[\d.]+|0\.0\.0\.0)$/;

function isLoopbackHost(hostname: string): boolean {
  // Brackets of an IPv6 literal and the root label's dot (`localhost.`) do not change the host.
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '0.0.0.0' || host === '::' || host === '::1')
    return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return MAPPED_LOOPBACK.test(host);
}

/** The field of `config` that points at the gateway on `port`, if one does. */
export function gatewayLoopField(config: ServerConfig, port: number | undefined): string | undefined {
  if (config.transport === 'stdio') {
    // The bin by path or name, or a packaged app run as its own stdio entry (`<app> --gateway-stdio`).
    const parts = [config.command, ...config.args];
    return parts.some((part) => part.includes(GATEWAY_BIN)) || config.args.includes(GATEWAY_STDIO_FLAG)
      ? 'command'
      : undefined;
  }
  if (port === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return undefined;
  }
  const urlPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  // Any path on that port is the gateway's server (only GATEWAY_PATH answers, but a typo is still a loop).
  return isLoopbackHost(url.hostname) && urlPort === port ? 'url' : undefined;
}

/** Throws GatewayLoopError when `config` points at the gateway. */
export function refuseGatewayLoop(config: ServerConfig, port: number | undefined): void {
  const field = gatewayLoopField(config, port);
  if (field) throw new GatewayLoopError(field);
}
