/** Words for main's warnings, chosen by code (the contract sends data, not sentences). */
import type { AppWarning, DamagedFileLoss, FileDamagedWarning } from '../../../shared/contract.js';

const LOST: Record<DamagedFileLoss, string> = {
  settings: 'Your saved servers and settings were not loaded; add the servers again or restore the file.',
  history: 'The call history and traces it held are not shown; the app started a new, empty history.',
  permission_rules: 'Your saved permission rules are not in effect; tools use their default levels.',
  secrets: 'The secrets saved in it are gone from the app; enter the servers’ tokens again.',
  tool_cache: 'Only the cached tool list was lost; the tools are fetched from the server again.',
};

const PROBLEM: Record<FileDamagedWarning['problem'], string> = {
  not_json: 'is not valid JSON',
  invalid_content: 'does not hold what the app expects',
  not_sqlite: 'is not a valid SQLite database',
  empty: 'is empty (0 bytes)',
};

/** A stable identity, to dismiss one warning. */
export function warningKey(warning: AppWarning): string {
  switch (warning.code) {
    case 'file_damaged':
      return `file_damaged:${warning.file}:${warning.movedTo}`;
    case 'disk_full':
      return `disk_full:${warning.file}`;
    case 'notice':
      return `notice:${warning.message}`;
  }
}

/** The file name without its folder (the full path is shown as detail). */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

export interface WarningWords {
  title: string;
  text: string;
  /** Where the damaged file's bytes are now. */
  detail?: string;
}

export function warningWords(warning: AppWarning): WarningWords {
  if (warning.code === 'notice') return { title: '', text: warning.message };
  if (warning.code === 'disk_full')
    return {
      title: 'The disk is full: calls cannot record their results.',
      text: 'A call that runs now may act without its result being saved: History then shows it as “result unknown”. Free some space on this disk; this warning goes once a write succeeds again.',
      detail: `Database: ${warning.file}`,
    };
  return {
    title: `${baseName(warning.file)} was damaged and moved aside.`,
    text: `The file ${PROBLEM[warning.problem]}. ${LOST[warning.lost]}`,
    detail: `Kept as ${warning.movedTo}`,
  };
}
