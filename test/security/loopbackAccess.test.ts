import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { bearerOf, isAllowedHost, isAllowedOrigin } from '../../electron/security/loopbackAccess.js';

const PORT = 47813;
const NAMES = ['127.0.0.1', 'localhost'];

/**
 * Host and Origin: the SDK's checks decide the name; ours adds the port, the scheme and an exact
 * header. The last column is what the SDK's check alone says: every row where it differs is
 * what ours does more.
 */
describe('isAllowedHost / isAllowedOrigin', () => {
  it('Host: this loopback name and port, exactly', () => {
    const rows: Array<[string | undefined, boolean, boolean]> = [
      [`127.0.0.1:${PORT}`, true, true],
      [`localhost:${PORT}`, true, true],
      [`LOCALHOST:${PORT}`, true, true],
      [`evil.example:${PORT}`, false, false],
      [`127.0.0.1.nip.io:${PORT}`, false, false],
      [undefined, false, false],
      ['', false, false],
      // What the SDK's port-agnostic, URL-parsing check lets through:
      ['localhost:3000', false, true],
      ['127.0.0.1', false, true],
      [`127.0.0.1:${PORT}/x`, false, true],
      [`127.0.0.1:0${PORT}`, false, true],
      [`user@127.0.0.1:${PORT}`, false, true],
    ];
    for (const [host, ours, sdk] of rows) {
      expect(isAllowedHost(host, PORT), String(host)).toBe(ours);
      expect(validateHostHeader(host, NAMES).ok, `SDK: ${host}`).toBe(sdk);
    }
  });

  it('Host: remembering the last one allowed never allows it on another port, nor a refused host after it', () => {
    expect(isAllowedHost(`127.0.0.1:${PORT}`, PORT)).toBe(true);
    expect(isAllowedHost(`127.0.0.1:${PORT}`, PORT + 1)).toBe(false);
    expect(isAllowedHost(`127.0.0.1:${PORT}`, PORT)).toBe(true);
    for (const host of [`127.0.0.1:${PORT}/x`, `user@127.0.0.1:${PORT}`, `evil.example:${PORT}`, undefined]) {
      expect(isAllowedHost(`localhost:${PORT}`, PORT)).toBe(true);
      expect(isAllowedHost(host, PORT), String(host)).toBe(false);
    }
  });

  it('Origin: absent (not a browser), or our own page', () => {
    const rows: Array<[string | undefined, boolean, boolean]> = [
      [undefined, true, true],
      [`http://127.0.0.1:${PORT}`, true, true],
      [`http://localhost:${PORT}`, true, true],
      ['http://evil.example', false, false],
      ['null', false, false],
      // A page another program serves on this machine, or over another scheme: the SDK's check takes it.
      ['http://localhost:3000', false, true],
      [`https://localhost:${PORT}`, false, true],
      ['', false, true],
    ];
    for (const [origin, ours, sdk] of rows) {
      expect(isAllowedOrigin(origin, PORT), String(origin)).toBe(ours);
      expect(validateOriginHeader(origin, NAMES).ok, `SDK: ${origin}`).toBe(sdk);
    }
  });
});

describe('bearerOf', () => {
  it('reads the token whatever the case of the scheme, with one space or several', () => {
    for (const header of [
      'Bearer mhg_abc.DEF-1~+/=',
      'bearer mhg_abc.DEF-1~+/=',
      'BEARER  mhg_abc.DEF-1~+/=',
      'Bearer mhg_abc.DEF-1~+/= ',
    ]) {
      expect(bearerOf(header), header).toBe('mhg_abc.DEF-1~+/=');
    }
  });

  it('refuses what is not one bearer token', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearermhg_abc',
      'Bearer a b',
      'Bearer tok\u00e9n',
      'x Bearer abc',
    ]) {
      expect(bearerOf(header), String(header)).toBeUndefined();
    }
  });
});
