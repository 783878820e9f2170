/**
 * The validator handed to the generated form. The page's Content Security Policy forbids eval,
 * and @rjsf/validator-ajv8 compiles every schema with `new Function`, so it cannot run here (and
 * merely importing it builds an Ajv instance). The server validates the arguments anyway and
 * answers `isError`; the form is rendered with `noValidate`, so `validateFormData` reports
 * nothing.
 *
 * `isValid` is still asked by rjsf to pick the matching `oneOf` / `anyOf` option and to resolve
 * `if` / `then` / `else`; a small structural check (type, const, enum, required, properties,
 * items, the combinators and local `$ref`s) answers that without compiling anything.
 */
import type { RJSFSchema, ValidationData, ValidatorType } from '@rjsf/utils';

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function resolveRef(ref: string, root: Schema): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = asSchema(node)?.[part];
  }
  return asSchema(node);
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return asSchema(value) !== undefined;
    default:
      return true;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether `value` fits `schema` as far as structure goes (formats and bounds are the server's job). */
export function matchesSchema(schemaValue: unknown, value: unknown, root: Schema, depth = 0): boolean {
  if (schemaValue === true || schemaValue === undefined) return true;
  if (schemaValue === false) return false;
  let schema = asSchema(schemaValue);
  if (!schema || depth > 32) return true;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    if (target) schema = { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
  }
  const next = (s: unknown, v: unknown) => matchesSchema(s, v, root, depth + 1);

  if ('const' in schema && !sameJson(schema.const, value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) return false;
  if (value !== undefined) {
    const types = Array.isArray(schema.type)
      ? schema.type.map(String)
      : typeof schema.type === 'string'
        ? [schema.type]
        : [];
    if (types.length > 0 && !types.some((t) => typeMatches(t, value))) return false;
  }

  const object = asSchema(value);
  if (object) {
    if (
      Array.isArray(schema.required) &&
      !schema.required.every((key) => typeof key === 'string' && object[key] !== undefined)
    )
      return false;
    const properties = asSchema(schema.properties) ?? {};
    for (const [key, propertySchema] of Object.entries(properties)) {
      if (object[key] !== undefined && !next(propertySchema, object[key])) return false;
    }
    if (schema.additionalProperties === false && Object.keys(object).some((key) => !(key in properties))) return false;
  }
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) {
    if (!value.every((item) => next(schema.items, item))) return false;
  }

  if (Array.isArray(schema.allOf) && !schema.allOf.every((s) => next(s, value))) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => next(s, value))) return false;
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((s) => next(s, value)).length !== 1) return false;
  if (schema.not !== undefined && next(schema.not, value)) return false;
  if (schema.if !== undefined) {
    const branch = next(schema.if, value) ? schema.then : schema.else;
    if (branch !== undefined && !next(branch, value)) return false;
  }
  return true;
}

export const formValidator: ValidatorType<unknown, RJSFSchema> = {
  validateFormData(): ValidationData<unknown> {
    return { errors: [], errorSchema: {} };
  },
  isValid(schema, formData, rootSchema) {
    return matchesSchema(schema, formData, (rootSchema ?? schema) as Schema);
  },
  rawValidation() {
    return { errors: [] };
  },
};
