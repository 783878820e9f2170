/** Errors of agent runs (runEngine.ts) that reach the GUI as codes. */
import { CodedError } from '../util/codedError.js';

export type RunErrorCode = 'not_resumable';

/** The run cannot be resumed now (it is running, or finished). */
export class RunNotResumableError extends CodedError<RunErrorCode> {
  readonly code = 'not_resumable';
}
