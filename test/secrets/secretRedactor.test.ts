import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../electron/secrets/redaction.js';
import { SecretRedactor } from '../../electron/secrets/secretRedactor.js';

describe("SecretRedactor: the app's one set of known secrets", () => {
  it('redacts the values it was told, in every form, and ignores values too short to be secrets', () => {
    const redactor = new SecretRedactor(['initial-secret-1']);
    redactor.add('hunter2-hunter2');
    redactor.add('ab'); // too short to be taken as a secret
    expect(redactor.redact({ q: 'pw hunter2-hunter2 ab', apiKey: 'x' })).toEqual({
      q: `pw ${REDACTED} ab`,
      apiKey: REDACTED,
    });
    expect(redactor.redactReporting({ q: 'initial-secret-1' })).toEqual({ value: { q: REDACTED }, changed: true });
    expect(redactor.redactText('x hunter2-hunter2')).toBe(`x ${REDACTED}`);
    // Values only: a result's own `token` field is kept.
    expect(redactor.redactSecretValues({ token: 'hunter2-hunter2 ok' })).toEqual({ token: `${REDACTED} ok` });
  });

  it('is live: a value added later is redacted by every holder, and the version says so', () => {
    const redactor = new SecretRedactor();
    const before = redactor.version;
    expect(redactor.redactText('a late-secret-value')).toBe('a late-secret-value');
    redactor.add('late-secret-value');
    expect(redactor.version).toBeGreaterThan(before);
    expect(redactor.prepared).toEqual(['late-secret-value']);
    expect(redactor.redactText('a late-secret-value')).toBe(`a ${REDACTED}`);
  });
});
