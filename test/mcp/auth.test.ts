import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BearerTokenAuth, CombinedAuth, HeaderAuth } from '../../electron/mcp/auth.js';
import { MCPAuthError } from '../../electron/mcp/errors.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { SecretNotFoundError } from '../../electron/secrets/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { redactString } from '../../electron/secrets/redaction.js';

const TOKEN = 'sk-live-4242-very-secret-token';

/** Every way an object commonly gets turned into text by accident. */
function textForms(value: unknown): string[] {
  return [
    String(value),
    `${value as string}`,
    JSON.stringify(value),
    JSON.stringify({ nested: value }),
    inspect(value),
    inspect({ deep: { value } }, { depth: 10 }),
  ];
}

describe('secrets and auth never show their values', () => {
  it('SecretValue reveals only through reveal()', () => {
    const secret = new SecretValue(TOKEN);
    for (const form of textForms(secret)) expect(form).not.toContain(TOKEN);
    expect(secret.reveal()).toBe(TOKEN);
  });

  it('BearerTokenAuth puts the token on the wire and nowhere else', () => {
    const auth = new BearerTokenAuth(new SecretValue(TOKEN));
    for (const form of textForms(auth)) expect(form).not.toContain(TOKEN);
    const headers = new Headers();
    auth.applyTo(headers);
    expect(headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(() => new BearerTokenAuth(new SecretValue(''))).toThrow(/must not be empty/);
  });

  it('HeaderAuth and CombinedAuth show plain headers and hide secret ones', () => {
    const headers = new HeaderAuth({ 'X-Team': 'blue' }, new Map([['X-Api-Key', new SecretValue(TOKEN)]]));
    const combined = new CombinedAuth([headers, new BearerTokenAuth(new SecretValue(`${TOKEN}-2`))]);
    for (const form of [...textForms(headers), ...textForms(combined)]) expect(form).not.toContain(TOKEN);
    expect(JSON.stringify(headers)).toContain('blue');
    const wire = new Headers();
    combined.applyTo(wire);
    expect(wire.get('x-api-key')).toBe(TOKEN);
    expect(wire.get('authorization')).toBe(`Bearer ${TOKEN}-2`);
  });

  it('auth errors name the server and never the token', () => {
    const error = new MCPAuthError('github', 401);
    expect(error.message).toContain('"github"');
    for (const form of textForms(error)) expect(form).not.toContain(TOKEN);
  });

  it('redacts known secrets from text and from log lines', () => {
    const secret = new SecretValue(TOKEN);
    expect(redactString(`token=${TOKEN}; again ${TOKEN}`, [secret.reveal()])).toBe(
      'token=[redacted]; again [redacted]',
    );
    const log = new LogBuffer(3);
    log.redact([secret]);
    log.appendChunk(`starting with ${TOKEN}\npartial ${TOKEN.slice(0, 6)}`);
    log.appendChunk(`${TOKEN.slice(6)}\n`);
    expect(log.all().map((l) => l.text)).toEqual(['starting with [redacted]', 'partial [redacted]']);
  });

  it('keeps the log bounded in lines and line length', () => {
    const log = new LogBuffer(3, 10);
    log.appendChunk('1\n2\n3\n4\n0123456789abcdef\n');
    expect(log.all().map((l) => l.text)).toEqual(['3', '4', '0123456789… [cut]']);
  });

  it('resolves env references and says clearly when one is missing, without values', async () => {
    const resolver = new DefaultSecretResolver(undefined, { PRESENT: TOKEN });
    expect((await resolver.resolve({ source: 'env', name: 'PRESENT' })).reveal()).toBe(TOKEN);
    const missing = await resolver.resolve({ source: 'env', name: 'ABSENT' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SecretNotFoundError);
    expect((missing as Error).message).toContain('ABSENT');
    await expect(resolver.resolve({ source: 'store', key: 'k' })).rejects.toThrow(/No secret is stored/);
  });
});
