/** read_file: a UTF-8 text file inside the allowed folders, refused above a size cap. */
import { z } from 'zod';
import type { BindingStrategy, OpenedFile } from '../security/boundFs.js';
import { BoundFs } from '../security/boundFs.js';
import { guardrailFrom } from '../security/guardrails.js';
import type { GuardrailResult } from '../security/guardrails.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { parseToolArgs, toInputSchema } from './args.js';
import { ToolCancelledError } from './errors.js';
import { errorResult, fsErrorResult, okResult } from './results.js';
import type { LocalTool, LocalToolRunContext } from './types.js';

const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

export interface ReadFileToolOptions {
  roots: string[];
  /** Folders never read even inside a root (see BoundFs). */
  excluded?: string[];
  binding?: BindingStrategy;
  /** The largest file it reads; `maxBytes` in a call may only lower it. Default 1 MiB. */
  maxReadBytes?: number;
}

export function createReadFileTool(options: ReadFileToolOptions): LocalTool {
  const cap = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const schema = z
    .object({
      path: z.string().min(1).describe('File to read; relative paths are relative to the first allowed folder.'),
      maxBytes: z
        .number()
        .int()
        .positive()
        .max(cap)
        .optional()
        .describe(`Refuse files larger than this many bytes (at most ${cap}).`),
    })
    .strict();
  const name = 'read_file';
  const fs = new BoundFs({
    roots: options.roots,
    excluded: options.excluded ?? [],
    ...(options.binding ? { strategy: options.binding } : {}),
  });

  // Confinement only: a missing file is the tool's ordinary error, not a refusal.
  const guardrails = (args: Record<string, unknown>): Promise<GuardrailResult> =>
    guardrailFrom(() => fs.check(parseToolArgs(name, schema, args).path));

  async function run(args: Record<string, unknown>, context: LocalToolRunContext = {}): Promise<NormalizedToolResult> {
    const { path, maxBytes = cap } = parseToolArgs(name, schema, args);
    if (context.signal?.aborted) throw new ToolCancelledError(name);
    let opened: OpenedFile;
    try {
      // Checked again here (the guardrail ran before approval, possibly minutes ago), then opened
      // and verified: what is read is the file that was checked.
      opened = await fs.openFile(await fs.check(path, { mustExist: true }));
    } catch (error) {
      return fsErrorResult(error, path);
    }
    const { handle, real, size } = opened;
    try {
      if (!opened.isFile)
        return errorResult('not_a_file', `"${path}" is not a regular file; read_file reads files only.`);
      if (size > maxBytes) {
        return errorResult(
          'file_too_large',
          `"${path}" is ${size} bytes, more than the ${maxBytes}-byte limit. Read a smaller file${maxBytes < cap ? `, or raise maxBytes (up to ${cap})` : ''}.`,
          { path: real, bytes: size, limit: maxBytes },
        );
      }
      // Read one byte past the limit: the file may have grown since stat.
      const buffer = Buffer.alloc(Math.min(maxBytes, size) + 1);
      let length = 0;
      while (length < buffer.length) {
        if (context.signal?.aborted) throw new ToolCancelledError(name);
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > maxBytes) {
        return errorResult('file_too_large', `"${path}" grew past the ${maxBytes}-byte limit while it was read.`, {
          path: real,
          limit: maxBytes,
        });
      }
      const bytes = buffer.subarray(0, length);
      if (bytes.includes(0))
        return errorResult(
          'binary_file',
          `"${path}" looks like a binary file (it contains NUL bytes); read_file returns text only.`,
          { path: real, bytes: length },
        );
      return okResult(bytes.toString('utf8'), { path: real, bytes: length });
    } catch (error) {
      if (error instanceof ToolCancelledError) throw error;
      return fsErrorResult(error, path);
    } finally {
      await handle.close();
    }
  }

  return {
    name,
    description: `Read a UTF-8 text file inside the allowed folders (at most ${cap} bytes).`,
    inputSchema: toInputSchema(schema),
    annotations: {
      title: 'Read file',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    guardrails,
    run,
  };
}
