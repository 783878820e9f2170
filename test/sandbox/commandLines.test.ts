/** The generated bwrap command line and sandbox-exec profile (pure; the profile cannot run here). */
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../electron/sandbox/bwrap.js';
import { sandboxExecCommand, sandboxExecProfile } from '../../electron/sandbox/sandboxExec.js';
import type { SandboxPolicy } from '../../electron/sandbox/types.js';

const policy: SandboxPolicy = {
  writable: ['/home/ann/MiniHarness/workspace'],
  masked: ['/home/ann/.config/MiniHarness Desktop', '/home/ann', '/run/user/1000', '/'],
  network: false,
  cwd: '/home/ann/MiniHarness/workspace/src',
};

/** The (option, path) pairs of the mount options, in order. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  args.forEach((a, i) => {
    if (a === '--tmpfs' || a === '--remount-ro') out.push(`${a} ${args[i + 1]}`);
    if (a === '--bind') out.push(`${a} ${args[i + 1]}`);
  });
  return out;
}

describe('bwrapArgs', () => {
  it('read-only root, fresh /dev and /proc, masks before the workspace bind, then read-only masks', () => {
    const args = bwrapArgs(policy, ['git', 'status']);
    expect(args.slice(0, 7)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
    expect(mounts(args)).toEqual([
      '--tmpfs /tmp',
      '--tmpfs /home/ann',
      '--tmpfs /run/user/1000',
      '--tmpfs /home/ann/.config/MiniHarness Desktop',
      '--bind /home/ann/MiniHarness/workspace',
      '--remount-ro /home/ann/.config/MiniHarness Desktop',
      '--remount-ro /home/ann',
      '--remount-ro /run/user/1000',
    ]);
    // "/" is never masked.
    expect(args.filter((a, i) => args[i - 1] === '--tmpfs')).not.toContain('/');
  });

  it('no network, no capabilities, a new session, dies with its parent, runs in cwd, argv after --', () => {
    const args = bwrapArgs(policy, ['git', '--version']);
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain(
      '--cap-drop ALL --die-with-parent --new-session --chdir /home/ann/MiniHarness/workspace/src -- git --version',
    );
    expect(args.slice(-3)).toEqual(['--', 'git', '--version']);
  });

  it('network: true shares the network namespace only', () => {
    const args = bwrapArgs({ ...policy, network: true }, ['curl', 'https://example.com']);
    expect(args.indexOf('--share-net')).toBe(args.indexOf('--unshare-all') + 1);
  });

  it('a masked folder inside the workspace is mounted after the workspace bind', () => {
    const args = bwrapArgs({ writable: ['/srv/ws'], masked: ['/srv/ws/.secret'], network: false, cwd: '/srv/ws' }, [
      'ls',
    ]);
    expect(mounts(args)).toEqual([
      '--tmpfs /tmp',
      '--bind /srv/ws',
      '--tmpfs /srv/ws/.secret',
      '--remount-ro /srv/ws/.secret',
    ]);
  });

  it('refuses relative paths and an empty command', () => {
    expect(() => bwrapArgs({ ...policy, writable: ['ws'] }, ['ls'])).toThrow(/absolute/);
    expect(() => bwrapArgs({ ...policy, masked: ['data'] }, ['ls'])).toThrow(/absolute/);
    expect(() => bwrapArgs(policy, [])).toThrow(/command/);
  });
});

describe('sandbox-exec profile', () => {
  it('denies by default, reads all but the masked folders, writes only the workspace, no network', () => {
    const { profile, params } = sandboxExecProfile(policy);
    const lines = profile.split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    expect(params).toMatchObject({
      WORKSPACE_0: '/home/ann/MiniHarness/workspace',
      MASKED_0: '/home/ann/.config/MiniHarness Desktop',
      MASKED_1: '/home/ann',
      MASKED_2: '/run/user/1000',
    });
    expect(Object.values(params)).not.toContain('/');
    const readAll = lines.indexOf('(allow file-read*)');
    const denyMasked = lines.findIndex((l) => l.startsWith('(deny file-read*'));
    const readWorkspace = lines.indexOf('(allow file-read* (subpath (param "WORKSPACE_0")))');
    // Last match wins in SBPL: the workspace is carved back out of the masked home folder.
    expect(readAll).toBeGreaterThan(1);
    expect(denyMasked).toBeGreaterThan(readAll);
    expect(readWorkspace).toBeGreaterThan(denyMasked);
    expect(lines[denyMasked]).toBe(
      '(deny file-read* (subpath (param "MASKED_0")) (subpath (param "MASKED_1")) (subpath (param "MASKED_2")))',
    );
    const writes = lines.filter((l) => l.startsWith('(allow file-write*'));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\(allow file-write\* \(subpath \(param "WORKSPACE_0"\)\) \(literal "\/dev\/null"\)/);
    expect(profile).not.toMatch(/\(allow network/);
  });

  it('the workspace parents can be stat-ed (getcwd), not read', () => {
    const { profile, params } = sandboxExecProfile(policy);
    expect(params).toMatchObject({ PARENT_0: '/home', PARENT_1: '/home/ann', PARENT_2: '/home/ann/MiniHarness' });
    expect(profile).toContain(
      '(allow file-read-metadata (literal (param "PARENT_0")) (literal (param "PARENT_1")) (literal (param "PARENT_2")))',
    );
  });

  it('network: true opens the network', () => {
    expect(sandboxExecProfile({ ...policy, network: true }).profile).toContain('(allow network* system-socket)');
  });

  it('no path ever enters the profile text: a hostile folder name stays a parameter', () => {
    const hostile = '/tmp/x") (allow default) ("';
    const { profile, params } = sandboxExecProfile({ ...policy, writable: [hostile], masked: [`${hostile}/m`] });
    expect(profile).not.toContain('allow default');
    expect(profile).not.toContain('/tmp/x');
    expect(params.WORKSPACE_0).toBe(hostile);
    expect(() => sandboxExecProfile({ ...policy, writable: ['/a\nb'] })).toThrow(/absolute path/);
  });

  it('sandbox-exec -p <profile> -D NAME=value … -- argv', () => {
    const command = sandboxExecCommand('/usr/bin/sandbox-exec', policy, ['make', 'test']);
    expect(command.file).toBe('/usr/bin/sandbox-exec');
    expect(command.args[0]).toBe('-p');
    expect(command.args).toContain('-D');
    expect(command.args).toContain('WORKSPACE_0=/home/ann/MiniHarness/workspace');
    expect(command.args.slice(-3)).toEqual(['--', 'make', 'test']);
  });
});
