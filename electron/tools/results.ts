/** Building NormalizedToolResults the same way in every local tool. */
import type { NormalizedToolResult } from '../results/toolResult.js';
import { SecurityError } from '../security/errors.js';

export function okResult(text: string, structuredContent: Record<string, unknown>): NormalizedToolResult {
  return { content: [{ type: 'text', text }], structuredContent, isError: false };
}

/** A failure the model should see and can act on; `code` lets programs tell failures apart. */
export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): NormalizedToolResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { error: { code, message }, ...extra },
    isError: true,
  };
}

/** A failure with typed details (`error.details`), e.g. a code from shared/errors.ts with its details. */
export function errorDetailsResult(
  code: string,
  message: string,
  details: Record<string, unknown>,
): NormalizedToolResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { error: { code, message, details } },
    isError: true,
  };
}

/**
 * Turns an error from the path guard or the file system into an error result. A security
 * error's typed details (beyond name, code and message) travel as `error.details`.
 */
export function fsErrorResult(error: unknown, path: string): NormalizedToolResult {
  if (error instanceof SecurityError) {
    const { name: _name, code, message, ...details } = error.toJSON();
    return Object.keys(details).length ? errorDetailsResult(code, message, details) : errorResult(code, message);
  }
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    const code = error.code;
    if (error instanceof Error && !/^E[A-Z]+$/.test(code)) return errorResult(code, error.message);
    const known: Record<string, string> = {
      ENOENT: `"${path}" does not exist.`,
      EACCES: `Access to "${path}" was refused by the operating system.`,
      EPERM: `The operating system does not permit this operation on "${path}".`,
      EISDIR: `"${path}" is a folder, not a file.`,
      ENOTDIR: `A part of "${path}" is a file, not a folder.`,
      EEXIST: `"${path}" already exists.`,
      ENOSPC: 'The disk is full.',
      ELOOP: `"${path}" changed into a symlink while it was being used; try again.`,
    };
    return errorResult(code, known[code] ?? `The operation on "${path}" failed (${code}).`);
  }
  return errorResult('failed', `The operation on "${path}" failed.`);
}
