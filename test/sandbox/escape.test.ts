/**
 * The sandbox is the boundary, not the command guard: each bypass style that got past the guard
 * (issue 8) runs a payload that tries to write outside the workspace, read the data folder's
 * secret and connect to a loopback TCP server this test runs. Inside sandbox-runtime (bubblewrap,
 * no network namespace) all three fail.
 *
 * three, so a passing sandbox run proves confinement, not a broken payload. The sandboxed runs go
 * through the production spawn path with the command guard bypassed (sandbox-runtime's wrap,
 * wrapCommand + spawnCapped), and through run_command itself (guard + sandbox).
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandWrapRequest, SandboxInfo } from '../../electron/sandbox/commandSandbox.js';
import { NO_COMMAND_SANDBOX_SETTINGS, probeSandbox, wrapCommand } from '../../electron/sandbox/commandSandbox.js';
import { buildCommandEnv } from '../../electron/tools/commandEnv.js';
import { createRunCommandTool } from '../../electron/tools/runCommand.js';
import { spawnCapped } from '../../electron/tools/spawnCapped.js';

const sandbox: SandboxInfo = await probeSandbox();
const skipReason = sandbox.kind === 'bwrap' ? undefined : `needs a working bubblewrap: ${sandbox.detail}`;
if (skipReason) console.warn(`[sandbox escape tests skipped] ${skipReason}`);

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, program);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The dynamic loader /bin/sh asks for (its ELF PT_INTERP), e.g. /lib64/ld-linux-x86-64.so.2. */
function loaderOf(binary: string): string | undefined {
  const fd = openSync(realpathSync(binary), 'r');
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined; // 64-bit little-endian ELF only
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    const ph = Buffer.alloc(phentsize);
    for (let i = 0; i < phnum; i++) {
      readSync(fd, ph, 0, phentsize, phoff + i * phentsize);
      if (ph.readUInt32LE(0) !== 3) continue; // PT_INTERP
      const name = Buffer.alloc(Number(ph.readBigUInt64LE(32)));
      readSync(fd, name, 0, name.length, Number(ph.readBigUInt64LE(8)));
      return name.toString('utf8').replace(/\0+$/, '');
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

let base: string;
let workspace: string;
let dataDir: string;
let outsideDir: string;
let server: Server;
let port: number;
let connections = 0;
const SECRET = `mh-secret-${process.pid}-${Date.now().toString(36)}`;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  // Not under /tmp (a private tmpfs in the sandbox): the data folder's own mask must do the hiding.
  base = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mh-escape-')));
  workspace = join(base, 'workspace');
  dataDir = join(base, 'data');
  outsideDir = join(base, 'outside');
  for (const dir of [workspace, dataDir, outsideDir]) mkdirSync(dir);
  writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ token: SECRET }), { mode: 0o600 });
  connections = 0;
  return () => rmSync(base, { recursive: true, force: true });
});

/** Outside targets: one beside the workspace, one in the host's /tmp. */
function targets(style: string): string[] {
  return [join(outsideDir, `pwned-${style}`), join(tmpdir(), `mh-escape-${process.pid}-${style}`)];
}

/**
 * The payload, as a shell script in the workspace: write outside, unmount the masks (root could),
 * read the secret, connect out. perl opens the socket (dash has no /dev/tcp).
 */
function writePayload(style: string): string {
  const script = join(workspace, `payload-${style}.sh`);
  const lines = [
    ...targets(style).map((t) => `echo pwned > '${t}'`),
    `umount '${dataDir}' 2>/dev/null; umount /tmp 2>/dev/null`,
    `cat '${join(dataDir, 'secrets.json')}'`,
    `perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => ${port}, Proto => "tcp", Timeout => 5) ? print "CONNECTED\\n" : print "NO-NETWORK\\n"'`,
    'echo payload-done',
  ];
  writeFileSync(script, `${lines.join('\n')}\n`, { mode: 0o755 });
  return script;
}

type Style = { name: string; argv: (script: string) => string[]; needs?: string[] };

const loader = loaderOf('/bin/sh');
const STYLES: Style[] = [
  { name: 'ld-linux', argv: (script) => [loader ?? '/nonexistent-loader', '/bin/sh', '-c', `. '${script}'`] },
  {
    name: 'perl-system',
    argv: (script) => ['perl', '-e', `system("/bin/sh", "-c", ". '${script}'")`],
    needs: ['perl'],
  },
  { name: 'git-alias', argv: (script) => ['git', '-c', `alias.x=!sh '${script}'`, 'x'], needs: ['git'] },
  { name: 'sg', argv: (script) => ['sg', 'root', '-c', `sh '${script}'`], needs: ['sg'] },
  {
    name: 'strace',
    argv: (script) => ['strace', '-f', '-o', '/dev/null', 'sh', '-c', `. '${script}'`],
    needs: ['strace'],
  },
  { name: 'sh-script', argv: (script) => ['sh', script] },
  { name: 'renamed-sh', argv: (script) => [join(workspace, 'notashell'), '-c', `. '${script}'`] },
];

function missing(style: Style): string | undefined {
  if (style.name === 'ld-linux' && !loader)
    return 'the loader of /bin/sh could not be read (not a 64-bit little-endian ELF)';
  if (style.name === 'sg' && process.getuid?.() !== 0)
    return 'sg root needs to run as root (the control could not succeed otherwise)';
  const absent = (style.needs ?? []).filter((p) => !onPath(p));
  return absent.length ? `${absent.join(', ')} is not installed` : undefined;
}

function prepare(style: Style): string[] {
  const script = writePayload(style.name);
  if (style.name === 'renamed-sh') {
    copyFileSync('/bin/sh', join(workspace, 'notashell'));
    chmodSync(join(workspace, 'notashell'), 0o755);
  }
  return style.argv(script);
}

const env = () => buildCommandEnv(process.env);
const limits = { timeoutMs: 20_000, killGraceMs: 500, maxOutputBytes: 64 * 1024 };

/** The sandbox layer alone (no command guard): the library's wrap, spawned as run_command spawns it. */
async function runWrapped(request: Omit<CommandWrapRequest, 'settings'>) {
  const wrapped = await wrapCommand({ ...request, settings: NO_COMMAND_SANDBOX_SETTINGS });
  try {
    return await spawnCapped(
      { file: wrapped.file, args: wrapped.args, cwd: request.cwd, env: { ...request.env } },
      limits,
    );
  } finally {
    wrapped.release();
  }
}

function cleanTargets(style: string): void {
  for (const target of targets(style)) rmSync(target, { force: true });
}

describe.skipIf(skipReason !== undefined)('inside bubblewrap, every bypass style is confined', () => {
  for (const style of STYLES) {
    it(`${style.name}: no write outside the workspace, no data-folder read, no network`, async (context) => {
      const why = missing(style);
      if (why) {
        console.warn(`[${style.name}] skipped: ${why}`);
        context.skip();
        return;
      }
      const argv = prepare(style);

      // Control: unsandboxed, the payload escapes in all three ways.
      const control = await spawnCapped(
        { file: argv[0] ?? '', args: argv.slice(1), cwd: workspace, env: env() },
        limits,
      );
      const controlOut = control.stdout.text() + control.stderr.text();
      expect(controlOut, 'the payload itself works').toContain('payload-done');
      expect(controlOut).toContain(SECRET);
      expect(controlOut).toContain('CONNECTED');
      for (const target of targets(style.name)) expect(existsSync(target), target).toBe(true);
      expect(connections).toBe(1);
      cleanTargets(style.name);
      connections = 0;

      try {
        // The sandbox layer alone, the command guard bypassed.
        const result = await runWrapped({ argv, cwd: workspace, env: env(), roots: [workspace], excluded: [dataDir] });
        const out = result.stdout.text() + result.stderr.text();
        expect(out, out).toContain('payload-done'); // it ran to the end, inside
        expect(out).not.toContain(SECRET);
        expect(out).toContain('NO-NETWORK');
        for (const target of targets(style.name)) expect(existsSync(target), target).toBe(false);
        expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toContain(SECRET); // untouched

        // And through run_command: the guard may refuse first; if it lets the command run, the sandbox holds.
        const tool = createRunCommandTool({ roots: [workspace], excluded: [dataDir], sandbox });
        const viaTool = await tool.run({ argv });
        const text = JSON.stringify(viaTool);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('CONNECTED');
        if (!viaTool.isError || !text.includes('command_refused')) expect(text).toContain('payload-done');
        for (const target of targets(style.name)) expect(existsSync(target), target).toBe(false);
        expect(connections).toBe(0);
      } finally {
        cleanTargets(style.name);
      }
    });
  }

  it('the workspace is writable and the command runs in it; the home folder is hidden and read-only', async () => {
    const tool = createRunCommandTool({ roots: [workspace], excluded: [dataDir], sandbox });
    const probe = join(process.env.HOME ?? '/root', `mh-probe-${process.pid}`);
    const script = `echo made > inside.txt; pwd; ls -A "$HOME" | wc -l; touch '${probe}' 2>/dev/null; echo done`;
    writeFileSync(join(workspace, 'w.sh'), script);
    const result = await tool.run({ argv: ['sh', 'w.sh'] });
    const s = result.structuredContent as { stdout: string; sandbox: string };
    expect(s.sandbox).toBe('bwrap');
    expect(readFileSync(join(workspace, 'inside.txt'), 'utf8')).toBe('made\n');
    const [pwd, homeEntries] = s.stdout.split('\n');
    expect(pwd).toBe(workspace);
    expect(Number(homeEntries)).toBe(0);
    expect(s.stdout).toContain('done');
    // Home is an empty stand-in inside: nothing written there reaches the host's.
    expect(existsSync(probe)).toBe(false);
  });

  it('a workspace inside the home folder stays writable while the rest of home is hidden', async () => {
    const home = join(base, 'home');
    const inner = join(home, 'MiniHarness', 'workspace');
    mkdirSync(inner, { recursive: true });
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519'), SECRET);
    const argv = [
      'sh',
      '-c',
      `cat '${join(home, '.ssh', 'id_ed25519')}'; ls -A '${home}'; echo ok > made.txt; echo x > '${join(home, 'pwned')}'`,
    ];
    const result = await runWrapped({
      argv,
      cwd: inner,
      env: { ...env(), HOME: home },
      roots: [inner],
      excluded: [dataDir],
    });
    const out = result.stdout.text() + result.stderr.text();
    expect(out).not.toContain(SECRET);
    expect(result.stdout.text()).toContain('MiniHarness'); // only the path down to the workspace exists in the masked home
    expect(result.stdout.text()).not.toContain('.ssh');
    expect(readFileSync(join(inner, 'made.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(home, 'pwned'))).toBe(false);
  });

  it('a timeout stops everything the sandboxed command started', async () => {
    const marker = `mh-sleeper-${process.pid}-${Date.now()}`;
    const tool = createRunCommandTool({ roots: [workspace], sandbox, killGraceMs: 300 });
    // A shell and a child shell that would wait for a minute, both carrying the marker in their command lines.
    writeFileSync(join(workspace, 'sleeper.sh'), `sh -c 'sleep 60; true' child-$1 &\nsleep 60; true\n`);
    const running = tool.run({ argv: ['sh', 'sleeper.sh', marker], timeoutMs: 1500 });
    expect((await waitForProcesses(marker, 2)).length, 'both shells were running').toBeGreaterThanOrEqual(2);
    const timed = await running;
    expect(timed.structuredContent).toMatchObject({ timedOut: true });
    // No process on the host still runs with the marker in its command line.
    const survivors = await waitForNoProcess(marker);
    expect(survivors).toEqual([]);
  });
});

function processesWith(marker: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        const state = readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
        return cmdline.includes(marker) && state !== 'Z';
      } catch {
        return false;
      }
    });
}

/** Polls until at least `count` host processes carry the marker (or 5 s). */
async function waitForProcesses(marker: string, count: number): Promise<string[]> {
  const until = Date.now() + 5000;
  let found = processesWith(marker);
  while (found.length < count && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    found = processesWith(marker);
  }
  return found;
}

/** Host processes whose command line holds `marker`, polled until none is left (or 5 s). */
async function waitForNoProcess(marker: string): Promise<string[]> {
  const scan = () => processesWith(marker);
  const until = Date.now() + 5000;
  let left = scan();
  while (left.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = scan();
  }
  return left;
}
