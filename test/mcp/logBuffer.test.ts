import { describe, expect, it } from 'vitest';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';

describe('LogBuffer keeps the last lines', () => {
  it('shows exactly the last maxLines lines, oldest first, however many came (the cut is batched inside)', () => {
    const log = new LogBuffer(3);
    for (let i = 1; i <= 10; i++) {
      log.note(`line ${i}`);
      const shown = log.all().map((line) => line.text);
      expect(shown).toEqual(Array.from({ length: Math.min(i, 3) }, (_, k) => `line ${i - Math.min(i, 3) + 1 + k}`));
    }
    log.appendChunk('err a\nerr b\n');
    expect(log.tail(5)).toEqual(['err a', 'err b']);
    expect(log.all().map((line) => line.text)).toEqual(['line 10', 'err a', 'err b']);
  });

  it('redacts known secrets on the way in, and only then', () => {
    const log = new LogBuffer(5);
    log.note('before: hunter2-secret');
    log.redact([new SecretValue('hunter2-secret')]);
    log.appendChunk('token hunter2-secret leaked\n');
    expect(log.all().map((line) => line.text)).toEqual(['before: hunter2-secret', 'token [redacted] leaked']);
  });
});
