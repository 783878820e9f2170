/**
 * Errors of the registry catalog: a registry that cannot be reached, answers too slowly, answers
 * something that is not the v0.1 API, or repeats a page; a package whose bytes are not the ones
 * the entry names; a program the entry needs that this machine lacks.
 */
import type { ErrorCause, ErrorDetails } from '../../shared/errors.js';
import { CodedError } from '../util/codedError.js';

export type CatalogErrorCode =
  | 'unreachable'
  | 'timeout'
  | 'bad_response'
  | 'not_found'
  | 'not_supported'
  | 'validation'
  | 'registry_pagination_loop'
  | 'package_hash_mismatch'
  | 'runtime_missing';

export class CatalogError extends CodedError<CatalogErrorCode> {
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    cause?: ErrorCause,
  ) {
    super(message);
    if (cause) this.details = { cause };
  }

  /** What the contract carries beside the message (the failure's cause, a form's field errors). */
  details?: ErrorDetails;

  /** A form that does not validate: its messages by field key. */
  static invalid(message: string, fieldErrors: Record<string, string[]>): CatalogError {
    const error = new CatalogError('validation', message);
    error.details = { fieldErrors };
    return error;
  }
}
