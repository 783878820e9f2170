/** list_directory: the entries of a folder inside the allowed folders, without following symlinks. */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { guardrailFrom } from '../security/guardrails.js';
import type { GuardrailResult } from '../security/guardrails.js';
import { validatePath } from '../security/pathGuard.js';
import type { NormalizedToolResult } from '../mcp/types.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { ToolCancelledError } from './errors.js';
import { errorResult, fsErrorResult, okResult } from './results.js';
import type { LocalTool, LocalToolRunContext } from './types.js';

export const DEFAULT_MAX_LIST_ENTRIES = 1000;

export interface ListDirectoryToolOptions {
  roots: string[];
  /** Entries returned at most (the rest is reported as truncated). Default 1000. */
  maxEntries?: number;
}

export type DirectoryEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface DirectoryEntry {
  name: string;
  type: DirectoryEntryType;
  /** Bytes for files; null for everything else. */
  size: number | null;
}

export function createListDirectoryTool(options: ListDirectoryToolOptions): LocalTool {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_LIST_ENTRIES;
  const schema = z
    .object({
      path: z.string().min(1).describe('Folder to list; "." is the first allowed folder.'),
    })
    .strict();
  const name = 'list_directory';

  const guardrails = (args: Record<string, unknown>): Promise<GuardrailResult> =>
    guardrailFrom(() => validatePath(parseToolArgs(name, schema, args).path, options.roots));

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    const { path } = parseToolArgs(name, schema, args);
    try {
      const real = await validatePath(path, options.roots, { mustExist: true });
      const dirents = await readdir(real, { withFileTypes: true });
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = dirents.slice(0, maxEntries);
      const entries: DirectoryEntry[] = [];
      for (const d of shown) {
        if (context.signal?.aborted) throw new ToolCancelledError(name);
        // lstat: a symlink is reported as one, never followed out of the roots.
        const info = await lstat(join(real, d.name)).catch(() => undefined);
        const type: DirectoryEntryType = info?.isSymbolicLink() ? 'symlink' : info?.isDirectory() ? 'directory' : info?.isFile() ? 'file' : 'other';
        entries.push({ name: d.name, type, size: type === 'file' && info ? info.size : null });
      }
      const truncated = dirents.length > shown.length;
      const lines = entries.map((e) => (e.type === 'directory' ? `${e.name}/` : e.type === 'symlink' ? `${e.name}@` : e.type === 'file' ? `${e.name}  (${e.size} bytes)` : e.name));
      if (truncated) lines.push(`… ${dirents.length - shown.length} more entries not shown`);
      return okResult(lines.length ? lines.join('\n') : '(empty folder)', { path: real, entries, truncated, total: dirents.length });
    } catch (error) {
      if (error instanceof ToolCancelledError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return errorResult('not_a_directory', `"${path}" is a file, not a folder.`);
      return fsErrorResult(error, path);
    }
  }

  return {
    name,
    description: 'List the entries of a folder inside the allowed folders, with their type and size.',
    inputSchema: toInputSchema(schema),
    annotations: { title: 'List folder', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    guardrails,
    run,
  };
}
