/**
 * The app's side of the export worker (exportWorker.ts): a `SpanExporter` for the batch processor
 * that posts each batch, as plain span records, to a worker thread where the official OTLP exporter
 * serialises and sends it. The call's event loop then pays for a structured clone per batch and one
 * message back — not for protobuf/JSON encoding, the HTTP request, its retries and timers (a
 * collector that is down or hangs keeps only the worker busy).
 *
 * A worker that cannot start (a host that cannot load it) costs nothing but the thread: the batch
 * that found it broken fails (counted) and the next ones go through the same official exporter on
 * this thread.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { settledWithin } from '../util/settledWithin.js';
import type {
  CallRecord,
  Counts,
  ExportWorkerData,
  ExportWorkerReply,
  ExportWorkerRequest,
  PlainSpan,
  ServedRecord,
} from './exportWorker.js';

/**
 * The worker's module: built, `exportWorker.js` beside the main bundle (electron.vite.config.ts);
 * from the sources, the `.ts` file itself, which Node runs with its built-in type stripping.
 */
function workerEntry(): string {
  const folder = dirname(fileURLToPath(import.meta.url));
  const built = join(folder, 'exportWorker.js');
  return existsSync(built) ? built : join(folder, 'exportWorker.ts');
}

/** What a span's record carries across (otlp-transformer reads these; see exportWorker.ts). */
function plainSpanOf(span: ReadableSpan): PlainSpan {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    name: span.name,
    kind: span.kind,
    context: {
      traceId: context.traceId,
      spanId: context.spanId,
      traceFlags: context.traceFlags,
      ...(context.traceState ? { traceState: context.traceState.serialize() } : {}),
    },
    ...(parent
      ? {
          parent: {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: parent.traceFlags,
            ...(parent.isRemote !== undefined ? { isRemote: parent.isRemote } : {}),
          },
        }
      : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links.map((link) => ({
      context: {
        traceId: link.context.traceId,
        spanId: link.context.spanId,
        traceFlags: link.context.traceFlags,
        ...(link.context.isRemote !== undefined ? { isRemote: link.context.isRemote } : {}),
        ...(link.context.traceState ? { traceState: link.context.traceState.serialize() } : {}),
      },
      ...(link.attributes ? { attributes: link.attributes } : {}),
    })),
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    scope: {
      name: span.instrumentationScope.name,
      ...(span.instrumentationScope.version ? { version: span.instrumentationScope.version } : {}),
      ...(span.instrumentationScope.schemaUrl ? { schemaUrl: span.instrumentationScope.schemaUrl } : {}),
    },
  };
}

/** The exporter's error as the worker reported it, in the shape describeExportError reads. */
class WorkerExportError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    readonly data?: string,
  ) {
    super(message);
  }
}

/** How long a shutdown waits for the worker's last exports before it is stopped (a hung collector is not waited for). */
const STOP_WAIT_MS = 2000;

export interface WorkerOptions {
  /** The worker's module (tests: a worker double); default the export worker. */
  entry?: string;
  /** How long shutdown waits for the worker's answer before terminating it (default STOP_WAIT_MS). */
  stopWaitMs?: number;
}

/** What the worker's own call spans did (its counts; its last span and metrics export errors). */
export type CountsListener = (counts: Counts, error: Error | undefined, metricsError: Error | undefined) => void;

function errorFrom(error: { code?: number; data?: string; message?: string } | undefined): Error | undefined {
  return error && new WorkerExportError(error.message ?? 'the export failed', error.code, error.data);
}

export class WorkerSpanExporter implements SpanExporter {
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, (result: ExportResult) => void>();
  #inThread: SpanExporter | undefined;
  #shutdown: Promise<void> | undefined;
  /** Shut down or terminated: a worker's exit is then no failure to fall back from. */
  #stopped = false;
  #started!: () => void;
  readonly #flushes = new Map<number, () => void>();
  /** Call spans handed to the worker that it has not reported on yet (failed if it is stopped first). */
  #callsOut = 0;
  /** Told what the worker's own call spans did (the pipeline adds it to its counters). */
  counted: CountsListener | undefined;
  /** Resolves once the worker loaded its modules and can take batches (or once it failed: the fallback can). */
  readonly ready = new Promise<void>((resolve) => (this.#started = resolve));

  constructor(
    private readonly data: ExportWorkerData,
    /** The same exporter on this thread, for a host where the worker cannot run. */
    private readonly fallback: () => SpanExporter,
    private readonly workerOptions: WorkerOptions = {},
  ) {
    try {
      const worker = new Worker(workerOptions.entry ?? workerEntry(), { workerData: data });
      worker.on('message', (reply: ExportWorkerReply) => this.#reply(reply));
      worker.on('error', (error) => this.#broken(error));
      worker.on('exit', () => this.#broken(new Error('the export worker stopped')));
      // It holds the process open only while a batch is out (#settle).
      worker.unref();
      this.#worker = worker;
    } catch (error) {
      this.#broken(error);
    }
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.#inThread) return this.#inThread.export(spans, done);
    const worker = this.#worker;
    if (!worker || this.#stopped) return done({ code: ExportResultCode.FAILED, error: new Error('export stopped') });
    const id = ++this.#next;
    this.#pending.set(id, done);
    if (this.#pending.size === 1) worker.ref();
    try {
      worker.postMessage({ export: id, spans: spans.map(plainSpanOf) } satisfies ExportWorkerRequest);
    } catch (error) {
      this.#settle(id, {
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  /**
   * Hands ended calls (plain records, already redacted) and served requests' durations to the worker, which
   * makes their spans and records their metrics. False when there is no worker to take them (it could not
   * start, it broke, or export stopped): the caller then does that work on this thread.
   */
  post(calls: CallRecord[], served: ServedRecord[]): boolean {
    const worker = this.#worker;
    if (!worker || this.#stopped || this.#inThread) return false;
    try {
      worker.postMessage({ calls, served } satisfies ExportWorkerRequest);
      for (const call of calls) if (call.span) this.#callsOut++;
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves once the worker exported the call spans it has and flushed its metrics (or once it is gone). */
  flushCalls(): Promise<void> {
    const worker = this.#worker;
    if (!worker || this.#stopped) return Promise.resolve();
    const id = ++this.#next;
    const flushed = new Promise<void>((resolve) => this.#flushes.set(id, resolve));
    worker.ref();
    worker.postMessage({ flush: id } satisfies ExportWorkerRequest);
    return flushed.finally(() => {
      if (this.#pending.size === 0 && this.#flushes.size === 0) this.#worker?.unref();
    });
  }

  /**
   * Sends what the worker has in hand, then stops it; a worker that does not answer within its bound
   * (stopWaitMs) is stopped anyway (terminate: what it had counts as failed).
   */
  shutdown(): Promise<void> {
    this.#stopped = true;
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  /** Stops the worker now: exports still out fail (counted), nothing waits for the collector. */
  async terminate(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failPending(new Error('the export was stopped at shutdown'));
    await Promise.all([worker?.terminate(), this.#inThread?.shutdown()]).catch(() => undefined);
  }

  forceFlush(): Promise<void> {
    return this.#inThread?.forceFlush?.() ?? Promise.resolve();
  }

  async #stop(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return this.#inThread?.shutdown();
    const answered = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (reply: ExportWorkerReply) => {
        if ('shutdownDone' in reply) resolve();
      });
    });
    worker.ref();
    worker.postMessage({ shutdown: true } satisfies ExportWorkerRequest);
    await settledWithin(answered, this.workerOptions.stopWaitMs ?? STOP_WAIT_MS);
    await this.terminate();
  }

  #reply(reply: ExportWorkerReply): void {
    if ('ready' in reply) return this.#started();
    if ('shutdownDone' in reply) return;
    if ('flushed' in reply) return this.#flushed(reply.flushed);
    if ('counts' in reply) {
      const { exported, failed, dropped } = reply.counts;
      this.#callsOut = Math.max(0, this.#callsOut - exported - failed - dropped);
      return this.counted?.(reply.counts, errorFrom(reply.error), errorFrom(reply.metricsError));
    }
    const { error } = reply;
    this.#settle(
      reply.settled,
      reply.ok
        ? { code: ExportResultCode.SUCCESS }
        : { code: ExportResultCode.FAILED, error: errorFrom(error) ?? new WorkerExportError('the export failed') },
    );
  }

  #settle(id: number, result: ExportResult): void {
    const done = this.#pending.get(id);
    if (!done) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0 && this.#flushes.size === 0) this.#worker?.unref();
    done(result);
  }

  #flushed(id: number): void {
    const resolve = this.#flushes.get(id);
    this.#flushes.delete(id);
    resolve?.();
  }

  #failPending(error: Error): void {
    for (const id of [...this.#flushes.keys()]) this.#flushed(id);
    // The worker's own call spans it had not reported on are lost with it.
    const lost = this.#callsOut;
    this.#callsOut = 0;
    if (lost > 0) this.counted?.({ exported: 0, failed: lost, dropped: 0 }, error, undefined);
    for (const id of [...this.#pending.keys()]) this.#settle(id, { code: ExportResultCode.FAILED, error });
  }

  /** The worker failed or stopped on its own: what it had fails; later batches go on this thread. */
  #broken(error: unknown): void {
    this.#worker = undefined;
    this.#failPending(error instanceof Error ? error : new Error(String(error)));
    if (!this.#stopped) this.#inThread ??= this.fallback();
    this.#started();
  }
}
