/**
 * The ids of a span decided before the span is made: a call's span context is fixed when its
 * trace starts (the server gets it in `_meta` at once), but the SDK span is made later, off the
 * call path (callSpans.ts). The provider's IdGenerator hands out the ids set for the next
 * `startSpan`, and random ones otherwise (every other span).
 */
import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';

export class PresetIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  generateTraceId(): string {
    return this.#traceId ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#spanId ?? this.#random.generateSpanId();
  }

  newTraceId(): string {
    return this.#random.generateTraceId();
  }

  newSpanId(): string {
    return this.#random.generateSpanId();
  }

  /** Runs `make` (one startSpan) with these ids; the trace id is used only when the span has no parent. */
  with<T>(traceId: string, spanId: string, make: () => T): T {
    this.#traceId = traceId;
    this.#spanId = spanId;
    try {
      return make();
    } finally {
      this.#traceId = undefined;
      this.#spanId = undefined;
    }
  }
}
