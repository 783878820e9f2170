/**
 * The validator handed to the generated form. The page's Content Security Policy forbids eval,
 * and @rjsf/validator-ajv8 compiles every schema with `new Function`, so it cannot run here (and
 * merely importing it builds an Ajv instance). The server validates the arguments anyway and
 * answers `isError`; the form is rendered with `noValidate`, so `validateFormData` reports
 * nothing.
 *
 * `isValid` is still asked by rjsf to pick the matching `oneOf` / `anyOf` option and to resolve
 * `if` / `then` / `else`: @cfworker/json-schema answers that (an interpreter — no eval, so the CSP
 * holds — and the validator the main process checks arguments with, harness/toolArguments.ts).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import type { RJSFSchema, ValidationData, ValidatorType } from '@rjsf/utils';

type SchemaObject = Record<string, unknown>;

const asObject = (value: unknown): SchemaObject | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SchemaObject) : undefined;

/** One validator per (subschema, root) pair: rjsf asks about the same schema objects on every render. */
const validators = new WeakMap<object, WeakMap<object, Validator | undefined>>();

/**
 * rjsf hands `isValid` a subschema whose local `$ref`s (`#/$defs/…`, `#/definitions/…`) point into
 * the root: the subschema is validated as a root of its own that carries the root's definitions.
 * The copy is the library's to annotate (it marks schema objects with their URIs), never rjsf's.
 */
function validatorFor(schema: SchemaObject, root: SchemaObject): Validator | undefined {
  let byRoot = validators.get(schema);
  if (!byRoot) validators.set(schema, (byRoot = new WeakMap()));
  if (byRoot.has(root)) return byRoot.get(root);
  let validator: Validator | undefined;
  try {
    const withDefinitions =
      schema === root
        ? schema
        : {
            ...schema,
            ...(asObject(root.$defs) ? { $defs: { ...asObject(root.$defs), ...asObject(schema.$defs) } } : {}),
            ...(asObject(root.definitions)
              ? { definitions: { ...asObject(root.definitions), ...asObject(schema.definitions) } }
              : {}),
          };
    validator = new Validator(structuredClone(withDefinitions) as Schema, '2020-12');
  } catch {
    validator = undefined; // a schema the library cannot read: the server judges the arguments
  }
  byRoot.set(root, validator);
  return validator;
}

/** Whether `value` fits `schema` (whose `$ref`s resolve against `root`); a schema it cannot read fits anything. */
export function matchesSchema(schemaValue: unknown, value: unknown, rootValue: unknown = schemaValue): boolean {
  if (schemaValue === true || schemaValue === undefined) return true;
  if (schemaValue === false) return false;
  const schema = asObject(schemaValue);
  if (!schema) return true;
  const validator = validatorFor(schema, asObject(rootValue) ?? schema);
  if (!validator) return true;
  try {
    return validator.validate(value).valid;
  } catch {
    return true; // an unresolvable $ref, say: the server judges the arguments
  }
}

export const formValidator: ValidatorType<unknown, RJSFSchema> = {
  validateFormData(): ValidationData<unknown> {
    return { errors: [], errorSchema: {} };
  },
  isValid(schema, formData, rootSchema) {
    return matchesSchema(schema, formData, rootSchema ?? schema);
  },
  rawValidation() {
    return { errors: [] };
  },
};
