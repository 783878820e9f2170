/**
 * The one base of the main side's error families: an error with a stable code `C` (a subset of
 * the contract's union in shared/errors.ts; core/errors.ts checks each family's codes against it),
 * named after its class, and serialisable as data (`toJSON`) for traces, logs and IPC. Each
 * family (mcp/, security/, storage/, …) keeps its own `errors.ts` with an abstract base that
 * narrows `C`; every error class lives in its family's file.
 */
export abstract class CodedError<C extends string> extends Error {
  abstract readonly code: C;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /** A plain, serialisable form for IPC, traces and logs; subclasses add their ids. */
  toJSON(): { name: string; code: C; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}
