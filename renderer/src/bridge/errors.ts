/** The typed error every failed bridge call throws: it carries main's ErrorShape unchanged. */
import type { ErrorShape } from '../../../shared/contract.js';
import type { ErrorCode } from '../../../shared/errors.js';
import type { FieldErrors } from '../../../shared/serverConfig.js';

export class BridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorShape['details'];

  constructor(shape: ErrorShape) {
    super(shape.message);
    this.name = 'BridgeError';
    this.code = shape.code;
    this.details = shape.details;
  }

  /** Field path (`url`, `env.API_KEY`, `headers.X-Key`, …) → messages, for forms. */
  get fieldErrors(): FieldErrors {
    return this.details?.fieldErrors ?? {};
  }

  toShape(): ErrorShape {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/** A readable message for anything caught (a BridgeError or an unexpected failure). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
