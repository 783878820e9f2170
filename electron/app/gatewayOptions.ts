/**
 * What the two hosts tell the core about the agent gateway: a port for this run (the
 * `--gateway-port` flag or MINIHARNESS_GATEWAY_PORT; 0 = any free port, as tests use), and how
 * the stdio entry is started from this checkout (`node <project>/bin/miniharness-gateway.mjs`),
 * which "Connect an agent" shows to agents that can only spawn a process.
 */
import { join } from 'node:path';

export const GATEWAY_PORT_ENV = 'MINIHARNESS_GATEWAY_PORT';

/** The port asked for this run, if any; throws a sentence for the person when it is not a port. */
export function gatewayPortOverride(flag: string | undefined, env: Record<string, string | undefined>): number | undefined {
  const raw = flag ?? env[GATEWAY_PORT_ENV];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port > 65535) {
    throw new Error(`The gateway port must be a number from 0 to 65535, not "${raw}" (--gateway-port or ${GATEWAY_PORT_ENV}).`);
  }
  return port;
}

/** The stdio entry of this checkout, started by `node` (an absolute path, so agents need no PATH). */
export function stdioEntry(projectRoot: string, node: string): { command: string; args: string[] } {
  return { command: node, args: [join(projectRoot, 'bin', 'miniharness-gateway.mjs')] };
}
