/**
 * The restart soak, shared by the test (a few kills) and `npm run bench:soak` (20 kills): the real
 * browser-mode host (`electron/web/cli.ts` in its own process) with the side-effect fixture server
 * (stdio), driven over the real WebSocket bridge.
 *
 * Each round starts the host on the same data folder, re-sends every callId used so far and
 * records the answers, checks that the call killed in the previous round now has an
 * `interrupted` trace, makes some calls that complete, then starts a call that holds (its side
 * effect written: the remote side has acted) and kills the host with SIGKILL — or, in the clean
 * rounds, stops it with SIGTERM. Every wait is for an event: the host's printed link, a status
 * event, the fixture's line in the side-effect file, a trace event on the bridge.
 *
 * The caller judges the report: side effects counted per callId from the file, and every
 * re-send's answer against what it must be (a replay of the same result, or "in progress or
 * result unknown").
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleServer } from '../helpers/buildFixtures.js';
import type { DispatchResult } from '../../shared/bridge.js';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import type { TraceDetail, TraceStatus, TraceSummary } from '../../shared/traces.js';
import { PROJECT_ROOT, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BridgeClient } from '../web/host.js';

export const SIDE_EFFECT_FIXTURE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'side-effect-server.ts');
export const BUILT_SIDE_EFFECT_FIXTURE = join(PROJECT_ROOT, '.cache', 'fixtures', 'side-effect-server.mjs');
export const SERVER_ID = 'fx';
/** Generous: a host start compiles TypeScript (tsx) on a busy 2-core machine. */
const WAIT_MS = 60_000;
/** Only a wrong answer (a held call run again) waits this long. */
const RESEND_DEADLINE_MS = 5_000;

/** Bundles the fixture to plain JS once, so each host start spawns it in plain Node. */
export async function buildSideEffectServer(): Promise<void> {
  await bundleServer(SIDE_EFFECT_FIXTURE, BUILT_SIDE_EFFECT_FIXTURE);
}

/**
 * The fixture as a server's configuration (id SERVER_ID, sandboxed, writing only its file): each
 * execution appends a line to `effects`, tagged `tag` (which host ran it) when given.
 */
export function sideEffectServer(effects: string, tag?: string) {
  return {
    id: SERVER_ID,
    name: 'Side effects',
    transport: 'stdio' as const,
    command: process.execPath,
    args: [BUILT_SIDE_EFFECT_FIXTURE],
    cwd: PROJECT_ROOT,
    env: { SIDE_EFFECT_FILE: effects, ...(tag ? { SIDE_EFFECT_TAG: tag } : {}) },
    sandbox: sandboxWritingTo({ SIDE_EFFECT_FILE: effects }),
  };
}

/** Hosts still running, so none outlives its test run (a timed-out hook, say). */
const liveHosts = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveHosts) child.kill('SIGKILL');
});

/** The host process: `electron/web/cli.ts` under tsx, as `npm run web:serve` runs it. */
export class HostProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
    readonly output: () => string,
    private readonly group = false,
  ) {}

  /**
   * `extraArgs`: more flags for cli.ts (`--gateway-port`, `--workspace`); `nodeArgs`: for node itself (`--inspect=0`);
   * `group`: the host leads its own process group, so `stop` signals its servers with it (kill -9 of the whole app);
   * `entry`: a built host (JavaScript, run by plain node) instead of cli.ts under tsx.
   */
  static async start(
    dataDir: string,
    token: string,
    extraArgs: string[] = [],
    nodeArgs: string[] = [],
    options: { group?: boolean; entry?: string; env?: Record<string, string> } = {},
  ): Promise<HostProcess> {
    const child = spawn(
      process.execPath,
      [
        ...nodeArgs,
        ...(options.entry ? [options.entry] : ['--import', 'tsx', join(PROJECT_ROOT, 'electron', 'web', 'cli.ts')]),
        '--port',
        '0',
        '--data-dir',
        dataDir,
        ...extraArgs,
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...options.env, MINIHARNESS_TOKEN: token, MINIHARNESS_SECRET_STORE: 'file' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: options.group === true,
      },
    );
    liveHosts.add(child);
    child.once('exit', () => liveHosts.delete(child));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the host printed no link in time:\n${output}`)), WAIT_MS);
      const check = (): void => {
        const match = /MiniHarness: http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
        if (!match?.[1]) return;
        clearTimeout(timer);
        resolve(Number(match[1]));
      };
      child.stdout?.on('data', check);
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`the host exited (${code ?? signal}) before printing its link:\n${output}`));
      });
    });
    return new HostProcess(child, port, exited, () => output, options.group === true);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Sends the signal and waits until the process has exited (and been reaped). */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.group && signal === 'SIGKILL' && this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
      else this.child.kill(signal);
    }
    const exited = await this.exited;
    if (this.group && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL'); // whatever the group left behind
      } catch {
        // none left
      }
    }
    return exited;
  }
}

export type CallKind = 'completed' | 'killed' | 'stopped';

interface KnownCall {
  callId: string;
  kind: CallKind;
  /** For completed calls: the outcome of the one run. */
  outcome?: CallOutcome;
  /** For held calls: the trace of the run that was cut off. */
  traceId?: string;
}

export interface ResendAnswer {
  round: number;
  callId: string;
  kind: CallKind;
  reply: DispatchResult;
}

export interface SoakReport {
  /** Distinct callIds sent. */
  calls: number;
  kills: number;
  cleanStops: number;
  starts: number;
  resends: number;
  /** Side effects counted in the file, per callId. */
  executions: Record<string, number>;
  /** Side effects beyond the first, summed over callIds. */
  duplicates: number;
  /** Every re-send's answer, to be judged by the caller. */
  answers: ResendAnswer[];
  known: Array<{ callId: string; kind: CallKind; outcome?: CallOutcome; traceId?: string }>;
  /** Trace status of each held call, read after the following start. */
  heldTraces: Array<{ callId: string; kind: CallKind; traceId: string; status: TraceStatus }>;
  /** History's current (GUI) session at each start. */
  guiSessions: string[];
  /** Host exits as observed (signal or code). */
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function ok<T>(client: BridgeClient, channel: string, payload: unknown): Promise<T> {
  const reply = await client.call(channel, payload);
  if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
  return reply.result as T;
}

export function effectLines(file: string): Array<{ key: string; pid: number }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { key: string; pid: number });
}

/**
 * Resolves once the fixture server is connected and its tool is listed (either may already be
 * true when the client connects; a warm start lists cached tools before the server is ready).
 */
export async function serverReady(client: BridgeClient): Promise<void> {
  const server = (await ok<ServerView[]>(client, 'servers.list', {})).find((s) => s.config.id === SERVER_ID);
  let ready = server?.status.state === 'ready';
  let listed = (server?.toolCount ?? 0) > 0;
  let seen = 0;
  await waitFor(() => {
    for (const { event, payload } of client.events.slice(seen)) {
      if (event === 'server.status') {
        const change = payload as { serverId: string; status: { state: string } };
        if (change.serverId === SERVER_ID) ready = change.status.state === 'ready';
      }
      if (event === 'tools.changed')
        listed = (payload as { tools: Array<{ serverId: string; name: string }> }).tools.some(
          (t) => t.serverId === SERVER_ID && t.name === 'effect',
        );
    }
    seen = client.events.length;
    return ready && listed;
  }, WAIT_MS);
}

export interface SoakOptions {
  kills: number;
  /** Rounds ended by SIGTERM (a clean stop) with a call in flight, after the kills. */
  cleanStops: number;
  /** Calls that complete in each round. */
  completedPerRound: number;
  /** Progress lines (the bench prints them). */
  log?: (line: string) => void;
}

export async function runRestartSoak(options: SoakOptions): Promise<SoakReport> {
  const work = mkdtempSync(join(tmpdir(), 'mh-restart-'));
  const dataDir = join(work, 'data');
  const effects = join(work, 'side-effects.jsonl');
  const token = randomBytes(24).toString('base64url');
  const known: KnownCall[] = [];
  const answers: ResendAnswer[] = [];
  const heldTraces: SoakReport['heldTraces'] = [];
  const guiSessions: string[] = [];
  const exits: SoakReport['exits'] = [];
  const rounds = options.kills + options.cleanStops;
  let host: HostProcess | undefined;
  let client: BridgeClient | undefined;
  try {
    for (let round = 0; round <= rounds; round++) {
      host = await HostProcess.start(dataDir, token);
      client = await BridgeClient.connect(host.port, { token });
      if (round === 0) {
        await ok(client, 'servers.save', { mode: 'create', config: sideEffectServer(effects) });
      }
      await serverReady(client);
      if (round === 0)
        await ok(client, 'permissions.setToolLevel', { serverId: SERVER_ID, toolName: 'effect', level: 'ALLOW' });
      guiSessions.push((await ok<{ current: string }>(client, 'history.sessions', {})).current);

      // Every callId used so far, sent again, all at once. A deadline bounds a held call that
      // wrongly runs again (it would never answer); a right answer comes from the checkpoint at once.
      const replies = await Promise.all(
        known.map((call) =>
          client!.call('tools.call', {
            name: 'effect',
            serverId: SERVER_ID,
            args: { key: call.callId, ...(call.kind === 'completed' ? {} : { hold: true }) },
            callId: call.callId,
            timeoutMs: RESEND_DEADLINE_MS,
          }),
        ),
      );
      known.forEach((call, i) =>
        answers.push({ round, callId: call.callId, kind: call.kind, reply: replies[i] as DispatchResult }),
      );
      // The call cut off in the previous round: its trace, as this start left it.
      const previous = known.at(-1);
      if (previous?.traceId && previous.kind !== 'completed') {
        const detail = await ok<TraceDetail>(client, 'traces.get', { traceId: previous.traceId });
        heldTraces.push({
          callId: previous.callId,
          kind: previous.kind,
          traceId: previous.traceId,
          status: detail.trace.status,
        });
      }
      if (round === rounds) break;

      for (let i = 0; i < options.completedPerRound; i++) {
        const callId = `soak-${round}-done-${randomUUID()}`;
        const outcome = await ok<CallOutcome>(client, 'tools.call', {
          name: 'effect',
          serverId: SERVER_ID,
          args: { key: callId },
          callId,
        });
        known.push({ callId, kind: 'completed', outcome });
      }

      // A call that holds: wait until its side effect is written and its trace is stored, then stop the host.
      const kind: CallKind = round < options.kills ? 'killed' : 'stopped';
      const callId = `soak-${round}-held-${randomUUID()}`;
      const held: KnownCall = { callId, kind };
      known.push(held);
      void client.call('tools.call', {
        name: 'effect',
        serverId: SERVER_ID,
        args: { key: callId, hold: true },
        callId,
      });
      const started = (): TraceSummary | undefined =>
        client?.events
          .map((e) => (e.event === 'trace.changed' ? (e.payload as { trace: TraceSummary }).trace : undefined))
          .find((t) => t?.callId === callId);
      await waitFor(() => started() !== undefined && effectLines(effects).some((l) => l.key === callId), WAIT_MS);
      held.traceId = started()?.traceId;
      client.close();
      exits.push(await host.stop(kind === 'killed' ? 'SIGKILL' : 'SIGTERM'));
      options.log?.(`round ${round + 1}/${rounds}: ${kind} pid ${host.pid} mid-call; ${known.length} callIds so far`);
    }
    client?.close();
    exits.push(await host!.stop('SIGTERM'));

    const executions: Record<string, number> = {};
    for (const line of effectLines(effects)) executions[line.key] = (executions[line.key] ?? 0) + 1;
    return {
      calls: known.length,
      kills: options.kills,
      cleanStops: options.cleanStops,
      starts: rounds + 1,
      resends: answers.length,
      executions,
      duplicates: Object.values(executions).reduce((sum, n) => sum + Math.max(0, n - 1), 0),
      answers,
      known: known.map((k) => ({
        callId: k.callId,
        kind: k.kind,
        ...(k.outcome ? { outcome: k.outcome } : {}),
        ...(k.traceId ? { traceId: k.traceId } : {}),
      })),
      heldTraces,
      guiSessions,
      exits,
    };
  } catch (error) {
    client?.close();
    await host?.stop('SIGKILL');
    throw new Error(`${(error as Error).message}\n--- host output ---\n${host?.output() ?? ''}`, { cause: error });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What a re-send must answer: the same result replayed, or "in progress or result unknown". */
export function judgeAnswer(answer: ResendAnswer, known: SoakReport['known']): string | undefined {
  const call = known.find((k) => k.callId === answer.callId);
  if (!call) return `round ${answer.round}: ${answer.callId} was never sent`;
  if (call.kind === 'completed') {
    if (!answer.reply.ok)
      return `round ${answer.round}: completed ${answer.callId} answered ${answer.reply.error.code} instead of a replay`;
    const outcome = answer.reply.result as CallOutcome;
    if (!outcome.replayed) return `round ${answer.round}: completed ${answer.callId} was not replayed`;
    if (JSON.stringify(outcome.result) !== JSON.stringify(call.outcome?.result))
      return `round ${answer.round}: ${answer.callId} replayed another result`;
    return undefined;
  }
  if (answer.reply.ok) return `round ${answer.round}: interrupted ${answer.callId} answered a result`;
  return answer.reply.error.code === 'in_progress'
    ? undefined
    : `round ${answer.round}: interrupted ${answer.callId} answered ${answer.reply.error.code}`;
}
