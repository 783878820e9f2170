/** Errors of MCP Apps (electron/apps/) that reach the GUI as codes, with their details. */
import type { ErrorDetails } from '../../shared/errors.js';
import { CodedError } from '../util/codedError.js';

export type AppsErrorCode =
  | 'no_app'
  | 'app_resource_invalid'
  | 'app_call_refused'
  | 'result_too_large'
  | 'not_found'
  | 'unknown_tool'
  | 'app_rate_limited'
  | 'request_too_large';

/** One MCP Apps refusal: its code, the sentence for people, and the typed details (server, sizes). */
export class AppsError extends CodedError<AppsErrorCode> {
  constructor(
    readonly code: AppsErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
  }
}
