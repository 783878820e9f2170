/**
 * The stdio entry's command line, as a pure decision shared by its two launchers: the
 * `miniharness-gateway` bin (stdioCli.ts) and the app binary itself (`<app> --gateway-stdio …`,
 * electron/main.ts, for packaged apps that have no Node). The token is in MINIHARNESS_GATEWAY_TOKEN.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_GATEWAY_PORT, GATEWAY_PATH, GATEWAY_TOKEN_ENV } from '../../shared/agents.js';

/** The app binary's switch that makes it the stdio entry instead of the app. */
export const GATEWAY_STDIO_FLAG = '--gateway-stdio';

interface StdioRelayArgs {
  url: URL;
  token: string;
  client: string;
}

/** The relay's options, or the one sentence to say on stderr (exit 2). */
export type StdioArgsDecision = { ok: true; args: StdioRelayArgs } | { ok: false; message: string };

const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_GATEWAY_PORT}${GATEWAY_PATH}`;

/** `args` are the entry's own (`--client <name> [--url <url>]`); `command` names it in the usage line. */
export function parseStdioArgs(
  args: readonly string[],
  env: Record<string, string | undefined>,
  command = 'miniharness-gateway',
): StdioArgsDecision {
  let values: { client?: string | undefined; url?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { client: { type: 'string' }, url: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    return {
      ok: false,
      message: `${(error as Error).message}. Usage: ${command} --client <name> [--url ${DEFAULT_URL}]`,
    };
  }
  const token = env[GATEWAY_TOKEN_ENV];
  if (!token)
    return {
      ok: false,
      message: `set ${GATEWAY_TOKEN_ENV} to the agent's token (MiniHarness → Agents → Connect an agent).`,
    };
  let url: URL;
  try {
    url = new URL(values.url ?? DEFAULT_URL);
  } catch {
    return { ok: false, message: `--url must be a URL such as ${DEFAULT_URL}, not "${values.url}".` };
  }
  return { ok: true, args: { url, token, client: values.client ?? 'agent' } };
}

/**
 * Whether the app binary was started as the stdio entry: `argv` without the executable (Electron
 * run from a checkout has the app folder first). The entry's own options are those after the flag.
 */
export function gatewayStdioInvocation(argv: readonly string[]): string[] | undefined {
  const at = argv.indexOf(GATEWAY_STDIO_FLAG);
  return at === -1 ? undefined : argv.slice(at + 1);
}
