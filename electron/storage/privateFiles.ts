/**
 * The data folder and every file in it are the user's alone: folders 0700, files 0600. Modes
 * are set explicitly (mkdir/open modes are masked by the umask, and files from older versions
 * may be 0644), so the result does not depend on the umask. No-ops where POSIX modes do not
 * apply (Windows).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` and its missing parents 0700. A folder that already exists is left as it is: it
 * may be a shared one the user named (`--data-dir /tmp/x`), and the files inside are 0600.
 */
export function ensurePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  const top = resolve(first);
  for (let path = resolve(dir); ; path = dirname(path)) {
    chmodQuietly(path, PRIVATE_DIR_MODE);
    if (path === top || dirname(path) === path) break;
  }
}

/** Makes an existing file 0600; a missing file is fine (nothing to protect yet). */
export function makePrivate(file: string): void {
  chmodQuietly(file, PRIVATE_FILE_MODE);
}

function chmodQuietly(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Missing, or not ours to change (a shared folder given as --data-dir): leave it as it is.
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}
