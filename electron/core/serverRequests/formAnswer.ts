/**
 * The values of an accepted elicitation form, checked against the server's `requestedSchema`
 * before anything is sent: only the form's own fields, each field's default where the person
 * left it empty (the spec's SEP-1034), then the schema itself (types, formats, bounds, choices,
 * required) with the same JSON Schema validator the tool arguments use — no code generation.
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import type { FieldErrors } from '../../../shared/serverConfig.js';
import { checkToolArguments } from '../../harness/toolArguments.js';

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];
export type FormValue = string | number | boolean | string[];

export type FormAnswer = { ok: true; content: Record<string, FormValue> } | { ok: false; fieldErrors: FieldErrors };

export function checkFormAnswer(schema: RequestedSchema, values: Record<string, FormValue>): FormAnswer {
  const fieldErrors: FieldErrors = {};
  const content: Record<string, FormValue> = {};
  for (const [name, value] of Object.entries(values)) {
    if (!Object.hasOwn(schema.properties, name)) (fieldErrors[name] ??= []).push('is not a field of this form');
    else content[name] = value;
  }
  for (const [name, field] of Object.entries(schema.properties)) {
    if (content[name] === undefined && field.default !== undefined) content[name] = field.default;
  }
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors };
  const invalid = checkToolArguments(schema, content);
  return invalid ? { ok: false, fieldErrors: invalid } : { ok: true, content };
}
