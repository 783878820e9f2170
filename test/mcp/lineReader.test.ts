/**
 * The stdio line reader: a line wholly inside one chunk is decoded in place (issue 33's fast
 * path), a line across chunks is joined once; both give the same text — CR of a CRLF dropped, a
 * character whose bytes are split between chunks whole — and the size bound holds on both paths.
 */
import { describe, expect, it } from 'vitest';
import { BoundedLineReader } from '../../electron/mcp/stdioTransport.js';

const reader = (max = 1024) => new BoundedLineReader(max, () => new Error('line too large'));

describe('BoundedLineReader', () => {
  it('splits a chunk of whole lines, dropping the CR of CRLF and keeping empty lines', () => {
    expect(reader().push(Buffer.from('{"a":1}\r\n\n{"b":"é"}\n\r\n'))).toEqual(['{"a":1}', '', '{"b":"é"}', '']);
  });

  it('joins a line across chunks, a multi-byte character split between them included', () => {
    const bytes = Buffer.from('{"text":"héllo"}\r\nnext\n');
    const r = reader();
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
    expect(r.push(bytes.subarray(0, cut))).toEqual([]);
    expect(r.push(bytes.subarray(cut, cut + 3))).toEqual([]);
    expect(r.push(bytes.subarray(cut + 3))).toEqual(['{"text":"héllo"}', 'next']);
  });

  it('a line ending after its chunk ended with its CR still loses the CR', () => {
    const r = reader();
    expect(r.push(Buffer.from('abc\r'))).toEqual([]);
    expect(r.push(Buffer.from('\nxyz\n'))).toEqual(['abc', 'xyz']);
  });

  it('refuses a line over the bound, in one chunk or across chunks, and goes on after it', () => {
    const r = reader(8);
    expect(() => r.push(Buffer.from('123456789\nok\n'))).toThrow('line too large');
    expect(r.push(Buffer.from('ok\n'))).toEqual(['ok']);
    expect(r.push(Buffer.from('12345'))).toEqual([]);
    expect(() => r.push(Buffer.from('6789'))).toThrow('line too large');
    expect(r.push(Buffer.from('rest of it\nfine\n'))).toEqual(['fine']);
  });
});
