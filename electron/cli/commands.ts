/**
 * `miniharness <command>` against a running instance (`npm run web` or `miniharness serve`):
 *
 *   servers list                          the servers and their state
 *   tools list                            every tool, by server
 *   call <server> <tool> --args <json>    one call through the pipeline (rules, approval, History), as "CLI"
 *   approvals [list]                      the calls waiting for a decision
 *   approvals decide <requestId> <allow-once|allow-session|allow-always|deny>
 *   history export                        every recorded call, as JSON lines
 *
 * Where and with what: --url or MINIHARNESS_URL, MINIHARNESS_TOKEN. `--json` prints the
 * contract's answer as JSON. Exit codes: 0 done, 1 refused or failed (a tool's error included),
 * 2 usage. Errors are sentences on stderr.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import { BridgeConnection, newCallId } from './bridgeClient.js';

type Out = (text: string) => void;

class UsageError extends Error {}

interface Parsed {
  words: string[];
  json: boolean;
  url?: string;
  args?: string;
}

function parse(argv: string[]): Parsed {
  const parsed: Parsed = { words: [], json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--json') parsed.json = true;
    else if (arg === '--url') parsed.url = argv[++i];
    else if (arg === '--args') parsed.args = argv[++i];
    else if (arg.startsWith('--')) throw new UsageError(`Unknown option ${arg}.`);
    else parsed.words.push(arg);
  }
  return parsed;
}

const USAGE =
  'Usage: miniharness serve --config <file> | servers list | tools list | call <server> <tool> --args <json> | approvals [list | decide <requestId> <answer>] | history export  [--json] [--url <address>]';

interface Step {
  channel: string;
  payload: unknown;
  /** The text a person reads (without --json). */
  show: (result: never) => string;
  /** An answer that is a failure of what was asked (a tool's error). */
  failed?: (result: never) => boolean;
}

function stepOf(p: Parsed): Step | 'history' {
  const [command, sub, ...rest] = p.words;
  const key = `${command ?? ''} ${sub ?? ''}`.trim();
  if (key === 'servers list')
    return {
      channel: 'servers.list',
      payload: {},
      show: (servers: Array<{ config: { id: string; name?: string }; status: { state: string }; toolCount: number }>) =>
        servers.map((s) => `${s.config.id}\t${s.status.state}\t${s.toolCount} tools`).join('\n'),
    };
  if (key === 'tools list')
    return {
      channel: 'tools.list',
      payload: {},
      show: (r: { tools: Array<{ serverId: string; name: string; description?: string }> }) =>
        r.tools
          .map((t) => `${t.serverId}\t${t.name}${t.description ? `\t${t.description.split('\n')[0]}` : ''}`)
          .join('\n'),
    };
  if (command === 'call') {
    const tool = rest[0];
    if (!sub || !tool || rest.length > 1)
      throw new UsageError('call takes a server id and a tool name: call <server> <tool> --args <json>.');
    let args: unknown = {};
    try {
      args = p.args === undefined ? {} : JSON.parse(p.args);
    } catch {
      throw new UsageError('--args is not valid JSON.');
    }
    return {
      channel: 'tools.call',
      payload: { serverId: sub, name: tool, args, callId: newCallId() },
      show: (o: { result: { content: Array<{ type: string; text?: string }> } }) =>
        o.result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n'),
      failed: (o: { result: { isError: boolean } }) => o.result.isError,
    };
  }
  if (command === 'approvals' && (sub === undefined || sub === 'list'))
    return {
      channel: 'approvals.list',
      payload: {},
      show: (list: Array<{ requestId: string; userId: string; toolName: string; serverId: string; reason: string }>) =>
        list.length === 0
          ? 'No call is waiting for a decision.'
          : list.map((a) => `${a.requestId}\t${a.userId}\t${a.serverId}/${a.toolName}\t${a.reason}`).join('\n'),
    };
  if (command === 'approvals' && sub === 'decide') {
    const [requestId, answer] = rest;
    if (!requestId || !answer)
      throw new UsageError(
        'approvals decide takes a request id and an answer (allow-once, allow-session, allow-always or deny).',
      );
    return { channel: 'approvals.answer', payload: { requestId, answer }, show: () => `Decided: ${answer}.` };
  }
  if (key === 'history export') return 'history';
  throw new UsageError(USAGE);
}

/** Every page of History (all sessions), one JSON record a line. */
async function exportHistory(bridge: BridgeConnection, out: Out): Promise<DispatchResult> {
  let cursor: string | undefined;
  do {
    const page = await bridge.call('history.page', { limit: 200, ...(cursor ? { cursor } : {}) });
    if (!page.ok) return page;
    const { records, nextCursor } = page.result as { records: unknown[]; nextCursor?: string };
    for (const record of records) out(`${JSON.stringify(record)}\n`);
    cursor = nextCursor;
  } while (cursor);
  return { ok: true, result: null };
}

/** Runs one command; resolves with the exit code. */
export async function runClientCommand(
  command: string | undefined,
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
): Promise<number> {
  let parsed: Parsed;
  let step: Step | 'history';
  try {
    parsed = parse([...(command ? [command] : []), ...argv]);
    step = stepOf(parsed);
  } catch (error) {
    err(`miniharness: ${(error as Error).message}\n`);
    return 2;
  }
  const address = parsed.url ?? env.MINIHARNESS_URL;
  const token = env.MINIHARNESS_TOKEN;
  if (!address || !token) {
    err("miniharness: set MINIHARNESS_URL (or --url) to the instance's address and MINIHARNESS_TOKEN to its token.\n");
    return 2;
  }
  let bridge: BridgeConnection;
  try {
    bridge = await BridgeConnection.open(new URL(address), token);
  } catch (error) {
    err(`miniharness: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    const result =
      step === 'history' ? await exportHistory(bridge, out) : await bridge.call(step.channel, step.payload);
    if (!result.ok) {
      err(`miniharness: ${result.error.message} (${result.error.code})\n`);
      return 1;
    }
    if (step === 'history') return 0;
    out(parsed.json ? `${JSON.stringify(result.result)}\n` : `${step.show(result.result as never)}\n`);
    return step.failed?.(result.result as never) ? 1 : 0;
  } finally {
    bridge.close();
  }
}
