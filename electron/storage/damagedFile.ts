/**
 * Damaged files, the same way for every store and both hosts: a file the app cannot read is
 * moved aside — `<file>.corrupt-<ISO timestamp>[-n]`, so the user keeps the bytes to recover by
 * hand — the app starts without its content, and a `file_damaged` warning (shared/contract/warnings.ts)
 * tells the GUI which file it was, where it went and what was lost. Never a silent loss.
 *
 * Unreadable (EACCES, EIO) is not damaged: moving such a file could hide a permissions problem,
 * so callers throw instead.
 */
import { existsSync, renameSync } from 'node:fs';
import type { DamagedFileLoss, FileDamagedWarning } from '../../shared/contract/warnings.js';

export type DamageProblem = FileDamagedWarning['problem'];

/** The suffix's timestamp: an ISO time that is a valid file name everywhere. */
function stampOf(now: () => number): string {
  return new Date(now()).toISOString().replace(/[:.]/g, '-');
}

/** A free `<file>.corrupt-<stamp>[-n]` name. */
function asideName(file: string, now: () => number = Date.now): string {
  const stamp = stampOf(now);
  let target = `${file}.corrupt-${stamp}`;
  for (let n = 1; existsSync(target); n++) target = `${file}.corrupt-${stamp}-${n}`;
  return target;
}

/**
 * Moves `file` aside and returns where it went, or undefined when it was already gone (another
 * loader moved it first). Companions (a database's `-wal` / `-shm`) follow under the same name.
 * Synchronous on purpose: two callers in one process cannot interleave between the name check
 * and the rename.
 */
export function moveAside(
  file: string,
  options: { now?: () => number; companions?: readonly string[] } = {},
): string | undefined {
  const target = asideName(file, options.now);
  try {
    renameSync(file, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  for (const suffix of options.companions ?? []) {
    try {
      renameSync(`${file}${suffix}`, `${target}${suffix}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return target;
}

/** Moves a damaged file aside and describes it for the GUI. */
export function setAside(
  file: string,
  lost: DamagedFileLoss,
  problem: DamageProblem,
  options: { now?: () => number; companions?: readonly string[] } = {},
): FileDamagedWarning | undefined {
  const movedTo = moveAside(file, options);
  return movedTo === undefined ? undefined : { code: 'file_damaged', file, movedTo, lost, problem };
}

/** Classifies a JSON file's text: undefined when it parses, else why it is damaged. */
export function jsonProblem(text: string): { value: unknown } | { problem: DamageProblem } {
  if (text.length === 0) return { problem: 'empty' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    // The parser's message quotes the file's text (which may hold anything): keep only the kind.
    return { problem: 'not_json' };
  }
}

/** Words for a damaged-file warning, for logs and the Electron shell's console. */
export function describeDamage(warning: FileDamagedWarning): string {
  return `The file "${warning.file}" was damaged (${warning.problem.replace('_', ' ')}) and was moved to "${warning.movedTo}"; the app started without its ${LOSS_WORDS[warning.lost]}.`;
}

const LOSS_WORDS: Record<DamagedFileLoss, string> = {
  settings: 'saved servers and settings',
  history: 'call history and traces',
  permission_rules: 'saved permission rules',
  secrets: 'saved secrets',
  tool_cache: 'cached tool list',
};
