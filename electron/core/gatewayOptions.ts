/**
 * What the two hosts tell the core about the agent gateway: a port for this run (the
 * `--gateway-port` flag or MINIHARNESS_GATEWAY_PORT; 0 = any free port, as tests use), and how
 * the stdio entry is started on this install (stdioEntry), which "Connect an agent" shows to agents that can only spawn a process.
 */
import { join } from 'node:path';
import { GATEWAY_STDIO_FLAG } from '../gateway/stdioArgs.js';

const GATEWAY_PORT_ENV = 'MINIHARNESS_GATEWAY_PORT';

/** The port asked for this run, if any; throws a sentence for the person when it is not a port. */
export function gatewayPortOverride(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): number | undefined {
  const raw = flag ?? env[GATEWAY_PORT_ENV];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port > 65535) {
    throw new Error(
      `The gateway port must be a number from 0 to 65535, not "${raw}" (--gateway-port or ${GATEWAY_PORT_ENV}).`,
    );
  }
  return port;
}

export interface StdioEntryInputs {
  /** A packaged app (electron-builder): no Node, no checkout. */
  packaged: boolean;
  /** The running executable (packaged: the app's own binary — on macOS the one inside the .app bundle). */
  execPath: string;
  /** The checkout, when run from one. */
  projectRoot: string;
  /** The Node to run the bin with, from a checkout. */
  node: string;
}

/**
 * How an agent starts the stdio entry on this install (absolute paths: agents need no PATH). A
 * packaged app is its own entry (`<app> --gateway-stdio`, electron/main.ts): it has no Node, and
 * its fuses forbid ELECTRON_RUN_AS_NODE. A checkout runs the bin, which runs the built entry.
 */
export function stdioEntry(inputs: StdioEntryInputs): { command: string; args: string[] } {
  if (inputs.packaged) return { command: inputs.execPath, args: [GATEWAY_STDIO_FLAG] };
  return { command: inputs.node, args: [join(inputs.projectRoot, 'bin', 'miniharness-gateway.mjs')] };
}
