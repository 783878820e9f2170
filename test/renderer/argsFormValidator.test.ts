/**
 * The generated form's `isValid` (argsForm/validator.ts), which rjsf asks to choose a `oneOf` /
 * `anyOf` option and an `if` branch: answered by @cfworker/json-schema, with a subschema's local
 * `$ref`s resolved against the root it came from.
 */
import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { formValidator, matchesSchema } from '../../renderer/src/ui/components/argsForm/validator.js';

const circle: RJSFSchema = { $ref: '#/$defs/circle' };
const square: RJSFSchema = { $ref: '#/$defs/square' };
const owner: RJSFSchema = { $ref: '#/definitions/name' };
const root = {
  type: 'object',
  $defs: {
    circle: {
      type: 'object',
      properties: { kind: { const: 'circle' }, radius: { type: 'number' } },
      required: ['kind'],
    },
    square: {
      type: 'object',
      properties: { kind: { const: 'square' }, side: { type: 'integer' } },
      required: ['kind'],
    },
  },
  definitions: { name: { type: 'string', minLength: 1 } },
  properties: {
    shape: { oneOf: [circle, square] },
    owner,
  },
} as RJSFSchema;

describe('the args form validator', () => {
  it('picks the oneOf option a value fits, through $refs into the root', () => {
    expect(formValidator.isValid(circle, { kind: 'circle', radius: 2 }, root)).toBe(true);
    expect(formValidator.isValid(square, { kind: 'circle', radius: 2 }, root)).toBe(false);
    expect(formValidator.isValid(square, { kind: 'square', side: 3 }, root)).toBe(true);
    expect(formValidator.isValid(square, { kind: 'square', side: 2.5 }, root)).toBe(false);
    expect(formValidator.isValid(owner, '', root)).toBe(false);
    expect(formValidator.isValid(owner, 'Ada', root)).toBe(true);
  });

  it('judges the whole root: required, const, enum, if / then / else, not', () => {
    const schema = {
      type: 'object',
      properties: { mode: { enum: ['fast', 'safe'] }, retries: { type: 'integer' } },
      required: ['mode'],
      if: { properties: { mode: { const: 'safe' } } },
      then: { required: ['retries'] },
      not: { properties: { retries: { const: 13 } }, required: ['retries'] },
    };
    expect(matchesSchema(schema, { mode: 'fast' })).toBe(true);
    expect(matchesSchema(schema, {})).toBe(false);
    expect(matchesSchema(schema, { mode: 'slow' })).toBe(false);
    expect(matchesSchema(schema, { mode: 'safe' })).toBe(false);
    expect(matchesSchema(schema, { mode: 'safe', retries: 2 })).toBe(true);
    expect(matchesSchema(schema, { mode: 'safe', retries: 13 })).toBe(false);
  });

  it('leaves rjsf’s schema objects as they were (the library annotates a copy), even frozen ones', () => {
    const frozen = Object.freeze({
      type: 'object',
      properties: Object.freeze({ a: Object.freeze({ $ref: '#/$defs/a' }) }),
      $defs: Object.freeze({ a: Object.freeze({ type: 'string' }) }),
    });
    expect(matchesSchema(frozen, { a: 'x' })).toBe(true);
    expect(matchesSchema(frozen, { a: 1 })).toBe(false);
    expect(Object.getOwnPropertyNames(frozen)).toEqual(['type', 'properties', '$defs']);
  });

  it('lets anything fit a schema it cannot read (the server judges the arguments)', () => {
    expect(matchesSchema({ $ref: 'https://elsewhere.example/schema.json' }, 1)).toBe(true);
    expect(matchesSchema(true, 1)).toBe(true);
    expect(matchesSchema(false, 1)).toBe(false);
    expect(formValidator.validateFormData({}, {})).toEqual({ errors: [], errorSchema: {} });
  });
});
