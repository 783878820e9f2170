/**
 * read_file, list_directory and write_file against a concurrent symlink swap (issue 8, §3).
 *
 * A child process swaps a folder on the way for a symlink to an outside folder and back in a
 * tight loop while each tool runs many times (see fileRace.ts). What is asserted is fixed: no
 * escape, no successful write missing from the inside. How often the race actually hit varies
 * from run to run; it is printed (tries that began in the symlink state, opens that landed
 * outside and were refused), not asserted. bench/file-race.ts runs the same race with more tries
 * and also measures the best-effort walk binding.
 */
import { describe, expect, it } from 'vitest';
import { defaultBindingStrategy } from '../../electron/security/boundFs.js';
import type { RaceKind } from './fileRace.js';
import { runFileRace } from './fileRace.js';

const TRIES: Record<RaceKind, number> = { read: 200, list: 100, write: 100 };

// Only the descriptor binding (Linux /proc/self/fd) guarantees 0 escapes; the walk fallback
// elsewhere is best effort and measured by the bench instead.
describe.skipIf(defaultBindingStrategy() !== 'descriptor')('file tools under a symlink swap race', () => {
  it.each(['read', 'list', 'write'] as const)('%s: 0 escapes', { timeout: 120_000 }, async (kind) => {
    const figures = await runFileRace({ kind, tries: TRIES[kind] });
    console.log(
      `[file race] ${kind}: tries=${figures.tries} escapes=${figures.escapes} ok=${figures.ok} linkedAtStart=${figures.linkedAtStart} ` +
        `caughtOutside=${figures.caughtOutside} refusedAtCheck=${figures.refusedAtCheck} moved=${figures.changed} ` +
        `other=${JSON.stringify(figures.otherErrors)} swaps=${figures.swaps}`,
    );
    expect(figures.swaps).toBeGreaterThan(0); // the attacker really ran during the tries
    expect(figures.escapes).toBe(0);
    expect(figures.lostWrites).toBe(0);
    // Every try ended in an outcome: success inside, or a refusal.
    const others = Object.values(figures.otherErrors).reduce((a, b) => a + b, 0);
    expect(figures.ok + figures.caughtOutside + figures.refusedAtCheck + figures.changed + others).toBe(figures.tries);
  });
});
