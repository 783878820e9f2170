/** The GUI's words for the `disk_full` warning (issue 28.11): what it means for calls, what to do, and that it goes by itself. */
import { describe, expect, it } from 'vitest';
import { AppWarningSchema } from '../../shared/contract.js';
import { warningKey, warningWords } from '../../renderer/src/lib/appWarnings.js';

describe('the disk_full warning', () => {
  it('crosses the contract and is worded by code, with the database named', () => {
    const warning = AppWarningSchema.parse({ code: 'disk_full', file: '/data/miniharness.db' });
    expect(warningKey(warning)).toBe('disk_full:/data/miniharness.db');
    const words = warningWords(warning);
    expect(words.title).toMatch(/disk is full/);
    expect(words.text).toMatch(/result unknown/);
    expect(words.text).toMatch(/Free some space/);
    expect(words.detail).toBe('Database: /data/miniharness.db');
  });
});
