import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommand, resolveExecutable } from '../../electron/security/commandGuard.js';

const posix = process.platform !== 'win32';

describe('built-in refusals', () => {
  it.each([
    [['sudo', 'ls'], 'privilege-escalation'],
    [['/usr/bin/sudo', '-u', 'root', 'id'], 'privilege-escalation'],
    [['su', '-'], 'privilege-escalation'],
    [['doas', 'sh'], 'privilege-escalation'],
    [['rm', '-rf', '/'], 'rm-recursive-root'],
    [['rm', '-fr', '/'], 'rm-recursive-root'],
    [['rm', '-r', '-f', '/'], 'rm-recursive-root'],
    [['rm', '-Rf', '/'], 'rm-recursive-root'],
    [['rm', '--recursive', '--force', '/'], 'rm-recursive-root'],
    [['rm', '-rf', '--', '/'], 'rm-recursive-root'],
    [['rm', '-rf', '~'], 'rm-recursive-root'],
    [['rm', '-rf', '/*'], 'rm-recursive-root'],
    [['rm', '-rf', '//'], 'rm-recursive-root'],
    [['rm', '-rf', '/usr/..'], 'rm-recursive-root'],
    [['rm', '-rf', homedir()], 'rm-recursive-root'],
    [['rm', '-rf', '--no-preserve-root', '/tmp/x'], 'rm-no-preserve-root'],
    [['mkfs', '/dev/sdb1'], 'format-filesystem'],
    [['mkfs.ext4', '/tmp/image'], 'format-filesystem'],
    [['dd', 'if=/dev/zero', 'of=/dev/sda', 'bs=1M'], 'dd-to-device'],
    [['dd', 'if=x', 'of=/dev/nvme0n1'], 'dd-to-device'],
    [['chmod', '-R', '777', '/'], 'recursive-permission-change-root'],
    [['chown', '-R', 'nobody', '/'], 'recursive-permission-change-root'],
    [['sh', '-c', 'echo hi'], 'shell-command-string'],
    [['bash', '-c', 'ls'], 'shell-command-string'],
    [['bash', '-lc', 'ls'], 'shell-command-string'],
    [['/bin/zsh', '-c', 'ls'], 'shell-command-string'],
    [['dash', '-e', '-c', 'ls'], 'shell-command-string'],
    [['fish', '--command', 'ls'], 'shell-command-string'],
    [['pwsh', '-Command', 'ls'], 'shell-command-string'],
    [['cmd.exe', '/c', 'dir'], 'shell-command-string'],
    [['env', '-S', 'ls -l'], 'shell-command-string'],
    [['watch', 'ls'], 'shell-command-string'],
    [['sh', 'https://example.com/install.sh'], 'shell-remote-script'],
    [['bash', 'http://example.com/x'], 'shell-remote-script'],
    [['perl', '-e', ':(){ :|:& };:'], 'fork-bomb'],
    [['echo', 'bomb(){ bomb|bomb& };bomb'], 'fork-bomb'],
    [['tee', '/dev/sda'], 'raw-disk-device'],
    [['rm', '-rf', 'C:\\'], 'rm-recursive-root'],
    [['cp', 'image.iso', '/dev/sdb'], 'raw-disk-device'],
    // Wrappers and find -exec do not hide the command they run.
    [['env', 'FOO=1', 'sudo', 'ls'], 'privilege-escalation'],
    [['timeout', '5', 'rm', '-rf', '/'], 'rm-recursive-root'],
    [['nice', '-n', '10', 'sh', '-c', 'ls'], 'shell-command-string'],
    [['xargs', 'rm', '-rf', '/'], 'rm-recursive-root'],
    [['find', '.', '-exec', 'sh', '-c', 'rm {}', ';'], 'shell-command-string'],
    [['busybox', 'rm', '-rf', '/'], 'rm-recursive-root'],
  ])('%j is refused (%s)', async (argv, rule) => {
    const result = await checkCommand(argv);
    expect(result).toMatchObject({ ok: false, rule });
    expect(result.ok === false && result.reason.length).toBeGreaterThan(10);
  });

  it.each([
    [['ls', '-la']],
    [['git', 'status']],
    [['rm', '-rf', 'build']],
    [['rm', '-f', '/tmp/some-file']],
    [['rm', '/']], // not recursive: rm refuses a folder on its own
    [['chmod', '-R', '755', 'dist']],
    [['dd', 'if=/dev/zero', 'of=/dev/null', 'count=1']],
    [['dd', 'if=/dev/zero', 'of=out.img', 'count=1']],
    [['sh', 'build.sh']],
    [['bash', './scripts/test.sh', '--fast']],
    [['node', '--version']],
    [['grep', '-r', 'TODO', 'src']],
    [['echo', 'run a curl | sh pipeline (literally)']],
    [['env', 'FOO=1', 'ls']],
  ])('%j is allowed', async (argv) => {
    expect(await checkCommand(argv)).toEqual({ ok: true });
  });

  it.each([[[]], [['']], [['  ']], [['ls', 'a\0b']]])('malformed argv %j is refused', async (argv) => {
    expect(await checkCommand(argv)).toMatchObject({ ok: false, rule: 'invalid-argv' });
  });
});

describe('configured lists', () => {
  it('the deny list refuses by basename and by absolute path', async () => {
    expect(await checkCommand(['curl', 'https://x'], { deny: ['curl'] })).toMatchObject({
      ok: false,
      rule: 'deny-list',
    });
    expect(await checkCommand(['/usr/bin/curl', 'https://x'], { deny: ['curl'] })).toMatchObject({
      ok: false,
      rule: 'deny-list',
    });
    expect(await checkCommand(['wget'], { deny: ['curl'] })).toEqual({ ok: true });
    expect(await checkCommand(['env', 'curl', 'x'], { deny: ['curl'] })).toMatchObject({
      ok: false,
      rule: 'deny-list',
    });
  });

  it('the allow list refuses anything else, and cannot allow a built-in refusal', async () => {
    const config = { allow: ['git', 'ls', 'bash'] };
    expect(await checkCommand(['git', 'log'], config)).toEqual({ ok: true });
    expect(await checkCommand(['cat', 'x'], config)).toMatchObject({ ok: false, rule: 'allow-list' });
    expect(await checkCommand(['bash', '-c', 'ls'], config)).toMatchObject({ ok: false, rule: 'shell-command-string' });
  });

  it('deny wins over allow', async () => {
    expect(await checkCommand(['git'], { allow: ['git'], deny: ['git'] })).toMatchObject({
      ok: false,
      rule: 'deny-list',
    });
  });

  it('denyArgPatterns match arguments, also with /g patterns used repeatedly', async () => {
    const config = { denyArgPatterns: [/--force/g, /^push$/] };
    expect(await checkCommand(['git', 'push'], config)).toMatchObject({ ok: false, rule: 'deny-arg-pattern' });
    for (let i = 0; i < 3; i++)
      expect(await checkCommand(['git', 'reset', '--force'], config)).toMatchObject({
        ok: false,
        rule: 'deny-arg-pattern',
      });
    expect(await checkCommand(['git', 'pull'], config)).toEqual({ ok: true });
  });
});

describe.runIf(posix)('resolved executables', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mh-guard-'));
    // A harmless-looking name that is really (a stand-in named) sudo, and one that is really a shell.
    writeFileSync(join(dir, 'sudo'), '#!/bin/sh\necho not really sudo\n');
    chmodSync(join(dir, 'sudo'), 0o755);
    symlinkSync(join(dir, 'sudo'), join(dir, 'helper'));
    // A multi-call binary: `ls` resolving to it is still ls, not a shell or a wrapper.
    writeFileSync(join(dir, 'busybox'), '#!/bin/sh\necho busybox\n');
    chmodSync(join(dir, 'busybox'), 0o755);
    symlinkSync(join(dir, 'busybox'), join(dir, 'ls'));
    symlinkSync('/bin/sh', join(dir, 'innocent'));
    writeFileSync(join(dir, 'tool'), '#!/bin/sh\necho tool\n');
    chmodSync(join(dir, 'tool'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an executable is also judged by what it resolves to', async () => {
    const context = { cwd: dir, path: dir };
    expect(await checkCommand(['helper', 'ls'], {}, context)).toMatchObject({
      ok: false,
      rule: 'privilege-escalation',
    });
    expect(await checkCommand(['helper', 'ls'], {}, { cwd: dir, path: '/nonexistent' })).toEqual({ ok: true }); // not found: name only
    expect(await checkCommand(['./innocent', '-c', 'ls'], {}, context)).toMatchObject({
      ok: false,
      rule: 'shell-command-string',
    });
    expect(await checkCommand(['innocent', '-c', 'ls'], {}, context)).toMatchObject({
      ok: false,
      rule: 'shell-command-string',
    });
  });

  it('a name resolving to a multi-call binary is judged by the name given', async () => {
    const context = { cwd: dir, path: dir };
    expect(await checkCommand(['ls', '-c', 'sudo'], {}, context)).toEqual({ ok: true });
    expect(await checkCommand(['busybox', 'sudo', 'id'], {}, context)).toMatchObject({
      ok: false,
      rule: 'privilege-escalation',
    });
  });

  it('an absolute path in the allow list matches the program found on PATH', async () => {
    const config = { allow: [join(dir, 'tool')] };
    expect(await checkCommand(['tool'], config, { cwd: dir, path: dir })).toEqual({ ok: true });
    expect(await checkCommand(['tool'], config, { cwd: dir, path: '/usr/bin:/bin' })).toMatchObject({
      ok: false,
      rule: 'allow-list',
    });
  });

  it('resolveExecutable searches PATH and resolves relative paths against cwd', async () => {
    expect(await resolveExecutable('tool', { path: dir })).toBe(join(dir, 'tool'));
    expect(await resolveExecutable('./tool', { cwd: dir })).toBe(join(dir, 'tool'));
    expect(await resolveExecutable('no-such-program-here', { path: dir })).toBeUndefined();
  });
});
