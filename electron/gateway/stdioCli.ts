/**
 * `miniharness-gateway [--client <name>] [--url <gateway url>]`, the token in
 * MINIHARNESS_GATEWAY_TOKEN: the stdio entry agents spawn (see stdioProxy.ts). Exits 2 with one
 * sentence on stderr when it is started wrong. Built to out/main/gatewayStdio.js
 * (scripts/buildGatewayStdio.ts), which bin/miniharness-gateway.mjs runs with plain node.
 */
import { parseStdioArgs } from './stdioArgs.js';
import { relayProcessStdio } from './stdioProxy.js';

const decision = parseStdioArgs(process.argv.slice(2), process.env);
if (!decision.ok) {
  process.stderr.write(`miniharness-gateway: ${decision.message}\n`);
  process.exit(2);
}
await relayProcessStdio(decision.args, (code) => process.exit(code));
