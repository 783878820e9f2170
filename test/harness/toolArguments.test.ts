/** The argument check main runs before the permission decision (shared/toolArguments.ts). */
import { describe, expect, it } from 'vitest';
import { checkToolArguments } from '../../electron/harness/toolArguments.js';

const schema = {
  type: 'object',
  properties: {
    line: { type: 'string' },
    count: { type: 'integer', minimum: 1 },
    nested: { type: 'object', properties: { 'a/b': { type: 'boolean' } }, required: ['a/b'] },
  },
  required: ['line'],
  additionalProperties: false,
};

describe('checkToolArguments', () => {
  it('accepts arguments that fit', () => {
    expect(checkToolArguments(schema, { line: 'x', count: 2, nested: { 'a/b': true } })).toBeUndefined();
  });

  it('keys every problem by field path, with the container keywords left out', () => {
    expect(checkToolArguments(schema, { count: 0.5, nested: {}, extra: 1 })).toEqual({
      line: ['is required'],
      count: ['must be integer (it is number)', '0.5 is less than 1.'],
      'nested.a/b': ['is required'],
      extra: ['is not an argument this tool takes'],
    });
    expect(checkToolArguments(schema, { line: 5 })).toEqual({ line: ['must be string (it is number)'] });
  });

  it('follows the draft the schema declares (draft-07 here) and never throws on a schema it cannot read', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { e: { enum: ['a'] } },
    };
    expect(Object.keys(checkToolArguments(draft7, { e: 'b' }) ?? {})).toEqual(['e']);
    expect(checkToolArguments({ type: 'object', $ref: '#/nowhere' }, { a: 1 })).toBeUndefined();
  });
});
