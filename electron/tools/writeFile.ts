/** write_file: replace or create a text file inside the allowed folders, atomically. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { guardrailFrom } from '../security/guardrails.js';
import type { GuardrailResult } from '../security/guardrails.js';
import { validatePath } from '../security/pathGuard.js';
import type { NormalizedToolResult } from '../mcp/types.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { ToolCancelledError } from './errors.js';
import { errorResult, fsErrorResult, okResult } from './results.js';
import type { LocalTool, LocalToolRunContext } from './types.js';

export const DEFAULT_MAX_WRITE_BYTES = 10 * 1024 * 1024;

export interface WriteFileToolOptions {
  roots: string[];
  /** The largest content it writes. Default 10 MiB. */
  maxWriteBytes?: number;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

export function createWriteFileTool(options: WriteFileToolOptions): LocalTool {
  const cap = options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES;
  const schema = z
    .object({
      path: z.string().min(1).describe('File to write; relative paths are relative to the first allowed folder.'),
      content: z.string().describe('The complete new content (UTF-8).'),
      createDirs: z.boolean().optional().describe('Create missing parent folders (default false).'),
    })
    .strict();
  const name = 'write_file';

  const guardrails = (args: Record<string, unknown>): Promise<GuardrailResult> =>
    guardrailFrom(() => validatePath(parseToolArgs(name, schema, args).path, options.roots, { forWrite: true }));

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    const { path, content, createDirs = false } = parseToolArgs(name, schema, args);
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > cap) return errorResult('content_too_large', `The content is ${bytes} bytes, more than the ${cap}-byte limit for write_file.`);
    try {
      const real = await validatePath(path, options.roots, { forWrite: true });
      const parent = dirname(real);
      if (!(await isDirectory(parent))) {
        if (!createDirs) {
          return errorResult('parent_missing', `The folder for "${path}" does not exist. Create it first, or pass createDirs: true.`);
        }
        await mkdir(parent, { recursive: true });
      }
      // The last check before the write: nothing on the way may have become a symlink leading out.
      const again = await validatePath(path, options.roots, { forWrite: true });
      if (again !== real) return errorResult('path_changed', `"${path}" changed while it was being written to; nothing was written. Try again.`);
      if (context.signal?.aborted) throw new ToolCancelledError(name, 'Nothing was written.');
      const created = (await stat(real).catch(() => undefined)) === undefined;
      await writeFileAtomic(real, content, { encoding: 'utf8' });
      return okResult(`${created ? 'Created' : 'Wrote'} "${path}" (${bytes} bytes).`, { path: real, bytes, created });
    } catch (error) {
      if (error instanceof ToolCancelledError) throw error;
      return fsErrorResult(error, path);
    }
  }

  return {
    name,
    description: 'Create or replace a UTF-8 text file inside the allowed folders. The write is atomic: readers see the old or the new content, never a mix.',
    inputSchema: toInputSchema(schema),
    annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    guardrails,
    run,
  };
}
