/**
 * Benchmark: the file tools against a concurrent symlink swap (issue 8, section 3).
 *
 * A child process swaps a folder on the way to the target for a symlink to an outside folder and
 * back in a tight loop, while read_file, list_directory and write_file run many times. Each row
 * counts tries, escapes (outside content read or listed, anything created outside), and how the
 * race showed: tries that began in the symlink state, opens that landed outside and were refused
 * by the descriptor check, refusals by the path check. Both bindings are measured: `descriptor`
 * (Linux /proc/self/fd, a guarantee) and `walk` (the best-effort fallback for macOS/Windows).
 *
 * Prints a table, then one JSON line. Run: npx tsx bench/file-race.ts
 * (BENCH_READ_TRIES / BENCH_LIST_TRIES / BENCH_WRITE_TRIES change the counts.)
 */
import { cpus } from 'node:os';
import type { BindingStrategy } from '../electron/security/boundFs.js';
import { defaultBindingStrategy } from '../electron/security/boundFs.js';
import type { RaceFigures, RaceKind } from '../test/tools/fileRace.js';
import { runFileRace } from '../test/tools/fileRace.js';

const TRIES: Record<RaceKind, number> = {
  read: Number(process.env.BENCH_READ_TRIES ?? 600),
  list: Number(process.env.BENCH_LIST_TRIES ?? 300),
  write: Number(process.env.BENCH_WRITE_TRIES ?? 300),
};

async function main(): Promise<void> {
  const bindings: BindingStrategy[] = defaultBindingStrategy() === 'descriptor' ? ['descriptor', 'walk'] : ['walk'];
  const all: RaceFigures[] = [];
  for (const binding of bindings) {
    for (const kind of ['read', 'list', 'write'] as const)
      all.push(await runFileRace({ kind, tries: TRIES[kind], binding }));
  }
  const rows: string[][] = [
    [
      'binding',
      'tool',
      'tries',
      'escapes',
      'ok',
      'linked at start',
      'caught outside',
      'refused at check',
      'moved',
      'other',
      'swaps',
    ],
  ];
  for (const f of all) {
    const other =
      Object.entries(f.otherErrors)
        .map(([code, n]) => `${code}:${n}`)
        .join(' ') || '0';
    rows.push([
      f.binding,
      f.kind,
      String(f.tries),
      String(f.escapes),
      String(f.ok),
      String(f.linkedAtStart),
      String(f.caughtOutside),
      String(f.refusedAtCheck),
      String(f.changed),
      other,
      String(f.swaps),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
  console.log(
    `(4 calls in flight; ${process.platform}, ${cpus().length} cores; "caught outside" = opens that followed the swapped-in symlink and were refused)`,
  );
  console.log(
    JSON.stringify({
      bench: 'file-race',
      results: all.map((f) => ({
        binding: f.binding,
        kind: f.kind,
        tries: f.tries,
        escapes: f.escapes,
        caught_outside: f.caughtOutside,
        linked_at_start: f.linkedAtStart,
        lost_writes: f.lostWrites,
      })),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
