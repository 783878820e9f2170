/** list_directory: the entries of a folder inside the allowed folders, without following symlinks. */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { BindingStrategy } from '../security/boundFs.js';
import { BoundFs } from '../security/boundFs.js';
import { guardrailFrom } from '../security/guardrails.js';
import type { GuardrailResult } from '../security/guardrails.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { ToolCancelledError } from './errors.js';
import { errorResult, fsErrorResult, okResult } from './results.js';
import type { LocalTool, LocalToolRunContext } from './types.js';

const DEFAULT_MAX_LIST_ENTRIES = 1000;

export interface ListDirectoryToolOptions {
  roots: string[];
  /** Folders never listed even inside a root; entries that are such folders are left out. */
  excluded?: string[];
  binding?: BindingStrategy;
  /** Entries returned at most (the rest is reported as truncated). Default 1000. */
  maxEntries?: number;
}

type DirectoryEntryType = 'file' | 'directory' | 'symlink' | 'other';

interface DirectoryEntry {
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
  const fs = new BoundFs({
    roots: options.roots,
    excluded: options.excluded ?? [],
    ...(options.binding ? { strategy: options.binding } : {}),
  });

  const guardrails = (args: Record<string, unknown>): Promise<GuardrailResult> =>
    guardrailFrom(() => fs.check(parseToolArgs(name, schema, args).path));

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    const { path } = parseToolArgs(name, schema, args);
    try {
      const checked = await fs.check(path, { mustExist: true });
      // Everything is read through view.path: the verified folder, not a path that may have changed.
      const { entries, total } = await fs.withDirectory(checked, async (view) => {
        const names = (await readdir(view.path)).filter((n) => !view.isExcluded(n));
        names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const listed: DirectoryEntry[] = [];
        for (const entry of names.slice(0, maxEntries)) {
          if (context.signal?.aborted) throw new ToolCancelledError(name);
          // lstat: a symlink is reported as one, never followed out of the roots.
          const info = await lstat(join(view.path, entry)).catch(() => undefined);
          const type: DirectoryEntryType = info?.isSymbolicLink()
            ? 'symlink'
            : info?.isDirectory()
              ? 'directory'
              : info?.isFile()
                ? 'file'
                : 'other';
          listed.push({ name: entry, type, size: type === 'file' && info ? info.size : null });
        }
        return { entries: listed, total: names.length };
      });
      const truncated = total > entries.length;
      const lines = entries.map((e) =>
        e.type === 'directory'
          ? `${e.name}/`
          : e.type === 'symlink'
            ? `${e.name}@`
            : e.type === 'file'
              ? `${e.name}  (${e.size} bytes)`
              : e.name,
      );
      if (truncated) lines.push(`… ${total - entries.length} more entries not shown`);
      return okResult(lines.length ? lines.join('\n') : '(empty folder)', {
        path: checked.real,
        entries,
        truncated,
        total,
      });
    } catch (error) {
      if (error instanceof ToolCancelledError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR')
        return errorResult('not_a_directory', `"${path}" is a file, not a folder.`);
      return fsErrorResult(error, path);
    }
  }

  return {
    name,
    description: 'List the entries of a folder inside the allowed folders, with their type and size.',
    inputSchema: toInputSchema(schema),
    annotations: {
      title: 'List folder',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    guardrails,
    run,
  };
}
