/**
 * The byte counter of shared/jsonBounds.ts agrees with the parsed value: the same depth and the
 * same number of values (members and elements) for JSON with structural characters and escapes
 * inside strings, whitespace, non-ASCII text, whatever the chunks it arrives in.
 */
import { describe, expect, it } from 'vitest';
import { JsonBoundsCounter, jsonTextBreach, jsonValueBreach } from '../../shared/jsonBounds.js';

/** The exact values and depth of a parsed value, by recursion (small inputs only). */
function measure(value: unknown, depth = 0): { values: number; depth: number } {
  if (value === null || typeof value !== 'object') return { values: 0, depth };
  const children = Array.isArray(value) ? value : Object.values(value);
  let values = children.length;
  let deepest = depth + 1;
  for (const child of children) {
    const m = measure(child, depth + 1);
    values += m.values;
    deepest = Math.max(deepest, m.depth);
  }
  return { values, depth: deepest };
}

const SAMPLES = [
  '{}',
  '[]',
  '"a string with { [ , ] } and \\" and \\\\"',
  '{"a":1,"b":[1,2,{"c":"}]\\"{,"}],"d":{"e":{}},"é€😀":"ü"}',
  ' [ 1 , 2 , [ ] , { "k" : [ "x,y" , null , true , false , -1.5e3 ] } ] ',
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'x', arguments: { list: [1, 2, 3] } },
  }),
  '[[[[["deep\\\\"]]]]]',
  // Long plain text (searched natively past 64 bytes) with specials after it.
  `{"long":"${'p'.repeat(200)}\\"${'q'.repeat(100)}{[,\\\\","after":[1,2,{"x":"${'r'.repeat(70)}"}]}`,
];

describe('JsonBoundsCounter', () => {
  it.each(SAMPLES)('counts %s exactly, in any chunking', (text) => {
    const { values, depth } = measure(JSON.parse(text));
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 7, bytes.length]) {
      // At the exact counts nothing is passed; one less of either is.
      const exact = new JsonBoundsCounter({ maxDepth: depth, maxValues: values });
      const tightValues = new JsonBoundsCounter({ maxDepth: depth, maxValues: values - 1 });
      const tightDepth = new JsonBoundsCounter({ maxDepth: Math.max(0, depth - 1), maxValues: values });
      let breaches = [undefined, undefined, undefined] as unknown[];
      for (let i = 0; i < bytes.length; i += size) {
        const chunk = bytes.subarray(i, i + size);
        breaches = [exact.push(chunk), tightValues.push(chunk), tightDepth.push(chunk)];
      }
      expect(breaches[0]).toBeUndefined();
      if (values > 0) expect(breaches[1]).toEqual({ limit: 'values', max: values - 1 });
      if (depth > 0) expect(breaches[2]).toMatchObject({ limit: 'depth' });
    }
    expect(jsonValueBreach(JSON.parse(text), { maxDepth: depth, maxValues: values })).toBeUndefined();
  });

  it('stops at the first limit: a body of 100,000 keys is refused within the limit of values', () => {
    const text = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expect(jsonTextBreach(text, { maxDepth: 128, maxValues: 20_000 })).toEqual({ limit: 'values', max: 20_000 });
    expect(jsonValueBreach(JSON.parse(text), { maxDepth: 128, maxValues: 20_000 })).toEqual({
      limit: 'values',
      max: 20_000,
    });
  });
});
