/**
 * Records one trace per tool call in the shared database and tells subscribers (the GUI) about
 * every change once it is stored. Every piece of event data and every error message goes
 * through the app's `SecretRedactor` (credential-named keys, and the known secret values it
 * holds; injected, see secrets/secretRedactor.ts) before it is written or published.
 *
 * Writes are group-committed: each event is validated, redacted and queued at once; the changes
 * of every call over LATER_MS (50 ms) are written together, apart from the claim and result
 * commits the calls wait for (storage/groupCommit.ts `later`), a short call's trace in a single
 * row write (traceWriter.ts). Readers flush first, so a query always sees every event recorded
 * so far; listeners hear of a change once it is stored. The price: a process killed meanwhile
 * loses those trace events — never a checkpoint, whose writers wait for their commit (the
 * checkpoint is the record of what ran; the trace explains it).
 *
 * Trace ids are time-ordered UUIDs (version 7), so a new trace's rows land at the end of the
 * trace-id indexes (and of its events' key) instead of on a random page of each.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../storage/clock.js';
import { nowMs, systemClock } from '../storage/clock.js';
import type { GroupCommit } from '../storage/groupCommit.js';
import { groupCommitFor } from '../storage/groupCommit.js';
import { requireMigrations } from '../storage/migrate.js';
import type { ProcessOwner } from '../storage/processOwner.js';
import { currentProcessOwner, encodeOwner } from '../storage/processOwner.js';
import { closeInterruptedTraces } from './interrupted.js';
import { TraceClosedError, TraceEventInvalidError, TraceNotFoundError } from './errors.js';
import { TraceEventDataSchemas } from '../../shared/traces.js';
import type {
  TraceDetail,
  TraceError,
  TraceEvent,
  TraceEventInput,
  TraceEventType,
  TraceExport,
  TraceNotification,
  TraceStatus,
  TraceSummary,
} from '../../shared/traces.js';
import type { JsonValue } from '../secrets/redaction.js';
import { SecretRedactor } from '../secrets/secretRedactor.js';
import type { TracePage, TraceQuery } from './traceReader.js';
import { TraceReader } from './traceReader.js';
import { TRACE_MIGRATIONS } from './schema.js';
import type { TraceSink } from './traceWriter.js';
import { TraceWriter } from './traceWriter.js';
import type { PostgresTraceStore } from './postgresTraceStore.js';

export interface TraceStartInput {
  sessionId: string;
  callId: string;
  userId: string;
  toolName: string;
  serverId: string;
}

type TraceOutcome = Exclude<TraceStatus, 'running'>;

export interface TraceHandle {
  readonly traceId: string;
  readonly startedAt: number;
  readonly finished: boolean;
  /** Validates, redacts, stores and publishes one event; returns it as stored. */
  event<T extends TraceEventType>(type: T, data: TraceEventInput<T>): TraceEvent;
  /** Ends the trace. `error` may be anything thrown; only its code and (redacted) message are kept. */
  finish(status: TraceOutcome, error?: unknown): TraceSummary;
  /** The W3C trace context (`traceparent`, …) a server reached by this call is given in `_meta`; absent when not exported. */
  readonly propagation?: Readonly<Record<string, string>> | undefined;
}

/**
 * Told of each trace as it is recorded — started, each event as stored (redacted), finished — at
 * once and synchronously (the OpenTelemetry export, electron/telemetry/). It must not throw or block.
 */
export interface TraceObserver {
  started(trace: TraceSummary): ObservedTrace | undefined;
}

export interface ObservedTrace {
  event(event: TraceEvent): void;
  finished(trace: TraceSummary): void;
  readonly propagation: Readonly<Record<string, string>> | undefined;
}

export type TraceListener = (notification: TraceNotification) => void;

export interface TracerOptions {
  clock?: Clock;
  /** The app's redactor (its known secrets); a new, empty one by default. */
  redactor?: SecretRedactor;
  /** A listener threw. Recording goes on regardless; the default emits a process warning. */
  onListenerError?: (error: unknown) => void;
  /** The process recorded as the owner of new traces (default: this one); tests pose as others. */
  owner?: ProcessOwner;
  /**
   * The traces in PostgreSQL, shared with the other cores on the database: written there (still
   * batched off the call path) and read back through the async `list` / `detail` / `exportOne`.
   */
  shared?: PostgresTraceStore;
}

export class Tracer {
  readonly #clock: Clock;
  readonly #reader: TraceReader;
  readonly #redactor: SecretRedactor;
  readonly #listeners = new Set<TraceListener>();
  readonly #onListenerError: (error: unknown) => void;
  /** What handles need of their tracer; private, so the handle API stays event/finish only. */
  readonly #context: HandleContext;
  readonly #db: Database;
  readonly #owner: ProcessOwner;
  /** The owner as stored on each new trace (encoded once). */
  readonly #ownerJson: string;
  readonly #group: GroupCommit;
  readonly #writer: TraceSink;
  readonly #shared: PostgresTraceStore | undefined;
  /** The traces whose call is running on a server now, by server id. */
  readonly #inFlight = new Map<string, Set<SqliteTraceHandle>>();
  /** The OpenTelemetry export, when on (set and cleared by the telemetry service). */
  observer: TraceObserver | undefined;

  /** `db` comes from the app's database opener, which ran the migrations (TRACE_MIGRATIONS among them). */
  constructor(db: Database, options: TracerOptions = {}) {
    requireMigrations(db, 'traces', TRACE_MIGRATIONS);
    this.#db = db;
    this.#group = groupCommitFor(db);
    this.#clock = options.clock ?? systemClock;
    this.#owner = options.owner ?? currentProcessOwner();
    this.#ownerJson = encodeOwner(this.#owner);
    this.#reader = new TraceReader(db);
    this.#onListenerError =
      options.onListenerError ??
      ((error) =>
        process.emitWarning(`A trace listener threw: ${error instanceof Error ? error.message : String(error)}`));
    this.#redactor = options.redactor ?? new SecretRedactor();
    const publish = (notification: TraceNotification): void => this.#publish(notification);
    this.#shared = options.shared;
    const writer = this.#shared ? this.#shared.sink(publish) : new TraceWriter(db, this.#group, publish);
    this.#writer = writer;
    this.#context = {
      now: () => this.#now(),
      redact: (value) => this.#redactor.redact(value),
      redactText: (text) => this.#redactor.redactText(text),
      writer,
      inFlight: (handle, running) => {
        const serverId = handle.serverId;
        const set = this.#inFlight.get(serverId) ?? new Set<SqliteTraceHandle>();
        if (running) set.add(handle);
        else set.delete(handle);
        if (set.size) this.#inFlight.set(serverId, set);
        else this.#inFlight.delete(serverId);
      },
    };
  }

  /**
   * Records an event on each call running on `serverId` right now (an attempt started, not yet
   * finished): what a server did while it ran them, e.g. a sandbox violation. Returns how many
   * traces got it (none: no call was in flight; the server's Log still has it).
   */
  eventOnCallsInFlight<T extends TraceEventType>(serverId: string, type: T, data: TraceEventInput<T>): number {
    const handles = [...(this.#inFlight.get(serverId) ?? [])];
    for (const handle of handles) handle.event(type, data);
    return handles.length;
  }

  start(input: TraceStartInput): TraceHandle {
    const trace: TraceSummary = {
      traceId: timeOrderedUuid(),
      sessionId: input.sessionId,
      callId: input.callId,
      userId: input.userId,
      toolName: input.toolName,
      serverId: input.serverId,
      status: 'running',
      startedAt: this.#now(),
    };
    this.#writer.start(
      [
        trace.traceId,
        trace.sessionId,
        trace.callId,
        trace.userId,
        trace.toolName,
        trace.serverId,
        trace.startedAt,
        this.#ownerJson,
      ],
      { kind: 'trace_started', trace },
    );
    return new SqliteTraceHandle(this.#context, trace, this.observer?.started(trace));
  }

  /**
   * Closes as `interrupted` the traces left `running` by processes that are gone (see
   * interrupted.ts), tells listeners, and returns them. Run once at start, before new calls.
   */
  closeInterrupted(): TraceSummary[] {
    this.#localOnly('closeInterrupted');
    this.flush();
    const closed = closeInterruptedTraces(this.#db, this.#owner);
    for (const trace of closed) this.#publish({ kind: 'trace_finished', trace });
    return closed;
  }

  /** Listens to every stored change; returns the function that stops listening. */
  onEvent(listener: TraceListener): () => void {
    // A wrapper per subscription, so subscribing one function twice needs two unsubscribes.
    const entry: TraceListener = (notification) => listener(notification);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  listTraces(query: TraceQuery): TracePage {
    this.#localOnly('listTraces');
    this.flush();
    return this.#reader.listTraces(query);
  }

  getTrace(traceId: string): TraceDetail | undefined {
    this.#localOnly('getTrace');
    this.flush();
    return this.#reader.getTrace(traceId);
  }

  exportTrace(traceId: string): TraceExport {
    this.flush();
    const exported = this.#reader.exportTrace(traceId, this.#now());
    if (!exported) throw new TraceNotFoundError(traceId);
    return exported;
  }

  /** The list, wherever the traces are (the Traces view reads through these three). */
  async list(query: TraceQuery): Promise<TracePage> {
    return this.#shared ? this.#shared.listTraces(query) : this.listTraces(query);
  }

  async detail(traceId: string): Promise<TraceDetail | undefined> {
    return this.#shared ? this.#shared.getTrace(traceId) : this.getTrace(traceId);
  }

  async exportOne(traceId: string): Promise<TraceExport> {
    if (!this.#shared) return this.exportTrace(traceId);
    const detail = await this.#shared.getTrace(traceId);
    if (!detail) throw new TraceNotFoundError(traceId);
    return { format: 'miniharness-trace', version: 1, exportedAt: this.#now(), ...detail };
  }

  /** closeInterrupted wherever the traces are (run once at start). */
  async sweepInterrupted(): Promise<TraceSummary[]> {
    if (!this.#shared) return this.closeInterrupted();
    const closed = await this.#shared.closeInterrupted(this.#owner);
    for (const trace of closed) this.#publish({ kind: 'trace_finished', trace });
    return closed;
  }

  /** Resolves once every change recorded so far is stored (PostgreSQL writes on; SQLite: a flush). */
  async drain(): Promise<void> {
    this.flush();
    await this.#shared?.drain();
  }

  /** The query plan of a list page, to check index use. */
  explainList(query: TraceQuery): string[] {
    return this.#reader.explainList(query);
  }

  /** Writes every queued change now (the connection's whole group-commit queue), then tells listeners. */
  flush(): void {
    this.#group.flush();
  }

  /** The synchronous reads are the SQLite file's; shared traces are read through the async methods. */
  #localOnly(method: string): void {
    if (this.#shared) throw new TypeError(`Tracer.${method}: the traces are in PostgreSQL; use the async reads.`);
  }

  #now(): number {
    return nowMs(this.#clock);
  }

  #publish(notification: TraceNotification): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(notification);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}

/** The first 15 characters of the time-ordered UUIDs of one millisecond (`tttttttt-tttt-7`), made once per millisecond. */
let uuidPrefix = { ms: -1, text: '' };

/**
 * A UUID of version 7 (RFC 9562): 48 bits of Unix time in ms, then the random bits of a v4 UUID.
 * Ids made later sort later, so index inserts append instead of landing on random pages.
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  const ms = Math.max(0, Math.trunc(now));
  if (ms !== uuidPrefix.ms) {
    const time = ms.toString(16).padStart(12, '0').slice(-12);
    uuidPrefix = { ms, text: `${time.slice(0, 8)}-${time.slice(8, 12)}-7` };
  }
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; from its 16th character on: xxx-Vxxx-xxxxxxxxxxxx.
  return uuidPrefix.text + randomUUID().slice(15);
}

/** Turns anything thrown into the stored error shape (code when it has a string one, message). */
export function toTraceError(error: unknown): TraceError {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof message === 'string') return { ...(typeof code === 'string' ? { code } : {}), message };
  }
  return { message: String(error) };
}

/** zod's parse of an event's data: a fresh object (its unknown keys copied too), or TraceEventInvalidError. */
function parseEventData(type: TraceEventType, data: unknown): Record<string, unknown> {
  const schema = TraceEventDataSchemas[type];
  if (!schema) throw new TraceEventInvalidError(String(type), 'unknown event type');
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
      .join('; ');
    throw new TraceEventInvalidError(type, detail);
  }
  return parsed.data as Record<string, unknown>;
}

const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isAttempt = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
const isMs = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const oneOf = (words: readonly string[]) => {
  const set = new Set<unknown>(words);
  return (value: unknown): boolean => set.has(value);
};

const isString = (value: unknown): boolean => typeof value === 'string';

/** Per event type, each key the schema (shared/traces.ts) knows with its check, and the keys it requires. */
interface PlainShape {
  keys: Readonly<Record<string, (value: unknown) => boolean>>;
  required: readonly string[];
  /** Keys holding text (a reason, a rule's id) that may quote what the person or a server wrote: stored with secrets redacted, as the full path's walk stores a string. */
  texts?: ReadonlySet<string>;
}

/**
 * The events every call records, as the pipeline writes them: numbers, booleans and the schema's
 * own words — nothing a secret could be in, and no key that names one —, and the decision's texts
 * (its reason, kind and rule id), whose known secrets are replaced as the redaction walk replaces
 * them in any string (no key here names a credential, so the walk's other rule never applies).
 * Data of exactly that shape is checked here as the schema would check it and stored so: no zod
 * parse and no redaction walk, each a copy, on every call. Anything else (another key, a value out
 * of range) takes the full path: parsed (refused if invalid) and redacted.
 */
const PLAIN_EVENTS: Partial<Record<TraceEventType, PlainShape>> = {
  decision: {
    keys: {
      outcome: oneOf(TraceEventDataSchemas.decision.shape.outcome.options),
      reason: isString,
      kind: isString,
      ruleId: isString,
    },
    required: ['outcome'],
    texts: new Set(['reason', 'kind', 'ruleId']),
  },
  claim: { keys: { outcome: oneOf(TraceEventDataSchemas.claim.shape.outcome.options) }, required: ['outcome'] },
  attempt_started: { keys: { attempt: isAttempt }, required: ['attempt'] },
  attempt_finished: {
    keys: {
      attempt: isAttempt,
      outcome: oneOf(TraceEventDataSchemas.attempt_finished.shape.outcome.options),
      durationMs: isMs,
      recoverable: isBoolean,
    },
    required: ['attempt', 'outcome'],
  },
  completed: { keys: { isError: isBoolean, contentBlocks: isCount }, required: ['isError'] },
};

/**
 * A fresh copy of `data` when it is one of PLAIN_EVENTS' shapes exactly (undefined values dropped, as
 * redaction drops them; texts through `redactText`); else undefined.
 */
export function plainEvent(
  type: TraceEventType,
  data: unknown,
  redactText: (text: string) => string,
): Record<string, unknown> | undefined {
  const shape = PLAIN_EVENTS[type];
  if (!shape || typeof data !== 'object' || data === null || Object.getPrototypeOf(data) !== Object.prototype)
    return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    const value = (data as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const check = Object.hasOwn(shape.keys, key) ? shape.keys[key] : undefined;
    if (!check?.(value)) return undefined;
    out[key] = shape.texts?.has(key) ? redactText(value as string) : value;
  }
  for (const key of shape.required) if (!Object.hasOwn(out, key)) return undefined;
  return out;
}

interface HandleContext {
  now(): number;
  redact(value: unknown): JsonValue;
  redactText(text: string): string;
  writer: TraceSink;
  /** A handle's call started running on its server (an attempt began) or stopped (it ended, or the trace did). */
  inFlight(handle: SqliteTraceHandle, running: boolean): void;
}

class SqliteTraceHandle implements TraceHandle {
  readonly #context: HandleContext;
  readonly #trace: TraceSummary;
  #seq = 0;
  #finished = false;
  /** When each attempt / the approval request started, to fill in durations. */
  readonly #attemptStarts = new Map<number, number>();
  #approvalRequestedAt: number | undefined;

  readonly #observed: ObservedTrace | undefined;

  constructor(context: HandleContext, trace: TraceSummary, observed: ObservedTrace | undefined) {
    this.#context = context;
    this.#trace = trace;
    this.#observed = observed;
  }

  get propagation(): Readonly<Record<string, string>> | undefined {
    return this.#observed?.propagation;
  }

  get traceId(): string {
    return this.#trace.traceId;
  }

  get startedAt(): number {
    return this.#trace.startedAt;
  }

  get finished(): boolean {
    return this.#finished;
  }

  get serverId(): string {
    return this.#trace.serverId;
  }

  event<T extends TraceEventType>(type: T, data: TraceEventInput<T>): TraceEvent {
    if (this.#finished) throw new TraceClosedError(this.traceId, `event "${type}"`);
    const at = this.#context.now();
    // The pipeline's own events (plainEvent) are checked by hand and stored as given; any other data is parsed and redacted.
    const plain = plainEvent(type, data, this.#context.redactText);
    const value = plain ?? parseEventData(type, data);
    const durationMs = this.#duration(type, value, at);
    const stored = plain ?? this.#context.redact(value);
    const event = {
      traceId: this.traceId,
      seq: this.#seq + 1,
      type,
      at,
      ...(durationMs !== undefined ? { durationMs } : {}),
      data: stored,
    } as TraceEvent;
    this.#context.writer.event([event.traceId, event.seq, type, at, durationMs ?? null, JSON.stringify(stored)], {
      kind: 'event',
      event,
    });
    this.#seq = event.seq;
    if (type === 'attempt_started') this.#context.inFlight(this, true);
    if (type === 'attempt_finished') this.#context.inFlight(this, false);
    this.#observed?.event(event);
    return event;
  }

  finish(status: TraceOutcome, error?: unknown): TraceSummary {
    if (this.#finished) throw new TraceClosedError(this.traceId, 'finish');
    if ((status as TraceStatus) === 'running')
      throw new TypeError('finish: status must be ok, error, denied or replayed.');
    const endedAt = this.#context.now();
    const storedError = error === undefined ? undefined : (this.#context.redact(toTraceError(error)) as TraceError);
    const summary: TraceSummary = {
      ...this.#trace,
      status,
      endedAt,
      durationMs: Math.max(0, endedAt - this.#trace.startedAt),
      ...(storedError ? { error: storedError } : {}),
    };
    this.#context.writer.finish(
      this.traceId,
      [status, endedAt, summary.durationMs as number, storedError ? JSON.stringify(storedError) : null],
      { kind: 'trace_finished', trace: summary },
    );
    this.#finished = true;
    this.#context.inFlight(this, false);
    this.#observed?.finished(summary);
    return summary;
  }

  /** The event's span length: given by the caller, or measured from the event that opened it. */
  #duration(type: TraceEventType, data: Record<string, unknown>, at: number): number | undefined {
    switch (type) {
      case 'attempt_started':
        this.#attemptStarts.set(data.attempt as number, at);
        return undefined;
      case 'attempt_finished': {
        const startedAt = this.#attemptStarts.get(data.attempt as number);
        if (data.durationMs === undefined && startedAt !== undefined) data.durationMs = at - startedAt;
        return data.durationMs === undefined ? undefined : Math.round(data.durationMs as number);
      }
      case 'approval_requested':
        this.#approvalRequestedAt = at;
        return undefined;
      case 'approval_answered':
        if (data.waitedMs === undefined && this.#approvalRequestedAt !== undefined)
          data.waitedMs = at - this.#approvalRequestedAt;
        return data.waitedMs === undefined ? undefined : Math.round(data.waitedMs as number);
      default:
        return undefined;
    }
  }
}
