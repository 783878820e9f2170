/** Errors of the tracer: programming errors (bad event data, use after finish) and lookups. */
import { CodedError } from '../util/codedError.js';

export type TraceErrorCode = 'invalid_event' | 'trace_closed' | 'trace_not_found';

abstract class TracingError extends CodedError<TraceErrorCode> {}

/** The data does not match the event type's schema (the detail names fields, never values). */
export class TraceEventInvalidError extends TracingError {
  readonly code = 'invalid_event';
  constructor(type: string, detail: string) {
    super(`Trace event "${type}" has invalid data: ${detail}. Fix the caller to send the shape in tracing/events.ts.`);
  }
}

export class TraceClosedError extends TracingError {
  readonly code = 'trace_closed';
  constructor(traceId: string, operation: string) {
    super(`Trace ${traceId} is already finished; ${operation} was refused. Record every event before finish().`);
  }
}

export class TraceNotFoundError extends TracingError {
  readonly code = 'trace_not_found';
  constructor(traceId: string) {
    super(`There is no trace ${traceId}. It may have been deleted; refresh the trace list.`);
  }
}
