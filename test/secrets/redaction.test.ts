import { describe, expect, it } from 'vitest';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { REDACTED, redact, redactKnownSecrets, redactString } from '../../electron/secrets/redaction.js';

describe('redact', () => {
  it('replaces the value under every credential-named key, at any depth and inside arrays', () => {
    const input = {
      query: 'weather',
      token: 'abc',
      headers: { Authorization: 'Bearer xyz', 'X-Api-Key': 'k1', accept: 'json' },
      accounts: [
        { name: 'a', password: 'p1', nested: { client_secret: { deep: 'v' } } },
        { passwd: 'p2', api_key: 'k2', apikey: 'k3' },
      ],
      cookies: ['c1', 'c2'],
      privateKey: 'pem',
      private_key: 'pem',
      awsCredentials: { id: 1 },
      refresh_token: null,
    };
    expect(redact(input)).toEqual({
      query: 'weather',
      token: REDACTED,
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED, accept: 'json' },
      accounts: [
        { name: 'a', password: REDACTED, nested: { client_secret: REDACTED } },
        { passwd: REDACTED, api_key: REDACTED, apikey: REDACTED },
      ],
      cookies: REDACTED,
      privateKey: REDACTED,
      private_key: REDACTED,
      awsCredentials: REDACTED,
      refresh_token: REDACTED,
    });
  });

  it('replaces known secret values inside any string or key, longest first, and leaves the input untouched', () => {
    const input = { note: 'sent s3cr3t-long to s3cr3t', list: ['x s3cr3t y', 42], 's3cr3t-as-key': true };
    const copy = structuredClone(input);
    expect(redact(input, ['s3cr3t', 's3cr3t-long'])).toEqual({
      note: `sent ${REDACTED} to ${REDACTED}`,
      list: [`x ${REDACTED} y`, 42],
      [`${REDACTED}-as-key`]: true,
    });
    expect(input).toEqual(copy);
    expect(redactString('a hunter22 b', ['hunter22'])).toBe(`a ${REDACTED} b`);
  });

  it('ignores secrets too short to mean anything (they would shred the text)', () => {
    expect(redact({ a: 'a b c' }, ['a', 'b c'])).toEqual({ a: 'a b c' });
  });

  it('returns JSON only: SecretValue, Date, cycles, bigint, functions, undefined, NaN', () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const shared = { n: 1 };
    expect(
      redact({
        s: new SecretValue('never-shown'),
        d: new Date(0),
        cycle,
        twice: [shared, shared],
        big: 10n,
        fn: () => 1,
        u: undefined,
        arr: [undefined, NaN, Infinity],
      }),
    ).toEqual({
      s: REDACTED,
      d: '1970-01-01T00:00:00.000Z',
      cycle: { name: 'loop', self: '[circular]' },
      twice: [{ n: 1 }, { n: 1 }],
      big: '10',
      arr: [null, null, null],
    });
    expect(redact(undefined)).toBeNull();
  });

  it('keeps a "__proto__" key as data instead of changing the copy\'s prototype', () => {
    const out = redact(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
  });
});

describe('token counters are not secrets', () => {
  it('keeps usage figures whose names contain "token" and still redacts real tokens', () => {
    expect(
      redact({
        max_tokens: 100,
        input_tokens: 5,
        outputTokens: 7,
        token_count: 3,
        access_token: 'abc123',
        refresh_token: 'def456',
        token: 'x',
      }),
    ).toEqual({
      max_tokens: 100,
      input_tokens: 5,
      outputTokens: 7,
      token_count: 3,
      access_token: '[redacted]',
      refresh_token: '[redacted]',
      token: '[redacted]',
    });
  });
});

describe('redactKnownSecrets (tool results, events)', () => {
  const SECRET = 'sk-live-0123456789';

  it('replaces a known secret in every string and key, however deep, and keeps the shape', () => {
    const result = {
      content: [{ type: 'text', text: `token=${SECRET}; again ${SECRET}` }],
      structuredContent: { [`k-${SECRET}`]: { list: [SECRET, 1, true, null] } },
      isError: false,
    };
    expect(redactKnownSecrets(result, [SECRET])).toEqual({
      content: [{ type: 'text', text: 'token=[redacted]; again [redacted]' }],
      structuredContent: { 'k-[redacted]': { list: ['[redacted]', 1, true, null] } },
      isError: false,
    });
    // The input is untouched.
    expect(result.content[0]?.text).toContain(SECRET);
  });

  it('keeps keys that merely name a credential: a result’s "token" field is the tool’s output', () => {
    const value = { token: 'tok-of-the-tool', password_hint: 'ask me' };
    expect(redactKnownSecrets(value, [SECRET])).toBe(value);
  });

  it('returns the input itself when no secret occurs, and survives cycles and "__proto__" keys', () => {
    const cyclic: Record<string, unknown> = { a: 'x' };
    cyclic.self = cyclic;
    expect(redactKnownSecrets(cyclic, [SECRET])).toBe(cyclic);
    const hostile = JSON.parse(`{"__proto__": {"polluted": "${SECRET}"}}`) as Record<string, unknown>;
    const out = redactKnownSecrets(hostile, [SECRET]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"[redacted]"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('ignores values too short to be secrets', () => {
    expect(redactKnownSecrets({ text: 'abc abc' }, ['abc'])).toEqual({ text: 'abc abc' });
  });
});
