/** Errors a local tool throws instead of returning an error result. */
import { CodedError } from '../util/codedError.js';

export type ToolErrorCode = 'invalid_arguments' | 'cancelled';

abstract class ToolError extends CodedError<ToolErrorCode> {}

/** The arguments do not fit the tool's schema (a caller that skipped guardrails, or a model's mistake). */
export class ToolInputError extends ToolError {
  readonly code = 'invalid_arguments';
  constructor(
    readonly toolName: string,
    detail: string,
  ) {
    super(`Invalid arguments for ${toolName}: ${detail}. Check them against the tool's input schema.`);
  }
}

/** The caller's signal aborted the tool; whatever it started has been stopped. */
export class ToolCancelledError extends ToolError {
  readonly code = 'cancelled';
  constructor(
    readonly toolName: string,
    detail = '',
  ) {
    super(`${toolName} was cancelled.${detail ? ` ${detail}` : ''}`);
  }
}
