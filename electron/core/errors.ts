/**
 * Errors the app layer raises, and the one function that turns ANY error into the contract's
 * serializable ErrorShape (a code of the union in shared/errors.ts, a message, typed details) —
 * with secrets redacted.
 */
import { tooLargeIssueOf } from '../../shared/bridge.js';
import type { ErrorShape } from '../../shared/contract.js';
import type { Denial, ErrorCode, ErrorDetails } from '../../shared/errors.js';
import { isErrorCode } from '../../shared/errors.js';
import type { FieldErrors } from '../../shared/serverConfig.js';
import { fieldErrorsOf } from '../../shared/serverConfig.js';
import type { AppsErrorCode } from '../apps/errors.js';
import type { CatalogErrorCode } from '../catalog/errors.js';
import type { CheckpointErrorCode } from '../checkpoints/errors.js';
import type { GatewayErrorCode } from '../gateway/errors.js';
import type { HarnessErrorCode } from '../harness/errors.js';
import type { MCPErrorCode } from '../mcp/errors.js';
import type { ModelErrorCode } from '../models/errors.js';
import type { RunErrorCode } from '../runs/errors.js';
import type { SecretErrorCode } from '../secrets/errors.js';
import type { SecurityErrorCode } from '../security/errors.js';
import type { StorageErrorCode } from '../storage/errors.js';
import type { ToolErrorCode } from '../tools/errors.js';
import type { TraceErrorCode } from '../tracing/errors.js';

/** Every code the core's error families raise is a contract code: one outside the union fails the typecheck here. */
type ContractCodes<T extends ErrorCode> = T;
export type CoreErrorCode = ContractCodes<
  | AppsErrorCode
  | CatalogErrorCode
  | GatewayErrorCode
  | HarnessErrorCode
  | MCPErrorCode
  | ModelErrorCode
  | RunErrorCode
  | SecretErrorCode
  | SecurityErrorCode
  | StorageErrorCode
  | ToolErrorCode
  | CheckpointErrorCode
  | TraceErrorCode
>;

/** An error meant for the person at the GUI, with a stable code. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
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

function isZodError(error: unknown): error is Parameters<typeof fieldErrorsOf>[0] {
  return (
    !!error &&
    typeof error === 'object' &&
    (error as { name?: unknown }).name === 'ZodError' &&
    Array.isArray((error as { issues?: unknown }).issues)
  );
}

function isFieldErrors(value: unknown): value is Record<string, string[]> {
  return (
    !!value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'))
  );
}

/** What an error of the core carries beside its code (each field optional; read, never trusted blindly). */
interface Carried {
  code?: unknown;
  details?: unknown;
  serverId?: unknown;
  limitBytes?: unknown;
  traceId?: unknown;
  denial?: unknown;
  fieldErrors?: unknown;
}

/** The typed details of a core error: its own `details`, the common fields, and its denial. */
function detailsOf(error: Error & Carried, traceId: string | undefined): ErrorDetails | undefined {
  const own = error.details && typeof error.details === 'object' ? (error.details as ErrorDetails) : {};
  const trace = traceId ?? (typeof error.traceId === 'string' ? error.traceId : undefined);
  const details: ErrorDetails = {
    ...own,
    ...(typeof error.serverId === 'string' && own.serverId === undefined ? { serverId: error.serverId } : {}),
    ...(typeof error.limitBytes === 'number' && own.limitBytes === undefined ? { limitBytes: error.limitBytes } : {}),
    ...(error.denial && typeof error.denial === 'object' ? { denial: error.denial as Denial } : {}),
    // e.g. invalid_arguments: the tool's arguments that do not fit its schema, by field path
    ...(isFieldErrors(error.fieldErrors) && own.fieldErrors === undefined ? { fieldErrors: error.fieldErrors } : {}),
    ...(trace ? { traceId: trace } : {}),
  };
  return Object.keys(details).length > 0 ? details : undefined;
}

/** The free-text parts of details (a denial's reason, field messages, a server's links) can quote arguments: redact them like the message. */
function redactDetails(details: ErrorDetails | undefined, redact: (text: string) => string): ErrorDetails | undefined {
  if (!details) return details;
  return {
    ...details,
    ...(details.denial?.reason !== undefined
      ? { denial: { ...details.denial, reason: redact(details.denial.reason) } }
      : {}),
    ...(details.fieldErrors
      ? {
          fieldErrors: Object.fromEntries(
            Object.entries(details.fieldErrors).map(([field, messages]) => [field, messages.map(redact)]),
          ),
        }
      : {}),
    ...(details.links
      ? {
          links: details.links.map((link) => ({
            ...link,
            url: redact(link.url),
            ...(link.message !== undefined ? { message: redact(link.message) } : {}),
          })),
        }
      : {}),
  };
}

/**
 * A refused request said for people: the fields and what is wrong with each (never "the
 * contract", a word for developers a form would otherwise show).
 */
function refusedFieldsSentence(fieldErrors: FieldErrors): string {
  const parts = Object.entries(fieldErrors)
    .slice(0, 5)
    .map(([field, messages]) => `${field === '' ? 'the request' : field}: ${messages.slice(0, 2).join('; ')}`);
  return parts.length > 0
    ? `Some values were refused (${parts.join(' · ')}). Nothing was saved or run.`
    : 'The request was refused: it is not in the form this app expects. Nothing was saved or run.';
}

/**
 * Maps an error to the contract's shape. Errors of the core carry a `code` of the union, a
 * message written for people, and typed details; a contract violation becomes
 * `invalid_request` (or `request_too_large` for a size limit) with field errors; anything
 * else becomes `internal` with its message (redacted).
 */
export function toErrorShape(
  error: unknown,
  redact: (text: string) => string = (t) => t,
  traceId?: string,
): ErrorShape {
  if (isZodError(error)) {
    const fieldErrors = fieldErrorsOf(error);
    const tooLarge = tooLargeIssueOf(error);
    if (tooLarge) {
      return {
        code: 'request_too_large',
        message: `${tooLarge.message} Nothing was sent.`,
        details: { limitBytes: tooLarge.limitBytes, sizeBytes: tooLarge.sizeBytes, fieldErrors },
      };
    }
    return { code: 'invalid_request', message: refusedFieldsSentence(fieldErrors), details: { fieldErrors } };
  }
  if (error instanceof Error) {
    const carried = error as Error & Carried;
    const details = redactDetails(detailsOf(carried, traceId), redact);
    return {
      code: isErrorCode(carried.code) ? carried.code : 'internal',
      message: redact(error.message),
      ...(details ? { details } : {}),
    };
  }
  return { code: 'internal', message: 'Something went wrong in the main process.' };
}
