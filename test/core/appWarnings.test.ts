/**
 * Notices quote error text from servers and libraries; they reach `app.info` as a response, which
 * no event redaction covers. A known secret in a notice is redacted as the notice is added.
 */
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/eventHub.js';
import { AppWarnings } from '../../electron/core/warnings.js';
import { SecretRedactor } from '../../electron/secrets/secretRedactor.js';

describe('AppWarnings', () => {
  it('keeps a notice without the known secrets it quotes', () => {
    const redactor = new SecretRedactor();
    redactor.add('sk-live-0123456789');
    const warnings = new AppWarnings(new EventHub((value) => redactor.redactSecretValues(value)), [], [], (text) =>
      redactor.redactText(text),
    );
    warnings.notice('Discovery failed: 401 for token sk-live-0123456789 at https://api.example');
    const [notice] = warnings.list();
    if (notice?.code !== 'notice') throw new Error(`expected one notice, got ${JSON.stringify(notice)}`);
    expect(notice.message).toContain('Discovery failed: 401 for token');
    expect(notice.message).not.toContain('sk-live-0123456789');
  });
});
