/**
 * `miniharness-gateway [--client <name>] [--url <gateway url>]`, the token in
 * MINIHARNESS_GATEWAY_TOKEN: the stdio entry agents spawn (see stdioProxy.ts). Exits 2 with one
 * sentence on stderr when it is started wrong.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_GATEWAY_PORT, GATEWAY_PATH, GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import { runStdioProxy } from './stdioProxy.js';

function fail(message: string): never {
  process.stderr.write(`miniharness-gateway: ${message}\n`);
  process.exit(2);
}

let values: { client?: string | undefined; url?: string | undefined };
try {
  ({ values } = parseArgs({ options: { client: { type: 'string' }, url: { type: 'string' } }, strict: true }));
} catch (error) {
  fail(`${(error as Error).message}. Usage: miniharness-gateway --client <name> [--url http://127.0.0.1:${DEFAULT_GATEWAY_PORT}${GATEWAY_PATH}]`);
}
const token = process.env[GATEWAY_TOKEN_ENV];
if (!token) fail(`set ${GATEWAY_TOKEN_ENV} to the agent's token (MiniHarness → Agents → Connect an agent).`);
let url: URL;
try {
  url = new URL(values.url ?? `http://127.0.0.1:${DEFAULT_GATEWAY_PORT}${GATEWAY_PATH}`);
} catch {
  fail(`--url must be a URL such as http://127.0.0.1:${DEFAULT_GATEWAY_PORT}${GATEWAY_PATH}, not "${values.url}".`);
}

await runStdioProxy({
  url,
  token,
  client: values.client ?? 'agent',
  stdin: process.stdin,
  stdout: process.stdout,
  // Each line is a whole sentence naming MiniHarness: agents show a server's stderr as it is.
  log: (line) => process.stderr.write(`${line}\n`),
  onExit: (code) => process.exit(code),
});
