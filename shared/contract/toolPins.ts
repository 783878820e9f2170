/** Tool pins and poisoning flags as the GUI shows them (issue 31): used by tools, approvals and permissions. */
import { z } from 'zod';

export const PoisonFlagSchema = z.object({
  kind: z.enum(['invisible_unicode', 'hidden_markup', 'model_instruction', 'other_server_tool', 'exfil_url']),
  /** Where: `description`, `title`, `inputSchema.properties.path.description`, … */
  field: z.string(),
  /** The passage flagged (invisible characters written as `<U+XXXX>`). */
  passage: z.string(),
  otherServer: z.string().optional(),
});
export type PoisonFlagView = z.infer<typeof PoisonFlagSchema>;

/** One part of a text diff (jsdiff's change objects): kept, added (new side only) or removed (old side only). */
const DiffPartSchema = z.object({ value: z.string(), added: z.boolean().optional(), removed: z.boolean().optional() });
export type DiffPart = z.infer<typeof DiffPartSchema>;

/** What changed in a tool since it was pinned: the description's word diff, the schemas' line diffs, other fields before/after. */
export const ToolChangeSchema = z.object({
  pinnedHash: z.string(),
  currentHash: z.string(),
  pinnedAt: z.number(),
  pinnedBy: z.string(),
  description: z.array(DiffPartSchema).optional(),
  schemas: z.array(z.object({ field: z.enum(['inputSchema', 'outputSchema']), parts: z.array(DiffPartSchema) })),
  /** Title, each annotation, `_meta.ui`, `execution`: JSON text before and after (absent: not set). */
  fields: z.array(z.object({ field: z.string(), before: z.string().optional(), after: z.string().optional() })),
});
export type ToolChangeView = z.infer<typeof ToolChangeSchema>;

/** A tool's pin as the tool list shows it: `changed` when the current definition is not the pinned one. */
export const ToolPinStateSchema = z.object({
  state: z.enum(['pinned', 'changed']),
  hash: z.string(),
  pinnedAt: z.number(),
  pinnedBy: z.string(),
  change: ToolChangeSchema.optional(),
});

/** One pin in the Permissions view. */
export const PinViewSchema = z.object({
  serverId: z.string(),
  toolName: z.string(),
  hash: z.string(),
  pinnedAt: z.number(),
  pinnedBy: z.string(),
  decision: z.enum(['allow-once', 'allow-session', 'allow-always', 'rule']),
  /** The tool is listed now with another definition. */
  changed: z.boolean(),
});
export type PinView = z.infer<typeof PinViewSchema>;
