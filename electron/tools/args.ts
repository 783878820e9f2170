/** One zod schema per tool gives both the argument check and the advertised JSON Schema. */
import { z } from 'zod';
import { describeZodIssues } from '../security/zodIssues.js';
import { ToolInputError } from './errors.js';
import type { ToolInputSchema } from './types.js';

export function parseToolArgs<S extends z.ZodType>(toolName: string, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw new ToolInputError(toolName, describeZodIssues(parsed.error));
  return parsed.data;
}

export function toInputSchema(schema: z.ZodType): ToolInputSchema {
  // `$schema` is dropped: some model APIs reject keys they do not know in tool schemas.
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  if (rest.type !== 'object') throw new Error('A tool input schema must describe an object.');
  return rest as ToolInputSchema;
}
