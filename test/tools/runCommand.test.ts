import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolCancelledError, ToolInputError } from '../../electron/tools/errors.js';
import type { RunCommandToolOptions } from '../../electron/tools/runCommand.js';
import { createRunCommandTool } from '../../electron/tools/runCommand.js';
import type { LocalTool } from '../../electron/tools/types.js';
import type { SandboxInfo } from '../../electron/sandbox/commandSandbox.js';

const NODE = process.execPath;
const posix = process.platform !== 'win32';
/**
 * The sandboxed tests run programs from the system's own folders; `NODE` runs only where no
 * sandbox is used (NO_SANDBOX). (A Node under the home folder runs sandboxed too, its own folder
 * made readable: test/sandbox/commandSandbox.test.ts.)
 */
const SH = '/bin/sh';

let base: string;
let root: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mh-cmd-')));
  root = join(base, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/**
 * These tests watch host process ids, which a sandbox's own pid namespace hides: they check the
 * process-group kill of a direct spawn. The sandboxed kill is in test/sandbox/escape.test.ts.
 */
const NO_SANDBOX: SandboxInfo = { kind: 'none', detail: 'process-tree tests spawn directly' };

/** A POSIX shell script in the root (which the sandbox shows), run as `sh <file> args…` — a file, not a `-c` string. */
function script(body: string): string[] {
  const file = join(root, `script-${randomUUID()}.sh`);
  writeFileSync(file, body);
  return [SH, file];
}

function runTool(options: Partial<RunCommandToolOptions> = {}): LocalTool {
  return createRunCommandTool({ roots: [root], ...options });
}

/** Running, not merely a zombie waiting for a PID 1 that may never reap it (containers). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): signal 0 succeeding is the best evidence there is
  }
}

async function waitForFile(file: string, timeoutMs = 5000): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (existsSync(file)) {
      const content = readFileSync(file, 'utf8');
      if (content) return content;
    }
    await sleep(20);
  }
  throw new Error(`${file} never appeared`);
}

async function waitUntilDead(pid: number, timeoutMs = 3000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await sleep(20);
  }
  return !isAlive(pid);
}

type Structured = {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  pid: number;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timeoutMs: number;
  cwd: string;
};

describe('run_command', () => {
  it('runs a program without a shell and returns its output and exit code', async () => {
    const result = await runTool().run({
      argv: [...script('printf "out:%s\\n" "$1"; echo err >&2'), '$HOME; echo pwned'],
    });
    const s = result.structuredContent as Structured;
    expect(result.isError).toBe(false);
    expect(s.exitCode).toBe(0);
    expect(s.signal).toBeNull();
    expect(s.timedOut).toBe(false);
    // No shell between the tool and the program: `$HOME; echo pwned` arrives as one literal argument ($1).
    expect(s.stdout).toBe('out:$HOME; echo pwned\n');
    expect(s.stderr).toBe('err\n');
    expect((result.content[0] as { text: string }).text).toContain('exit code 0');
  });

  it('runs in the root by default, or in a cwd inside it; a cwd outside is refused', async () => {
    const pwd = ['/bin/pwd', '-P'];
    expect(((await runTool().run({ argv: pwd })).structuredContent as Structured).stdout).toBe(`${root}\n`);
    expect(((await runTool().run({ argv: pwd, cwd: 'sub' })).structuredContent as Structured).stdout).toBe(
      `${join(root, 'sub')}\n`,
    );
    const guard = await runTool().guardrails({ argv: pwd, cwd: base });
    expect(guard.ok).toBe(false);
    const refused = await runTool().run({ argv: pwd, cwd: '..' });
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'path_outside_roots' } } });
  });

  it('a non-zero exit is an error result', async () => {
    const result = await runTool().run({ argv: script('echo bad >&2; exit 3') });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ exitCode: 3, timedOut: false, stderr: 'bad\n' });
  });

  it('a missing program is an error result', async () => {
    const result = await runTool().run({ argv: ['mh-no-such-program-xyz'] });
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'command_not_found' } } });
  });

  it('passes only the allow-listed environment', async () => {
    const tool = runTool({
      baseEnv: {
        PATH: process.env.PATH ?? '',
        HOME: '/home/test',
        MH_SECRET_TOKEN: 'sk-live-123',
        AWS_SECRET_ACCESS_KEY: 'x',
      },
      extraEnv: { MH_FIXED: '1' },
    });
    const result = await tool.run({ argv: ['/usr/bin/env'] });
    const keys = (result.structuredContent as Structured).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(keys).toContain('PATH');
    expect(keys).toContain('HOME');
    expect(keys).toContain('MH_FIXED');
    expect(keys).not.toContain('MH_SECRET_TOKEN');
    expect(keys).not.toContain('AWS_SECRET_ACCESS_KEY');
  });

  it('caps stdout and stderr, marking the truncation and counting every byte', async () => {
    const result = await runTool({ maxOutputBytes: 1024 }).run({
      argv: script("head -c 200000 /dev/zero | tr '\\0' a; printf bbbbbbbbbb >&2"),
    });
    const s = result.structuredContent as Structured;
    expect(s.stdout).toBe('a'.repeat(1024));
    expect(s.stdoutBytes).toBe(200000);
    expect(s.stdoutTruncated).toBe(true);
    expect(s.stderrTruncated).toBe(false);
    expect((result.content[0] as { text: string }).text).toContain('stdout truncated: 200000 bytes, first 1024 shown');
  });

  it('uses the configured default deadline and caps the one a call asks for', async () => {
    const tool = runTool({ timeoutMs: 1234, maxTimeoutMs: 5000 });
    expect(((await tool.run({ argv: ['/bin/true'] })).structuredContent as Structured).timeoutMs).toBe(1234);
    expect(
      ((await tool.run({ argv: ['/bin/true'], timeoutMs: 10_000_000 })).structuredContent as Structured).timeoutMs,
    ).toBe(5000);
  });

  it.runIf(posix)('a timeout kills the process and what it started', async () => {
    const pidFile = join(root, 'grandchild.pid');
    // The child starts a grandchild (in the same process group) and both wait forever.
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      setInterval(() => {}, 1000);`;
    const started = performance.now();
    const result = await runTool({ killGraceMs: 500, sandbox: NO_SANDBOX }).run({
      argv: [NODE, '-e', script],
      timeoutMs: 700,
    });
    const elapsed = performance.now() - started;
    const s = result.structuredContent as Structured;
    expect(result.isError).toBe(true);
    expect(s.timedOut).toBe(true);
    expect(s.signal).toBe('SIGTERM');
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(isAlive(s.pid)).toBe(false);
    const grandchild = Number(await waitForFile(pidFile));
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it.runIf(posix)('a process that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const script = 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)';
    const started = performance.now();
    const result = await runTool({ killGraceMs: 300, sandbox: NO_SANDBOX }).run({
      argv: [NODE, '-e', script],
      timeoutMs: 500,
    });
    const s = result.structuredContent as Structured;
    expect(s.timedOut).toBe(true);
    expect(s.signal).toBe('SIGKILL');
    expect(performance.now() - started).toBeGreaterThanOrEqual(750);
    expect(isAlive(s.pid)).toBe(false);
  });

  it.runIf(posix)('the abort signal kills the process and run rejects with ToolCancelledError', async () => {
    const pidFile = join(root, 'child.pid');
    const controller = new AbortController();
    const script = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const running = runTool({ killGraceMs: 300, sandbox: NO_SANDBOX }).run(
      { argv: [NODE, '-e', script], timeoutMs: 20_000 },
      { signal: controller.signal },
    );
    const pid = Number(await waitForFile(pidFile));
    expect(isAlive(pid)).toBe(true);
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(ToolCancelledError);
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it('the command guard refuses before anything is spawned', async () => {
    const marker = join(root, 'marker');
    const viaShell = { argv: ['sh', '-c', `touch ${marker}`] };
    const guard = await runTool().guardrails(viaShell);
    expect(guard).toMatchObject({ ok: false });
    expect(guard.ok === false && guard.reason).toMatch(/shell-command-string/);
    const refused = await runTool().run(viaShell);
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'command_refused' }, rule: 'shell-command-string' },
    });
    expect(existsSync(marker)).toBe(false);

    // The deny list, with a control run proving the command would have had an effect.
    const touch = { argv: ['/usr/bin/touch', marker] };
    const denied = runTool({ commandGuard: { deny: ['touch'] } });
    expect((await denied.guardrails(touch)).ok).toBe(false);
    expect((await denied.run(touch)).isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect((await runTool().run(touch)).isError).toBe(false);
    expect(existsSync(marker)).toBe(true);
  });

  it('bad arguments: guardrails refuse, run throws', async () => {
    expect((await runTool().guardrails({ argv: 'ls -la' })).ok).toBe(false);
    await expect(runTool().run({ argv: [] })).rejects.toBeInstanceOf(ToolInputError);
    await expect(runTool().run({ command: 'ls' })).rejects.toBeInstanceOf(ToolInputError);
  });
});
