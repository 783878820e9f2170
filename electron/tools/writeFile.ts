/** write_file: replace or create a text file inside the allowed folders, atomically. */
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

const DEFAULT_MAX_WRITE_BYTES = 10 * 1024 * 1024;

export interface WriteFileToolOptions {
  roots: string[];
  /** Folders never written even inside a root (see BoundFs). */
  excluded?: string[];
  binding?: BindingStrategy;
  /** The largest content it writes. Default 10 MiB. */
  maxWriteBytes?: number;
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
  const fs = new BoundFs({
    roots: options.roots,
    excluded: options.excluded ?? [],
    ...(options.binding ? { strategy: options.binding } : {}),
  });

  const guardrails = (args: Record<string, unknown>): Promise<GuardrailResult> =>
    guardrailFrom(() => fs.check(parseToolArgs(name, schema, args).path, { forWrite: true }));

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    const { path, content, createDirs = false } = parseToolArgs(name, schema, args);
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > cap)
      return errorResult(
        'content_too_large',
        `The content is ${bytes} bytes, more than the ${cap}-byte limit for write_file.`,
      );
    if (context.signal?.aborted) throw new ToolCancelledError(name, 'Nothing was written.');
    try {
      // Checked again (the guardrail ran before approval), then written through the verified folder.
      const checked = await fs.check(path, { forWrite: true });
      const { real, created } = await fs.writeFile(checked, content, {
        createDirs,
        beforeCommit: () => {
          if (context.signal?.aborted) throw new ToolCancelledError(name, 'Nothing was written.');
        },
      });
      return okResult(`${created ? 'Created' : 'Wrote'} "${path}" (${bytes} bytes).`, { path: real, bytes, created });
    } catch (error) {
      if (error instanceof ToolCancelledError) throw error;
      return fsErrorResult(error, path);
    }
  }

  return {
    name,
    description:
      'Create or replace a UTF-8 text file inside the allowed folders. The write is atomic: readers see the old or the new content, never a mix.',
    inputSchema: toInputSchema(schema),
    annotations: {
      title: 'Write file',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    guardrails,
    run,
  };
}
