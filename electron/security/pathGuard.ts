/**
 * Confines file access to the configured folders ("roots").
 *
 * A path is allowed when its *real* location — after `..` is collapsed and every symlink is
 * followed — lies inside the real location of a root. So a symlink inside a root that points
 * outside is refused, and a root given through a symlink (macOS /tmp → /private/tmp) still
 * works. A target that does not exist yet (a file about to be written) is located through the
 * real path of its nearest existing ancestor, so a missing file under a symlinked folder that
 * leaves the roots is refused too; a dangling symlink is followed by hand for the same reason.
 *
 * Folders in `excluded` (the app's data folder) are refused even inside a root, with all they
 * contain; they are compared by real path too.
 *
 * Callers must use the returned real path, not the requested one: checking one path and
 * opening another would reopen the gap this closes. This check alone cannot stop a folder on
 * the way being swapped for a symlink between the check and the open: the file tools open
 * through `BoundFs` (boundFs.ts), which verifies what was actually opened.
 */
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  InvalidPathError,
  NoAllowedRootsError,
  PathExcludedError,
  PathNotFoundError,
  PathOutsideRootsError,
} from './errors.js';

export interface ValidatePathOptions {
  /** Refuse a path that does not exist (reads, listings). */
  mustExist?: boolean;
  /** The path will be written: a root itself or an existing folder cannot be the target. */
  forWrite?: boolean;
  /** Absolute folders refused even inside a root, with everything below them. */
  excluded?: readonly string[];
}

/** What a check established: the real path and the real folders it was checked against. */
export interface CheckedPath {
  requested: string;
  real: string;
  exists: boolean;
  /** The real roots; `root` is the one containing `real`. */
  roots: string[];
  root: string;
  /** The excluded folders, real and as given (resolved), so either spelling is refused. */
  excluded: string[];
}

/** Symlink hops followed by hand before giving up (the kernel's limit is 40). */
const MAX_LINK_HOPS = 40;

function isInside(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The real paths of the roots that exist. */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    try {
      out.push(await realpath(resolve(root)));
    } catch {
      // A missing root grants nothing; the others still apply.
    }
  }
  if (out.length === 0) throw new NoAllowedRootsError(roots);
  return out;
}

/** The real path of `abs`, following symlinks, allowing a missing tail. */
async function realLocation(requested: string, abs: string, hops = 0): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ELOOP') throw new InvalidPathError(requested, 'it goes through a symlink loop.');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    // realpath fails on a dangling symlink; follow it by hand so its target is what gets checked.
    const info = await lstat(current).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      if (hops >= MAX_LINK_HOPS) throw new InvalidPathError(requested, 'it goes through too many symlinks.');
      const target = resolve(dirname(current), await readlink(current));
      const inner = await realLocation(requested, target, hops + 1);
      return { real: join(inner.real, ...missing.reverse()), exists: false };
    }
    const parent = dirname(current);
    if (parent === current) return { real: join(current, ...missing.reverse()), exists: false };
    missing.push(basename(current));
    current = parent;
  }
}

/**
 * The excluded folders as real paths (a missing one through its nearest existing ancestor) and
 * as given, so a folder created later, or named through a symlink, is still matched.
 */
async function realExcluded(excluded: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const path of excluded) {
    if (!isAbsolute(path)) throw new Error(`An excluded folder must be an absolute path (got "${path}").`);
    const abs = resolve(path);
    out.add(abs);
    out.add((await realLocation(path, abs)).real);
  }
  return [...out];
}

/** Whether a real path is one of the excluded folders or inside one. */
export function isExcluded(realPath: string, excluded: readonly string[]): boolean {
  return excluded.some((e) => isInside(realPath, e));
}

/**
 * Resolves `requested` (relative paths against the first root) and returns its real path, or
 * throws PathOutsideRootsError / PathExcludedError / InvalidPathError / PathNotFoundError /
 * NoAllowedRootsError.
 */
export async function validatePath(
  requested: string,
  roots: readonly string[],
  options: ValidatePathOptions = {},
): Promise<string> {
  return (await checkPath(requested, roots, options)).real;
}

/** validatePath, returning everything the check established (for BoundFs to verify against). */
export async function checkPath(
  requested: string,
  roots: readonly string[],
  options: ValidatePathOptions = {},
): Promise<CheckedPath> {
  if (typeof requested !== 'string' || requested.length === 0)
    throw new InvalidPathError(String(requested ?? ''), 'it is empty.');
  if (requested.includes('\0')) throw new InvalidPathError(requested, 'it contains a NUL byte.');
  if (roots.length === 0) throw new NoAllowedRootsError(roots);

  const allowed = await realRoots(roots);
  // Relative paths are relative to the first root as configured (resolve collapses `..` here).
  const abs = resolve(resolve(roots[0] ?? '.'), requested);
  const { real, exists } = await realLocation(requested, abs);
  const root = allowed.find((r) => isInside(real, r));
  if (root === undefined) throw new PathOutsideRootsError(requested, roots);
  const excluded = await realExcluded(options.excluded ?? []);
  if (isExcluded(real, excluded)) throw new PathExcludedError(requested);

  // Existence is reported only for paths inside the roots, so it never probes the outside.
  if (options.mustExist && !exists) throw new PathNotFoundError(requested);
  if (options.forWrite) {
    if (allowed.includes(real))
      throw new InvalidPathError(requested, 'it is one of the allowed folders itself; name a file inside it.');
    if (exists && (await stat(real)).isDirectory())
      throw new InvalidPathError(requested, 'it is a folder; name a file to write.');
  }
  return { requested, real, exists, roots: allowed, root, excluded };
}

/** Whether a real path lies inside one of the (already real) roots. */
export function isInsideRoots(realPath: string, roots: readonly string[]): boolean {
  return roots.some((r) => isInside(realPath, r));
}
