/**
 * The browser-mode host with parts of a call's durable record taken away — for measurement only
 * (issue 33: "what the remaining microseconds are made of, with a measured ablation"). bench/gateway.ts
 * `--ablation` runs it beside the host as built, the peers and the floors, in the same interleaved rounds.
 *
 * `MINIHARNESS_BENCH_ABLATE` (comma-separated) names what goes:
 * - `traces`: no trace at all — the pipeline's trace handle does nothing (no event built, checked, redacted,
 *   published or written);
 * - `checkpoints`: the claim and the result kept in a Map in this process instead of SQLite — no statement,
 *   no transaction, no page written, no turn of the event loop waiting for a group commit. The arguments are
 *   still serialized and hashed (the pipeline does that before it claims).
 * - `checkpoints-in-memory-sqlite`: the checkpoint store as built (its statements, a group-commit queue of its
 *   own) on an in-memory SQLite connection of its own — no file, no WAL and no WAL checkpoints behind it (the
 *   traces stay on the file's connection).
 * Everything else — HTTP, the agent's session, the rule and its decision, the argument check, the registry, the
 * server's stdio leg, redaction of the result — is the product's own code, unchanged.
 *
 * Taking the record away breaks the product's guarantees (a callId could run twice; nothing is in History):
 * this entry is never built into the app. It patches the pipeline's one object at its first call (the options
 * it was built with), so the sources under electron/ carry no switch for it.
 */
import { randomUUID } from 'node:crypto';
import type { ClaimInput, ClaimResult, CheckpointResult, PipelineCheckpoints } from '../electron/checkpoints/types.js';
import { SqliteCheckpointStore, sqliteCheckpointStores } from '../electron/checkpoints/sqliteStore.js';
import { CheckpointTaskLinks } from '../electron/checkpoints/taskLinks.js';
import { openAppDatabase } from '../electron/core/database.js';
import { HarnessApplication } from '../electron/harness/application.js';
import type { TraceHandle, Tracer, TraceStartInput } from '../electron/tracing/tracer.js';
import type { TraceEvent, TraceSummary } from '../shared/traces.js';
import { parseAblation, withoutCheckpoints } from './ablationParts.js';

const ABLATE = parseAblation(process.env.MINIHARNESS_BENCH_ABLATE, 'MINIHARNESS_BENCH_ABLATE');

/** A trace handle that records nothing (its id is still fresh per call: the gateway returns it in `_meta`). */
function nullTrace(input: TraceStartInput): TraceHandle {
  const startedAt = Date.now();
  const traceId = randomUUID();
  const summary = (): TraceSummary => ({ ...input, traceId, status: 'ok', startedAt });
  let finished = false;
  let seq = 0;
  return {
    traceId,
    startedAt,
    get finished() {
      return finished;
    },
    event: (type, data) => ({ traceId, seq: ++seq, type, at: startedAt, data }) as TraceEvent,
    finish: () => {
      finished = true;
      return summary();
    },
  };
}

/**
 * The claim and the result in memory. A new call is owned and a completed one replayed, as by the store; what the
 * store refuses with its own errors (other arguments, a call in flight or failed) is refused here with a plain one.
 */
function memoryCheckpoints(): PipelineCheckpoints {
  const calls = new Map<
    string,
    { input: ClaimInput; lease: string; result?: CheckpointResult; failed?: true; createdAt: number }
  >();
  const key = (sessionId: string, callId: string) => `${sessionId}\0${callId}`;
  const recordOf = (entry: { input: ClaimInput; result?: CheckpointResult; createdAt: number }) => ({
    sessionId: entry.input.sessionId,
    callId: entry.input.callId,
    userId: entry.input.userId,
    toolName: entry.input.toolName,
    serverId: entry.input.serverId,
    argsHash: entry.input.argsHash,
    args: entry.input.args,
    attempts: 0,
    traceId: entry.input.traceId,
    createdAt: entry.createdAt,
    updatedAt: entry.createdAt,
  });
  const answer = (input: ClaimInput): ClaimResult | undefined => {
    const entry = calls.get(key(input.sessionId, input.callId));
    if (!entry) return undefined;
    if (entry.input.argsHash !== input.argsHash) throw new Error(`ablation: call ${input.callId} had other arguments`);
    if (entry.failed) throw new Error(`ablation: call ${input.callId} failed`);
    if (entry.result === undefined) throw new Error(`ablation: call ${input.callId} is in flight`);
    return { kind: 'replay', record: { ...recordOf(entry), status: 'completed', result: entry.result } };
  };
  return {
    claim: async (input) => {
      const known = answer(input);
      if (known) return known;
      const entry = { input, lease: randomUUID(), createdAt: Date.now() };
      calls.set(key(input.sessionId, input.callId), entry);
      return { kind: 'owner', lease: entry.lease, record: { ...recordOf(entry), status: 'started' } };
    },
    peek: async (input) => answer(input),
    get: async (sessionId, callId) => {
      const entry = calls.get(key(sessionId, callId));
      if (!entry) return undefined;
      return entry.result === undefined
        ? { ...recordOf(entry), status: 'started' }
        : { ...recordOf(entry), status: 'completed', result: entry.result };
    },
    complete: async (sessionId, callId, lease, result) => {
      const entry = calls.get(key(sessionId, callId));
      if (entry?.lease !== lease) throw new Error(`ablation: call ${callId} is not this lease's`);
      entry.result = result;
    },
    recordFailure: async (sessionId, callId) => {
      const entry = calls.get(key(sessionId, callId));
      if (entry) entry.failed = true;
    },
  };
}

/** The store the app builds, its tool-call path as the pipeline gets it, over an in-memory database. */
function inMemorySqliteCheckpoints(): PipelineCheckpoints {
  const db = openAppDatabase(':memory:');
  return sqliteCheckpointStores(new SqliteCheckpointStore(db), new CheckpointTaskLinks(db)).pipeline;
}

if (ABLATE.length > 0) {
  const nullTracer = { start: nullTrace } as unknown as Tracer;
  const checkpoints = ABLATE.includes('checkpoints-in-memory-sqlite')
    ? inMemorySqliteCheckpoints()
    : memoryCheckpoints();
  const patched = new WeakSet<HarnessApplication>();
  const executeTool = HarnessApplication.prototype.executeTool;
  HarnessApplication.prototype.executeTool = function (this: HarnessApplication, ...args) {
    if (!patched.has(this)) {
      patched.add(this);
      // The options the pipeline was built with (a private field of the class): the ablated parts swapped in.
      const self = this as unknown as { options: { tracer: Tracer; checkpoints: PipelineCheckpoints } };
      self.options = {
        ...self.options,
        ...(ABLATE.includes('traces') ? { tracer: nullTracer } : {}),
        ...(withoutCheckpoints(ABLATE) ? { checkpoints } : {}),
      };
    }
    return executeTool.apply(this, args);
  };
}

await import('../electron/web/cli.js');
