/**
 * A server's `requestedSchema` (the spec's flat form subset) as the generated form renders it:
 * legacy `enumNames` become titled choices (`oneOf` of `const` + `title`), several-choice fields
 * become a set of checkboxes; everything else is already what the form understands (formats pick
 * the email, URL, date and date-time inputs). Main's field errors go back to their fields.
 */
import type { ErrorSchema, UiSchema } from '@rjsf/utils';
import type { ElicitationField, ElicitationSchema } from '../../../../shared/serverRequests.js';
import type { FieldErrors } from '../../../../shared/serverConfig.js';

function formField(field: ElicitationField): Record<string, unknown> {
  if ('enumNames' in field && field.enumNames) {
    const { enumNames, enum: choices, ...rest } = field;
    return { ...rest, oneOf: choices.map((value, i) => ({ const: value, title: enumNames[i] ?? value })) };
  }
  if (field.type === 'array') return { ...field, uniqueItems: true };
  return field;
}

export function formSchemaOf(schema: ElicitationSchema): { schema: Record<string, unknown>; uiSchema: UiSchema } {
  const properties: Record<string, unknown> = {};
  const uiSchema: UiSchema = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    properties[name] = formField(field);
    if (field.type === 'array') uiSchema[name] = { 'ui:widget': 'checkboxes' };
  }
  return {
    schema: { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) },
    uiSchema,
  };
}

/** Main's field errors (`name`, or `''` for the whole form) as the form's error schema. */
export function errorSchemaOf(fieldErrors: FieldErrors): ErrorSchema | undefined {
  const entries = Object.entries(fieldErrors);
  if (entries.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, messages] of entries) {
    if (field === '') out.__errors = messages;
    else out[field] = { __errors: messages };
  }
  return out as ErrorSchema;
}

/** The values to send: only fields the person (or a default) filled. */
export function contentOf(values: Record<string, unknown>): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[name] = value;
    else if (Array.isArray(value)) out[name] = value.filter((v): v is string => typeof v === 'string');
  }
  return out;
}
