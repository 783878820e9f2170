/** The contract's `import.*` part: reading another app's MCP config file and importing its servers. */
import { z } from 'zod';
import { MAX_IMPORT_CONTENT_CHARS } from '../limits.js';
import type { DomainChannels } from './common.js';
import { JsonObject, channel } from './common.js';
import { ServerViewSchema } from './servers.js';

const ImportFormatSchema = z.enum(['claude', 'vscode', 'cursor']);

const ImportPreviewSchema = z.object({
  format: ImportFormatSchema,
  servers: z.array(
    z.object({
      /** The name in the file. */
      name: z.string(),
      /** The configuration it becomes (secret fields as slots), or undefined when it cannot be imported. */
      config: JsonObject.optional(),
      /** Secret slots whose values come from the file (stored on import, never shown). */
      secretSlots: z.array(z.string()),
      /** VS Code `${input:…}` prompts this server needs. */
      inputs: z.array(z.string()),
      exists: z.boolean(),
      problems: z.array(z.string()),
    }),
  ),
  inputs: z.array(z.object({ id: z.string(), description: z.string(), password: z.boolean() })),
});
export type ImportPreview = z.infer<typeof ImportPreviewSchema>;

const ImportFile = z.object({
  fileName: z.string().max(500).optional(),
  content: z.string().max(MAX_IMPORT_CONTENT_CHARS),
});

export const importChannels = {
  /** Reads a Claude Desktop / VS Code / Cursor MCP config and shows what would be imported. */
  'import.preview': channel(ImportFile.strict(), ImportPreviewSchema),
  /** Imports the chosen servers; secret values go to the secret store. Nothing on any error. */
  'import.apply': channel(
    ImportFile.extend({
      names: z.array(z.string().max(200)).min(1).max(200),
      inputs: z.record(z.string().max(200), z.string().max(16_384)).default({}),
    }).strict(),
    z.object({ imported: z.array(ServerViewSchema) }),
  ),
} as const satisfies DomainChannels;
