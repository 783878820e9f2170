/**
 * run_command inside sandbox-runtime (issue 29): the call's argv reaches the program exactly,
 * whatever it holds; a Node installed under the home folder runs (its own folder is readable)
 * while the rest of home stays hidden; a program in a folder the sandbox hides is refused with a
 * code naming the folder; the hosts and folders listed in Settings are what a command may reach
 * and write, set through the real core; a refused connection is an event on the call's own
 * trace. Where bubblewrap is missing, commands are said to run unsandboxed, with the reason as a
 * code (and every call asks: test/sandbox/mustAsk.test.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalView, CallOutcome, SettingsView } from '../../shared/contract.js';
import type { TraceDetail } from '../../shared/traces.js';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { commandSandboxInfo, probeSandbox } from '../../electron/sandbox/commandSandbox.js';
import { checkPrograms } from '../../electron/sandbox/serverSandbox.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { createRunCommandTool, mustAskReason } from '../../electron/tools/runCommand.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';

const sandbox = await probeSandbox();
const skipReason = sandbox.kind === 'bwrap' ? undefined : `needs sandbox-runtime on Linux: ${sandbox.detail}`;
if (skipReason) console.warn(`[run_command sandbox tests skipped] ${skipReason}`);

/** A loopback TCP server on the host that counts who connected. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.end('HTTP/1.1 204 No Content\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

describe('where bubblewrap is missing', () => {
  it('commands are said to run unsandboxed, with the reason as a code, and every call asks', () => {
    const info = commandSandboxInfo(
      checkPrograms('linux', '/nowhere', () => undefined),
      'linux',
    );
    expect(info).toEqual({
      kind: 'none',
      reason: 'bubblewrap_missing',
      detail: 'bubblewrap (bwrap) is not installed, so commands cannot be confined. Install the "bubblewrap" package.',
    });
    expect(mustAskReason(info)).toMatch(/runs unsandboxed here \(bubblewrap \(bwrap\) is not installed/);
    const noSocat = commandSandboxInfo(
      checkPrograms('linux', '', (name) => (name === 'socat' ? undefined : `/usr/bin/${name}`)),
      'linux',
    );
    expect(noSocat).toMatchObject({ kind: 'none', reason: 'socat_missing' });
    // macOS needs only ripgrep besides its built-in Seatbelt.
    expect(
      commandSandboxInfo(
        checkPrograms('darwin', '', () => '/opt/homebrew/bin/rg'),
        'darwin',
      ),
    ).toMatchObject({
      kind: 'sandbox-exec',
    });
    expect(
      commandSandboxInfo(
        checkPrograms('darwin', '', () => undefined),
        'darwin',
      ),
    ).toMatchObject({
      kind: 'none',
      reason: 'ripgrep_missing',
    });
    expect(commandSandboxInfo(checkPrograms('win32'), 'win32')).toMatchObject({
      kind: 'none',
      reason: 'windows_per_server_grants',
    });
  });
});

describe.skipIf(skipReason !== undefined)('run_command in sandbox-runtime', () => {
  const scratch = scratchDir('mh-cmd-sandbox-');
  const base = realpathSync(scratch.dir);
  const workspace = join(base, 'workspace');
  const dataDir = join(base, 'data');
  const home = join(base, 'home');
  const SECRET = `mh-home-secret-${randomUUID()}`;
  afterAll(() => scratch.cleanup());
  beforeAll(() => {
    for (const folder of [workspace, dataDir, join(home, '.ssh')]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), SECRET);
  });
  afterEach(() => vi.unstubAllEnvs());

  it('gives the program exactly its argv: quotes, $(), backticks, newlines, globs and ; stay words', async () => {
    const printer = join(workspace, 'argv.cjs');
    writeFileSync(printer, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
    writeFileSync(join(workspace, 'glob-match.txt'), '');
    const hostile = [
      "it's",
      '"double" \\back\\slash',
      '$(touch pwned-dollar)',
      '`touch pwned-backtick`',
      'line one\nline two; touch pwned-semicolon',
      '*.txt',
      '; touch pwned-separate',
      '$HOME ${PATH} $0',
      '| cat > pwned-pipe',
      '',
      ' leading and trailing ',
      'naïve — 名前 🙂',
      "'; exec touch pwned-quote; '",
    ];
    const tool = createRunCommandTool({ roots: [workspace], excluded: [dataDir], sandbox });
    const result = await tool.run({ argv: [process.execPath, printer, ...hostile] });
    const out = result.structuredContent as { stdout: string; stderr: string; sandbox: string; exitCode: number };
    expect(out.stderr).toBe('');
    expect(out.sandbox).toBe('bwrap');
    expect(JSON.parse(out.stdout)).toEqual(hostile);
    for (const name of [
      'pwned-dollar',
      'pwned-backtick',
      'pwned-semicolon',
      'pwned-separate',
      'pwned-pipe',
      'pwned-quote',
    ])
      expect(existsSync(join(workspace, name)), name).toBe(false);
  });

  it('runs a Node installed under the home folder (its folder is readable); the rest of home stays hidden', async () => {
    const bin = join(home, '.nvm', 'versions', 'node', 'v24.0.0', 'bin');
    mkdirSync(bin, { recursive: true });
    // The real file under home (an nvm install), not a link out of it.
    try {
      linkSync(realpathSync(process.execPath), join(bin, 'node'));
    } catch {
      copyFileSync(realpathSync(process.execPath), join(bin, 'node'));
      chmodSync(join(bin, 'node'), 0o755);
    }
    vi.stubEnv('HOME', home);
    vi.stubEnv('PATH', `${bin}:/usr/bin:/bin`);
    const tool = createRunCommandTool({ roots: [workspace], excluded: [dataDir], sandbox });
    const version = await tool.run({ argv: ['node', '-e', 'process.stdout.write(process.version)'] });
    expect(version.structuredContent).toMatchObject({ exitCode: 0, stdout: process.version, sandbox: 'bwrap' });

    const key = join(home, '.ssh', 'id_ed25519');
    const peek = await tool.run({
      argv: [
        'node',
        '-e',
        `try { console.log(require('fs').readFileSync(${JSON.stringify(key)}, 'utf8')) } catch (e) { console.log(e.code) }`,
      ],
    });
    expect(peek.structuredContent).toMatchObject({ exitCode: 0, stdout: 'ENOENT\n' });
    expect(JSON.stringify(peek)).not.toContain(SECRET);
  });

  it('a program in a folder the sandbox hides is refused by code, naming the sandbox and the folder', async () => {
    const program = join(dataDir, 'bin', 'helper');
    mkdirSync(join(dataDir, 'bin'), { recursive: true });
    writeFileSync(program, '#!/bin/sh\necho ran\n', { mode: 0o755 });
    const result = await createRunCommandTool({ roots: [workspace], excluded: [dataDir], sandbox }).run({
      argv: [program],
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: 'command_hidden_by_sandbox',
        message: `The program "${program}" is in "${dataDir}", which run_command's sandbox hides; it was not run.`,
        details: { hiddenBySandbox: { program, folder: dataDir, sandbox: 'bwrap' } },
      },
    });
  });

  describe('through the core: Settings decide hosts and folders; a refusal is on the call’s trace', () => {
    let core: Core;
    let allowed: Awaited<ReturnType<typeof listener>>;
    let forbidden: Awaited<ReturnType<typeof listener>>;
    const appData = join(base, 'app-data');
    const appWorkspace = join(base, 'app-workspace');
    const extra = join(base, 'extra-writable');
    const notListed = join(base, 'not-listed');

    beforeAll(async () => {
      for (const folder of [extra, notListed]) mkdirSync(folder, { recursive: true });
      allowed = await listener();
      forbidden = await listener();
      core = await buildCore({
        mode: 'browser',
        dataDir: appData,
        workspaceDir: appWorkspace,
        secrets: new FileSecretStore(join(appData, 'secrets.json')),
        config: openConfConfigStore(appData),
        version: '0.0.0-test',
      });
    });
    afterAll(async () => {
      await core.close();
      allowed.server.close();
      forbidden.server.close();
    });

    async function call(argv: string[]): Promise<{ outcome: CallOutcome; trace: TraceDetail }> {
      const seen: ApprovalView[] = [];
      const off = core.onEvent((event, payload) => {
        if (event === 'approval.requested') seen.push(payload as ApprovalView);
      });
      const reply = core.dispatch('tools.call', {
        name: 'run_command',
        serverId: 'local',
        args: { argv },
        callId: `call-${randomUUID()}`,
      });
      await waitFor(() => seen.length > 0, 20_000);
      await core.dispatch('approvals.answer', { requestId: seen[0]!.requestId, answer: 'allow-once' });
      const answer = await reply;
      off();
      if (!answer.ok) throw new Error(answer.error.message);
      const outcome = answer.result as CallOutcome;
      const trace = await core.dispatch('traces.get', { traceId: outcome.traceId });
      if (!trace.ok) throw new Error(trace.error.message);
      return { outcome, trace: trace.result as TraceDetail };
    }

    it('refuses a host or folder entry that is not one, and changes nothing', async () => {
      const answer = await core.dispatch('settings.setCommandSandbox', {
        read: ['relative/path'],
        write: [],
        hosts: ['*'],
      });
      expect(answer).toMatchObject({ ok: false });
      const view = await core.dispatch('settings.get', {});
      expect((view.ok ? (view.result as SettingsView) : undefined)?.commandSandbox).toEqual({
        read: [],
        write: [],
        hosts: [],
      });
    });

    it('reaches only the listed host, writes only the listed folder, and records the refused host on the call', async () => {
      const set = await core.dispatch('settings.setCommandSandbox', {
        read: [],
        write: [extra],
        hosts: [`127.0.0.1:${allowed.port}`],
      });
      expect(set).toMatchObject({ ok: true, result: { commandSandbox: { hosts: [`127.0.0.1:${allowed.port}`] } } });

      // curl through the sandbox's proxy (its environment names it), as a program that honours proxies does.
      const curl = (port: number) =>
        `env -u no_proxy -u NO_PROXY curl -s -o /dev/null -w '%{http_connect}\\n' -p -x "$HTTP_PROXY" http://127.0.0.1:${port}/`;
      writeFileSync(
        join(appWorkspace, 'reach.sh'),
        [
          curl(allowed.port),
          curl(forbidden.port),
          `echo listed > '${join(extra, 'made.txt')}' && echo wrote-listed`,
          `echo other > '${join(notListed, 'made.txt')}' 2>/dev/null || echo not-listed-refused`,
        ].join('\n') + '\n',
      );
      const { outcome, trace } = await call(['sh', 'reach.sh']);
      const out = outcome.result.structuredContent as { stdout: string; hosts: string[] };
      expect(out.stdout.split('\n')).toEqual(['200', '403', 'wrote-listed', 'not-listed-refused', '']);
      expect(out.hosts).toEqual([`127.0.0.1:${allowed.port}`]);
      expect(allowed.connections()).toBe(1);
      expect(forbidden.connections()).toBe(0);
      expect(readFileSync(join(extra, 'made.txt'), 'utf8')).toBe('listed\n');
      expect(existsSync(join(notListed, 'made.txt'))).toBe(false);

      const refusals = trace.events.filter((e) => e.type === 'sandbox_violation');
      expect(refusals.map((e) => e.data)).toEqual([
        { line: `deny network-outbound 127.0.0.1:${forbidden.port} (host is not on the allow list)` },
      ]);
      // Inside the attempt that ran the command.
      const types = trace.events.map((e) => e.type);
      expect(types.indexOf('sandbox_violation')).toBeGreaterThan(types.indexOf('attempt_started'));
      expect(types.indexOf('sandbox_violation')).toBeLessThan(types.indexOf('attempt_finished'));

      // Another call, refused nothing, has no such event: refusals are filed under the call's own wrap id.
      writeFileSync(join(appWorkspace, 'quiet.sh'), 'echo quiet\n');
      const quiet = await call(['sh', 'quiet.sh']);
      expect(quiet.outcome.result.structuredContent).toMatchObject({ stdout: 'quiet\n' });
      expect(quiet.trace.events.filter((e) => e.type === 'sandbox_violation')).toEqual([]);
    });
  });
});
