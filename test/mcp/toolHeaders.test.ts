import { describe, expect, it } from 'vitest';
import { invalidHeaderDeclaration } from '../../electron/mcp/toolHeaders.js';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('x-mcp-header declarations', () => {
  it('accepts tools without any, and valid ones on string, integer and boolean properties, nested through properties', () => {
    expect(invalidHeaderDeclaration(undefined)).toBeUndefined();
    expect(invalidHeaderDeclaration(schema({ q: { type: 'string' } }))).toBeUndefined();
    expect(
      invalidHeaderDeclaration(
        schema({
          region: { type: 'string', 'x-mcp-header': 'Region' },
          limit: { type: 'integer', 'x-mcp-header': 'Limit' },
          opts: { type: 'object', properties: { verbose: { type: 'boolean', 'x-mcp-header': 'X-Verbose_1.v2' } } },
        }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['empty', schema({ a: { type: 'string', 'x-mcp-header': '' } }), /non-empty/],
    ['not a string', schema({ a: { type: 'string', 'x-mcp-header': 5 } }), /non-empty string/],
    ['on an object', schema({ a: { type: 'object', 'x-mcp-header': 'A' } }), /string, integer or boolean/],
    ['on an array', schema({ a: { type: 'array', 'x-mcp-header': 'A' } }), /string, integer or boolean/],
    ['on a number', schema({ a: { type: 'number', 'x-mcp-header': 'A' } }), /string, integer or boolean/],
    ['on null', schema({ a: { type: 'null', 'x-mcp-header': 'A' } }), /string, integer or boolean/],
    ['without a type', schema({ a: { 'x-mcp-header': 'A' } }), /string, integer or boolean/],
    ['a space', schema({ a: { type: 'string', 'x-mcp-header': 'My Header' } }), /not an HTTP token/],
    ['a colon', schema({ a: { type: 'string', 'x-mcp-header': 'A:B' } }), /not an HTTP token/],
    ['non-ASCII', schema({ a: { type: 'string', 'x-mcp-header': 'Régión' } }), /not an HTTP token/],
    ['a control character', schema({ a: { type: 'string', 'x-mcp-header': 'A\u0001' } }), /not an HTTP token/],
    [
      'the same twice',
      schema({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }),
      /repeats/,
    ],
    [
      'the same twice, other case',
      schema({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } }),
      /repeats/,
    ],
    [
      'under items',
      schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }),
      /reached through "properties"/,
    ],
    [
      'under anyOf',
      schema({}, { anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
      /reached through "properties"/,
    ],
    ['on the schema itself', { type: 'string', 'x-mcp-header': 'A' }, /reached through "properties"/],
  ])('refuses one %s', (_label, inputSchema, reason) => {
    expect(invalidHeaderDeclaration(inputSchema)).toMatch(reason);
  });
});
