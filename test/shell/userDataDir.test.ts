import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userDataDir } from '../../electron/shell/userDataDir.js';

const base = {
  cwd: resolve('/home/me/project'),
  appData: resolve('/home/me/.config'),
  productName: 'MiniHarness Desktop',
};

describe('userDataDir', () => {
  it('is <appData>/<product name> without --user-data-dir', () => {
    expect(userDataDir({ ...base, switchValue: '' })).toBe(join(base.appData, 'MiniHarness Desktop'));
    expect(userDataDir({ ...base, switchValue: '  ' })).toBe(join(base.appData, 'MiniHarness Desktop'));
  });

  it('keeps an absolute --user-data-dir', () => {
    expect(userDataDir({ ...base, switchValue: resolve('/tmp/profile') })).toBe(resolve('/tmp/profile'));
  });

  it('resolves a relative --user-data-dir against the working folder (app.setPath would throw on it)', () => {
    expect(userDataDir({ ...base, switchValue: 'profile-2' })).toBe(join(base.cwd, 'profile-2'));
    expect(userDataDir({ ...base, switchValue: '../other' })).toBe(resolve(base.cwd, '..', 'other'));
  });
});
