/** Errors a local tool throws instead of returning an error result. */

/** The arguments do not fit the tool's schema (a caller that skipped guardrails, or a model's mistake). */
export class ToolInputError extends Error {
  readonly code = 'invalid_arguments';
  constructor(
    readonly toolName: string,
    detail: string,
  ) {
    super(`Invalid arguments for ${toolName}: ${detail}. Check them against the tool's input schema.`);
    this.name = 'ToolInputError';
  }
}

/** The caller's signal aborted the tool; whatever it started has been stopped. */
export class ToolCancelledError extends Error {
  readonly code = 'cancelled';
  constructor(
    readonly toolName: string,
    detail = '',
  ) {
    super(`${toolName} was cancelled.${detail ? ` ${detail}` : ''}`);
    this.name = 'ToolCancelledError';
  }
}
