import { describe, expect, it } from 'vitest';
import { adoptLoginShellPath, mergePaths, wantsLoginShellPath } from '../../electron/shell/loginShellPath.js';

describe('wantsLoginShellPath', () => {
  it('on macOS only (a Finder / Dock launch inherits launchd’s minimal PATH), unless switched off', () => {
    expect(wantsLoginShellPath('darwin', {})).toBe(true);
    expect(wantsLoginShellPath('darwin', { MINIHARNESS_LOGIN_SHELL_PATH: '0' })).toBe(false);
    expect(wantsLoginShellPath('linux', {})).toBe(false);
    expect(wantsLoginShellPath('win32', {})).toBe(false);
  });
});

describe('mergePaths', () => {
  it('puts the login shell’s entries first and keeps inherited ones it lacks, without duplicates or empties', () => {
    expect(
      mergePaths(
        '/usr/bin:/bin:/usr/sbin:/sbin',
        '/Users/me/.nvm/versions/node/v24.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin',
      ),
    ).toBe('/Users/me/.nvm/versions/node/v24.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    expect(mergePaths(undefined, '/a::/b:')).toBe('/a:/b');
    expect(mergePaths('/a', undefined)).toBe('/a');
  });
});

describe('adoptLoginShellPath', () => {
  const inherited = '/usr/bin:/bin:/usr/sbin:/sbin';

  function run(platform: NodeJS.Platform, readShellEnv: () => Promise<Record<string, string>>, timeoutMs = 2_000) {
    const env: Record<string, string | undefined> = { PATH: inherited };
    const logged: string[] = [];
    const done = adoptLoginShellPath({ platform, env, readShellEnv, timeoutMs, log: (line) => logged.push(line) });
    return done.then(() => ({ env, logged }));
  }

  it('macOS: takes the login shell’s PATH', async () => {
    const { env, logged } = await run('darwin', async () => ({
      PATH: '/opt/homebrew/bin:/usr/bin:/bin',
      HOME: '/Users/me',
    }));
    expect(env['PATH']).toBe('/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    expect(logged).toEqual([]);
  });

  it('elsewhere: never asks the shell', async () => {
    let asked = false;
    const { env } = await run('linux', async () => {
      asked = true;
      return { PATH: '/x' };
    });
    expect(asked).toBe(false);
    expect(env['PATH']).toBe(inherited);
  });

  it('a failing shell: PATH unchanged, one log line', async () => {
    const { env, logged } = await run('darwin', () => Promise.reject(new Error('Command failed: /bin/zsh -ilc …')));
    expect(env['PATH']).toBe(inherited);
    expect(logged).toEqual([
      "Kept the inherited PATH: reading the login shell's PATH failed (Command failed: /bin/zsh -ilc …).",
    ]);
  });

  it('a shell that never answers: gives up after the bound, PATH unchanged, one log line', async () => {
    const started = Date.now();
    const { env, logged } = await run('darwin', () => new Promise(() => undefined), 50);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(env['PATH']).toBe(inherited);
    expect(logged).toEqual([
      "Kept the inherited PATH: reading the login shell's PATH failed (no answer within 50 ms).",
    ]);
  });

  it('a shell environment without PATH: unchanged, said once', async () => {
    const { env, logged } = await run('darwin', async () => ({ HOME: '/Users/me' }));
    expect(env['PATH']).toBe(inherited);
    expect(logged).toHaveLength(1);
  });
});
