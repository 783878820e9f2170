/**
 * Checks a tool's arguments against its input schema (JSON Schema) with @cfworker/json-schema:
 * it interprets the schema (no code generation, so no `eval` — fine under the renderer's CSP and
 * for schemas written by untrusted servers). Main runs it before the permission decision, so a
 * call with a wrong type is refused before anyone is asked to approve it; the field errors reach
 * the form through the contract's `details.fieldErrors`.
 *
 * The result is keyed by field path (`path.to.field`, `items.0`; `''` for the whole object), the
 * same shape as the contract's `details.fieldErrors`.
 */
import type { OutputUnit, Schema, SchemaDraft } from '@cfworker/json-schema';
import { Validator } from '@cfworker/json-schema';

export type ArgumentFieldErrors = Record<string, string[]>;

/** Keywords that only say "something below failed": the failure below is reported instead. */
const CONTAINER_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'then',
  'else',
  'if',
]);

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-06') || declared.includes('draft-07')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

function pathOf(instanceLocation: string): string[] {
  const pointer = instanceLocation.replace(/^#/, '');
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'));
}

function words(unit: OutputUnit): { path: string[]; message: string } {
  const path = pathOf(unit.instanceLocation);
  if (unit.keyword === 'required') {
    const key = /required property "(.*)"\.$/.exec(unit.error)?.[1];
    return key !== undefined ? { path: [...path, key], message: 'is required' } : { path, message: unit.error };
  }
  if (unit.keyword === 'false') return { path, message: 'is not an argument this tool takes' };
  if (unit.keyword === 'type') {
    const match = /Instance type "(.+)" is invalid\. Expected (.+)\.$/.exec(unit.error);
    if (match)
      return { path, message: `must be ${match[2]?.replaceAll('"', '').replaceAll(',', ' or')} (it is ${match[1]})` };
  }
  return { path, message: unit.error.replace(/^Instance /, 'Value ') };
}

const validators = new WeakMap<object, Validator | null>();

function validatorFor(schema: Record<string, unknown>): Validator | null {
  let validator = validators.get(schema);
  if (validator === undefined) {
    try {
      validator = new Validator(schema as Schema, draftOf(schema), false);
    } catch {
      validator = null; // a schema the library cannot read: the server checks its own input
    }
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * Field errors of `args` against `schema`, or undefined when they are valid (or the schema
 * cannot be read, in which case the server is left to check).
 */
export function checkToolArguments(
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): ArgumentFieldErrors | undefined {
  const validator = validatorFor(schema);
  if (!validator) return undefined;
  let result;
  try {
    result = validator.validate(args);
  } catch {
    return undefined;
  }
  if (result.valid) return undefined;
  const leaves = result.errors.filter((unit) => !CONTAINER_KEYWORDS.has(unit.keyword));
  const out: ArgumentFieldErrors = {};
  for (const unit of leaves.length > 0 ? leaves : result.errors) {
    const { path, message } = words(unit);
    const list = (out[path.join('.')] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return out;
}

/** One line for people: `count: must be number (it is string); path: is required`. */
export function describeArgumentErrors(errors: ArgumentFieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) => `${field || 'arguments'}: ${messages.join('; ')}`)
    .join('; ');
}
