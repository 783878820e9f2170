/**
 * A server's argv crosses sandbox-runtime's inner shell exactly (issue 29): the library runs a
 * command *string*, so every word is quoted (shellQuote.ts). Proven with a real sandboxed
 * process that prints the argv it received, with arguments a shell would otherwise expand,
 * split or run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { execCommandLine, ShellQuoteError } from '../../electron/sandbox/shellQuote.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

const PRINTER = join(PROJECT_ROOT, 'test', 'doubles', 'argv-printer.mjs');

const scratch = scratchDir('mh-argv-');
afterAll(() => scratch.cleanup());
const dataDir = join(scratch.dir, 'data');
/** Where a command substitution that ran would leave its mark: the sandboxed server's own (writable) folder. */
const MARK = join(dataDir, 'sandbox', 'argv', 'pwned');
mkdirSync(dirname(MARK), { recursive: true });

const HOSTILE = [
  'two words',
  "it's",
  "'",
  "'\"'\"'",
  '"double"',
  '$HOME',
  '${PATH}',
  `$(touch ${MARK})`,
  `\`touch ${MARK}\``,
  `'; touch ${MARK}; '`,
  '`id`',
  'line one\nline two',
  '\ttab\r\n',
  'héllo ☃ 𝄞 مرحبا',
  '',
  ' ',
  '*',
  '~',
  '!x',
  '\\',
  '\\n',
  ';exit 3',
  '&& false',
  '| cat',
  '> /tmp/out',
  '#comment',
  '-e',
  '--',
  'a=b',
  '=ls',
];

function run(file: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('execCommandLine', () => {
  it('any POSIX shell parses it back into exactly the argv (no sandbox: the quoting alone)', () => {
    for (const shell of ['/bin/sh', '/bin/bash']) {
      const result = spawnSync(shell, ['-c', execCommandLine([process.execPath, PRINTER, ...HOSTILE])], {
        encoding: 'utf8',
      });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(HOSTILE);
    }
    expect(existsSync(MARK)).toBe(false);
  });

  it('refuses what no shell word can carry, with a code', () => {
    expect(() => execCommandLine(['/bin/echo', 'a\0b'])).toThrow(ShellQuoteError);
    expect(() => execCommandLine([])).toThrow(expect.objectContaining({ code: 'empty_command' }));
    expect(() => execCommandLine(['-c'])).toThrow(expect.objectContaining({ code: 'option_as_command' }));
    expect(() => execCommandLine(['/bin/true'], { 'BAD NAME': 'x' })).toThrow(
      expect.objectContaining({ code: 'bad_variable_name' }),
    );
  });
});

describe.runIf(process.platform === 'linux')('through a real sandbox-runtime wrap', () => {
  const sandboxes = new ServerSandboxes({ dataDir, home: join(scratch.dir, 'home') });

  it('the sandboxed program receives exactly the hostile arguments, and nothing ran', async () => {
    const wrapped = await sandboxes.wrap(
      {
        id: 'argv',
        command: process.execPath,
        args: [PRINTER, ...HOSTILE],
        roots: [],
        sandbox: { read: [], denyRead: [], write: [], hosts: [] },
      },
      { PATH: process.env.PATH ?? '' },
    );
    try {
      // The library's command is a shell string: its outer program is the shell, never the server.
      expect(wrapped.command).toBe('/bin/sh');
      const result = await run(wrapped.command, wrapped.args);
      expect(result.code, result.err).toBe(0);
      expect(JSON.parse(result.out)).toEqual(HOSTILE);
      expect(existsSync(MARK)).toBe(false);
    } finally {
      wrapped.release();
    }
  });

  it('a command name found on PATH runs as the file found, with its arguments intact', async () => {
    const wrapped = await sandboxes.wrap(
      {
        id: 'argv',
        command: 'node',
        args: [PRINTER, "a 'b' $c"],
        roots: [],
        sandbox: { read: [], denyRead: [], write: [], hosts: [] },
      },
      { PATH: `/nonexistent:${join(process.execPath, '..')}` },
    );
    try {
      const result = await run(wrapped.command, wrapped.args);
      expect(JSON.parse(result.out)).toEqual(["a 'b' $c"]);
    } finally {
      wrapped.release();
    }
  });

  it('a NUL in an argument is refused with a code before anything runs', async () => {
    await expect(
      sandboxes.wrap(
        {
          id: 'argv',
          command: process.execPath,
          args: ['a\0b'],
          roots: [],
          sandbox: { read: [], denyRead: [], write: [], hosts: [] },
        },
        { PATH: process.env.PATH ?? '' },
      ),
    ).rejects.toMatchObject({ reason: 'argument_unquotable' });
  });
});
