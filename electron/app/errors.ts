/**
 * Errors the app layer raises, and the one function that turns ANY error into the contract's
 * serializable ErrorShape (code, message, details) — with secrets redacted.
 */
import type { ErrorShape } from '../../shared/contract.js';
import type { FieldErrors } from '../../shared/serverConfig.js';

/** An error meant for the person at the GUI, with a stable code. */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: ErrorShape['details'],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** Input that failed validation, with the messages by field for the form. */
export class ValidationFailedError extends AppError {
  constructor(
    message: string,
    readonly fieldErrors: FieldErrors,
  ) {
    super('validation', message, { fieldErrors });
    this.name = 'ValidationFailedError';
  }
}

function isZodError(error: unknown): error is { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return !!error && typeof error === 'object' && (error as { name?: unknown }).name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

function isFieldErrors(value: unknown): value is Record<string, string[]> {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
}

/**
 * Maps an error to the contract's shape. Errors of the core carry a string `code` and a message
 * written for people; anything else becomes `internal` with its message (redacted).
 */
export function toErrorShape(error: unknown, redact: (text: string) => string = (t) => t, traceId?: string): ErrorShape {
  const withTrace = (details: ErrorShape['details']): ErrorShape['details'] => (traceId ? { ...details, traceId } : details);
  if (error instanceof AppError) {
    const details = withTrace(error.details);
    return { code: error.code, message: redact(error.message), ...(details ? { details } : {}) };
  }
  if (isZodError(error)) {
    const fieldErrors: FieldErrors = {};
    for (const issue of error.issues) (fieldErrors[issue.path.map(String).join('.')] ??= []).push(issue.message);
    return { code: 'invalid_request', message: 'The request does not match the contract.', details: { fieldErrors } };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const serverId = (error as { serverId?: unknown }).serverId;
    const limitBytes = (error as { limitBytes?: unknown }).limitBytes;
    const fieldErrors = (error as { fieldErrors?: unknown }).fieldErrors;
    const typed = {
      ...(typeof serverId === 'string' ? { serverId } : {}),
      ...(typeof limitBytes === 'number' ? { limitBytes } : {}),
      // e.g. invalid_arguments: the tool's arguments that do not fit its schema, by field path
      ...(isFieldErrors(fieldErrors) ? { fieldErrors } : {}),
    };
    const details = withTrace(Object.keys(typed).length > 0 ? typed : undefined);
    return {
      code: typeof code === 'string' ? code : 'internal',
      message: redact(error.message),
      ...(details ? { details } : {}),
    };
  }
  return { code: 'internal', message: 'Something went wrong in the main process.' };
}
