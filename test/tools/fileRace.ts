/**
 * The symlink race against the file tools, shared by the race test and bench/file-race.ts.
 *
 * Inside the root, `d/sub/` holds `file.txt` ("inside") and `inside-only.txt`; outside, a
 * folder of the same shape holds `file.txt` ("OUTSIDE SECRET") and `outside-only.txt`. A child
 * process (test/tools/swapper.mjs) swaps `d` for a symlink to the outside folder and
 * back in a tight loop while the tool runs `tries` times. An escape is outside content returned
 * (read), an outside entry listed (list), or anything created outside (write).
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { NormalizedToolResult } from '../../electron/results/toolResult.js';
import type { BindingStrategy } from '../../electron/security/boundFs.js';
import { defaultBindingStrategy } from '../../electron/security/boundFs.js';
import { createLocalTools } from '../../electron/tools/localTools.js';

const SWAPPER = resolve(dirname(fileURLToPath(import.meta.url)), 'swapper.mjs');
const OUTSIDE_CONTENT = 'OUTSIDE SECRET';
const OUTSIDE_ONLY = 'outside-only.txt';

export type RaceKind = 'read' | 'list' | 'write';

export interface RaceOptions {
  kind: RaceKind;
  tries: number;
  binding?: BindingStrategy;
  /** Tool calls in flight at once (more overlap, more races). Default 4. */
  concurrency?: number;
  /** Each swap state is held for a random 0..holdUs microseconds. Default 1000. */
  holdUs?: number;
}

export interface RaceFigures {
  kind: RaceKind;
  binding: BindingStrategy;
  tries: number;
  /** Outside content returned, outside entries listed, or files created outside. */
  escapes: number;
  /** Succeeded on the inside folder. */
  ok: number;
  /** Tries that began while `d` was the symlink leading outside. */
  linkedAtStart: number;
  /** Refused by the path check (it saw the symlink, or no folder, at check time). */
  refusedAtCheck: number;
  /** The open followed the swapped-in symlink and landed outside; the descriptor check refused it. */
  caughtOutside: number;
  /** Other `path_changed` refusals (the folder moved between check and open). */
  changed: number;
  /** Any other error, by code. */
  otherErrors: Record<string, number>;
  /** Successful writes whose file is not found inside the root afterwards (must be 0). */
  lostWrites: number;
  swaps: number;
  intruders: number;
}

interface Swapper {
  stop(): Promise<{ swaps: number; intruders: number }>;
  kill(): void;
}

async function startSwapper(args: string[], stopFile: string, holdUs: number): Promise<Swapper> {
  const child = spawn(process.execPath, [SWAPPER, ...args, stopFile, String(holdUs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let last = '';
  await new Promise<void>((started, failed) => {
    lines.on('line', (line) => {
      last = line;
      if (line === 'started') started();
    });
    void exited.then((code) => failed(new Error(`the swapper exited (${code}) before it started: ${stderr}`)));
  });
  return {
    async stop() {
      writeFileSync(stopFile, '');
      const code = await exited;
      if (code !== 0) throw new Error(`the swapper failed (exit ${code}): ${stderr}`);
      return JSON.parse(last) as { swaps: number; intruders: number };
    },
    kill: () => child.kill('SIGKILL'),
  };
}

function errorOf(result: NormalizedToolResult): { code: string; reason?: string } | undefined {
  const error = (result.structuredContent as { error?: { code: string; details?: { reason?: string } } } | undefined)
    ?.error;
  return error ? { code: error.code, ...(error.details?.reason ? { reason: error.details.reason } : {}) } : undefined;
}

/** Every name under `dir`, not following symlinks. */
function namesUnder(dir: string, into = new Set<string>()): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    into.add(entry.name);
    if (entry.isDirectory()) namesUnder(join(dir, entry.name), into);
  }
  return into;
}

export async function runFileRace(options: RaceOptions): Promise<RaceFigures> {
  const { kind, tries, concurrency = 4, holdUs = 1000 } = options;
  const binding = options.binding ?? defaultBindingStrategy();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'mh-race-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const swapped = join(root, 'd');
  mkdirSync(join(swapped, 'sub'), { recursive: true });
  mkdirSync(join(outside, 'sub'), { recursive: true });
  writeFileSync(join(swapped, 'sub', 'file.txt'), 'inside');
  writeFileSync(join(swapped, 'sub', 'inside-only.txt'), 'inside');
  writeFileSync(join(outside, 'sub', 'file.txt'), OUTSIDE_CONTENT);
  writeFileSync(join(outside, 'sub', OUTSIDE_ONLY), OUTSIDE_CONTENT);
  const outsideBefore = readdirSync(join(outside, 'sub')).length;

  const tools = new Map(
    createLocalTools({ roots: [root], command: false, fileBinding: binding }).map((t) => [t.name, t]),
  );
  const tool = tools.get(kind === 'read' ? 'read_file' : kind === 'list' ? 'list_directory' : 'write_file')!;
  const writeName = (i: number): string => (i % 2 === 0 ? `w-${i}.txt` : `n-${i}`);
  const argsFor = (i: number): Record<string, unknown> =>
    kind === 'read'
      ? { path: 'd/sub/file.txt' }
      : kind === 'list'
        ? { path: 'd/sub' }
        : {
            path: i % 2 === 0 ? `d/sub/${writeName(i)}` : `d/sub/${writeName(i)}/w.txt`,
            content: `written ${i}`,
            createDirs: true,
          };

  const figures: RaceFigures = {
    kind,
    binding,
    tries,
    escapes: 0,
    ok: 0,
    linkedAtStart: 0,
    refusedAtCheck: 0,
    caughtOutside: 0,
    changed: 0,
    otherErrors: {},
    lostWrites: 0,
    swaps: 0,
    intruders: 0,
  };
  const written: number[] = [];
  const swapper = await startSwapper(
    [swapped, join(root, '.parked'), outside, join(root, '.aside')],
    join(base, 'stop'),
    holdUs,
  );
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < tries) {
        const i = next++;
        if (lstatSync(swapped, { throwIfNoEntry: false })?.isSymbolicLink()) figures.linkedAtStart++;
        const result = await tool.run(argsFor(i));
        const serialized = JSON.stringify(result);
        if (
          (kind === 'read' && serialized.includes(OUTSIDE_CONTENT)) ||
          (kind === 'list' && serialized.includes(OUTSIDE_ONLY))
        ) {
          figures.escapes++;
          continue;
        }
        const error = errorOf(result);
        if (!result.isError) {
          figures.ok++;
          if (kind === 'write') written.push(i);
        } else if (error?.code === 'path_changed') {
          if (error.reason === 'outside_roots') figures.caughtOutside++;
          else figures.changed++;
        } else if (
          error &&
          ['path_outside_roots', 'path_not_found', 'invalid_path', 'parent_missing'].includes(error.code)
        ) {
          figures.refusedAtCheck++;
        } else {
          const code = error?.code ?? 'unknown';
          figures.otherErrors[code] = (figures.otherErrors[code] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    Object.assign(figures, await swapper.stop());
  } catch (error) {
    swapper.kill();
    throw error;
  }

  if (kind === 'write') {
    // Anything new outside is an escape: a named file or folder, or a stray temporary file.
    const outsideNow = readdirSync(join(outside, 'sub'));
    figures.escapes += outsideNow.length - outsideBefore;
    const inside = namesUnder(root);
    figures.lostWrites = written.filter((i) => !inside.has(writeName(i))).length;
  }
  if (!existsSync(join(outside, 'sub', 'file.txt')))
    throw new Error('the outside file vanished: the race harness is broken');
  rmSync(base, { recursive: true, force: true });
  return figures;
}
