/**
 * Helpers for bench/pipeline.ts: statistics, the table printer, an in-memory permission rule
 * store (benchmarks do not import the test doubles), the load drivers (sequential latency,
 * concurrent throughput), CPU accounting (this process and its child processes, the servers) and
 * an optional per-stage timer of the pipeline (BENCH_STAGES=1).
 */
import { existsSync, rmSync } from 'node:fs';
import { descendantPids, processCpuMs } from './processCpu.js';
import type { CheckpointStore } from '../electron/checkpoints/types.js';
import type { MCPToolRegistry } from '../electron/mcp/registry.js';
import type { PermissionRuleStore } from '../electron/security/permissionStore.js';
import type { PermissionRule } from '../electron/security/permissions.js';
import type { SecureToolExecutor } from '../electron/security/secureExecutor.js';
import type { TraceHandle, Tracer } from '../electron/tracing/tracer.js';
import type { SecretRedactor } from '../electron/secrets/secretRedactor.js';

// ── statistics ───────────────────────────────────────────────────────────────────────────────

/** Nearest-rank percentile (p in 0..1) of unsorted samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  for (const row of rows)
    console.log(
      row
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    );
}

export function fmt(value: number, digits = 3): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

// ── permission rules kept in memory ──────────────────────────────────────────────────────────

export class InMemoryRuleStore implements PermissionRuleStore {
  private rules: PermissionRule[] = [];

  load(): Promise<PermissionRule[]> {
    return Promise.resolve(structuredClone(this.rules));
  }

  save(rules: PermissionRule[]): Promise<void> {
    this.rules = structuredClone(rules);
    return Promise.resolve();
  }
}

// ── load drivers ─────────────────────────────────────────────────────────────────────────────

/** One call of the thing measured; `i` makes texts and call ids unique. Rejects on a wrong answer. */
export type Caller = (i: number) => Promise<void>;

export interface SequentialResult {
  samples: number[];
  p50: number;
  p99: number;
  /** Calls per second over the whole sequential run. */
  throughput: number;
}

export async function runSequential(call: Caller, count: number, first: number): Promise<SequentialResult> {
  const samples = new Array<number>(count);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await call(first + i);
    samples[i] = performance.now() - t0;
  }
  const total = performance.now() - started;
  return { samples, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), throughput: count / (total / 1000) };
}

/** 'burst': every call started at once (one Promise.all); a number: at most that many in flight. */
export type ConcurrencyMode = 'burst' | number;

export function parseConcurrency(text: string | undefined): ConcurrencyMode {
  if (text === undefined || text === '' || text === 'burst') return 'burst';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_CONCURRENCY must be "burst" or a positive integer (got ${text}).`);
  return n;
}

export function describeConcurrency(mode: ConcurrencyMode, count: number): string {
  return mode === 'burst' ? `burst of ${count} (one Promise.all)` : `${count} calls, at most ${mode} in flight`;
}

/** Calls per second for `count` calls run concurrently. */
export async function runConcurrent(
  call: Caller,
  count: number,
  first: number,
  mode: ConcurrencyMode,
): Promise<number> {
  const started = performance.now();
  if (mode === 'burst') {
    await Promise.all(Array.from({ length: count }, (_, i) => call(first + i)));
  } else {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) await call(first + next++);
    };
    await Promise.all(Array.from({ length: Math.min(mode, count) }, worker));
  }
  return count / ((performance.now() - started) / 1000);
}

// ── CPU accounting ───────────────────────────────────────────────────────────────────────────

/**
 * CPU time (ms) used so far by every process below this one (the MCP servers), from /proc; NaN elsewhere.
 * Below, not only the direct children: a sandboxed server is the grandchild (bubblewrap between), and
 * counting only children read it as 0. Every side's servers are counted: the sides not running are idle.
 */
export function serversCpuMs(): number {
  const pids = descendantPids(process.pid);
  if (pids.length === 0 && !existsSync('/proc/self/stat')) return NaN;
  let total = 0;
  for (const pid of pids) total += processCpuMs(pid) ?? 0; // gone meanwhile: its time is lost with it
  return total;
}

export interface CpuSample {
  wallMs: number;
  /** This process: the client side (raw SDK, or the whole pipeline). */
  mainCpuMs: number;
  /** The child processes: the server. */
  serverCpuMs: number;
}

/** Runs `work` and says how much wall time and CPU (here, and in the servers) it took. */
export async function measureCpu(work: () => Promise<void>): Promise<CpuSample> {
  const cpu0 = process.cpuUsage();
  const children0 = serversCpuMs();
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, mainCpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs: serversCpuMs() - children0 };
}

// ── per-stage timing of the pipeline (BENCH_STAGES=1) ────────────────────────────────────────

/**
 * Exclusive time per stage for sequential calls (one call in flight, so a plain stack works):
 * a nested stage's time is taken out of its parent's. What no stage covers is `other`
 * (resolve, fingerprint, argument hash and redaction, promise plumbing).
 */
export class StageTimer {
  /** Per stage, its exclusive time in each finished call (ms). */
  readonly perCall = new Map<string, number[]>();
  private current = new Map<string, number>();
  private calls = 0;
  private readonly stack: Array<{ name: string; started: number; nested: number }> = [];

  enter(name: string): void {
    this.stack.push({ name, started: performance.now(), nested: 0 });
  }

  exit(): void {
    const frame = this.stack.pop();
    if (!frame) throw new Error('StageTimer: exit without enter');
    const elapsed = performance.now() - frame.started;
    this.current.set(frame.name, (this.current.get(frame.name) ?? 0) + elapsed - frame.nested);
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.nested += elapsed;
  }

  time<T>(name: string, run: () => T): T {
    this.enter(name);
    try {
      return run();
    } finally {
      this.exit();
    }
  }

  async timeAsync<T>(name: string, run: () => Promise<T>): Promise<T> {
    this.enter(name);
    try {
      return await run();
    } finally {
      this.exit();
    }
  }

  /** Closes one call: its per-stage times join the samples (a stage it did not reach counts 0). */
  endCall(): void {
    for (const name of this.current.keys())
      if (!this.perCall.has(name)) this.perCall.set(name, new Array<number>(this.calls).fill(0));
    for (const [name, samples] of this.perCall) samples.push(this.current.get(name) ?? 0);
    this.current = new Map();
    this.calls++;
  }

  reset(): void {
    this.perCall.clear();
    this.current = new Map();
    this.calls = 0;
  }
}

export const ROUND_TRIP_STAGE = 'MCP round trip (registry.callServerTool)';

/**
 * Wraps the instances a HarnessApplication uses (before it is built) so their public methods
 * report to `timer`. Only instance properties are replaced; no project file changes.
 */
export function instrumentPipeline(
  timer: StageTimer,
  parts: {
    security: SecureToolExecutor;
    checkpoints: CheckpointStore;
    tracer: Tracer;
    redactor: SecretRedactor;
    registry: MCPToolRegistry;
  },
): void {
  const { security, checkpoints, tracer, redactor, registry } = parts;

  const authorize = security.authorize.bind(security);
  security.authorize = (...args) => timer.timeAsync('authorize (permission decision)', () => authorize(...args));

  // Group-committed: the time until the transaction carrying the write has committed (the wait for
  // the next turn, the batch's other writes — trace events — and the commit itself).
  const grouped = checkpoints.grouped;
  const claim = grouped.claim.bind(grouped);
  grouped.claim = (input) =>
    timer.timeAsync('checkpoint claim (group commit: next turn, INSERT, COMMIT)', () => claim(input));
  const complete = grouped.complete.bind(grouped);
  grouped.complete = (...args) =>
    timer.timeAsync('checkpoint complete (group commit: next turn, UPDATE, COMMIT)', () => complete(...args));

  const redact = redactor.redact.bind(redactor);
  redactor.redact = (value) => timer.time('redactor.redact (checkpoint args, event data)', () => redact(value));

  const call = registry.callServerTool.bind(registry);
  registry.callServerTool = (...args) => timer.timeAsync(ROUND_TRIP_STAGE, () => call(...args));

  const start = tracer.start.bind(tracer);
  tracer.start = (input) => {
    const handle = timer.time('trace start (queued; written in a later batch)', () => start(input));
    const wrapped: TraceHandle = {
      get traceId() {
        return handle.traceId;
      },
      get startedAt() {
        return handle.startedAt;
      },
      get finished() {
        return handle.finished;
      },
      event: (type, data) => timer.time('trace events ×5 (zod, redact, queued)', () => handle.event(type, data)),
      finish: (status, error) => timer.time('trace finish (queued)', () => handle.finish(status, error)),
    };
    return wrapped;
  };
}

// ── running a benchmark ──────────────────────────────────────────────────────────────────────

/** Runs `main`; then, failed or not, every closer (newest first, each even if another throws) and removes `work`. */
export function runBench(main: () => Promise<void>, closers: Array<() => Promise<void> | void>, work: string): void {
  main()
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(async () => {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          console.error('cleanup:', error);
        }
      }
      rmSync(work, { recursive: true, force: true });
    });
}
