import { describe, expect, it } from 'vitest';
import { bearerOf } from '../../electron/security/loopbackAccess.js';

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
