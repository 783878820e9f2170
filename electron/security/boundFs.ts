/**
 * File access bound to what the path guard checked.
 *
 * `checkPath` proves a path's real location is inside a root; reopening that path afterwards
 * would walk it again, and a folder on the way swapped for a symlink in between would lead the
 * open outside (`O_NOFOLLOW` guards only the last component). So every operation here opens
 * first and then verifies the object it actually got:
 *
 * - `descriptor` (Linux, where `/proc/self/fd` exists): the kernel's own path of the open
 *   descriptor (`readlink /proc/self/fd/N`) must be inside a root, not excluded, and equal to
 *   the checked path; its `fstat` identity (dev + inode) must match the checked path. Folders are
 *   listed and written *through* the verified descriptor (`/proc/self/fd/N/name` resolves from
 *   the descriptor's folder, not from a path that may have changed), so what is listed, created,
 *   renamed or removed is in the folder that was verified. This is a guarantee.
 * - `walk` (macOS, Windows, Linux without /proc): after the open, every component below the root
 *   is `lstat`ed (none may be a symlink) and the descriptor's identity is compared with a fresh
 *   `lstat` of the checked path; folders are compared before and after use. Node has no
 *   `openat`, so a swap timed between those checks can still slip through: best effort only.
 *
 * Hard links cannot be confined by path: a regular file with more than one link may share its
 * content with a file outside the roots, and finding every link means searching whole disks. So
 * such files are neither read nor replaced (`HardLinkedFileError`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readlinkSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, mkdir, open, readlink, rename, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { HardLinkedFileError, InvalidPathError, ParentFolderMissingError, PathChangedError } from './errors.js';
import type { CheckedPath, ValidatePathOptions } from './pathGuard.js';
import { checkPath, isExcluded, isInsideRoots } from './pathGuard.js';

export type BindingStrategy = 'descriptor' | 'walk';

export interface BoundFsOptions {
  /** The folders that may be used. */
  roots: readonly string[];
  /** Absolute folders never read, listed or written, even inside a root (with all they contain). */
  excluded?: readonly string[];
  /** Defaults to the strongest one the platform offers; `walk` can be forced to measure the fallback. */
  strategy?: BindingStrategy;
}

/** A regular file (or other object) opened for reading, verified to be the checked one. */
export interface OpenedFile {
  handle: FileHandle;
  real: string;
  isFile: boolean;
  size: number;
}

/** A verified folder, valid only inside the `withDirectory` callback. */
export interface DirectoryView {
  real: string;
  /** A path naming the verified folder itself: `/proc/self/fd/N` (descriptor) or the real path (walk). */
  path: string;
  /** Whether an entry of this folder is (inside) an excluded folder; listings leave those out. */
  isExcluded(name: string): boolean;
}

export interface BoundWriteOptions {
  /** Create missing folders below the nearest existing one (each verified as it is made). */
  createDirs?: boolean;
  /** Called after the content is written and synced, just before it replaces the target; may throw to abort. */
  beforeCommit?: () => void;
}

export interface BoundWriteOutcome {
  real: string;
  created: boolean;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** O_NONBLOCK: opening a FIFO returns at once (it is then refused as not a file) instead of hanging. */
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

let detected: BindingStrategy | undefined;

/** `descriptor` when the kernel reports a descriptor's path through /proc/self/fd, else `walk`. */
export function defaultBindingStrategy(): BindingStrategy {
  if (detected === undefined) {
    detected = 'walk';
    if (process.platform === 'linux') {
      try {
        const fd = openSync('/', O_RDONLY | O_DIRECTORY);
        try {
          if (readlinkSync(`/proc/self/fd/${fd}`) === '/') detected = 'descriptor';
        } finally {
          closeSync(fd);
        }
      } catch {
        // No /proc (a minimal container): the walk is what remains.
      }
    }
  }
  return detected;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

function sameObject(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/** A temporary name beside the target, short enough for any file-system name limit. */
function tempNameFor(name: string): string {
  return `.${name.slice(0, 100)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

export class BoundFs {
  readonly strategy: BindingStrategy;
  private readonly roots: string[];
  private readonly excluded: string[];

  constructor(options: BoundFsOptions) {
    this.roots = [...options.roots];
    this.excluded = [...(options.excluded ?? [])];
    this.strategy = options.strategy ?? defaultBindingStrategy();
    if (this.strategy === 'descriptor' && defaultBindingStrategy() !== 'descriptor') {
      throw new Error('The descriptor binding needs /proc/self/fd (Linux); use the walk binding here.');
    }
  }

  /** The path guard's check, with this instance's roots and excluded folders. No side effect. */
  check(requested: string, options: Omit<ValidatePathOptions, 'excluded'> = {}): Promise<CheckedPath> {
    return checkPath(requested, this.roots, { ...options, excluded: this.excluded });
  }

  /** Opens a checked path for reading and verifies the descriptor; the caller closes `handle`. */
  async openFile(checked: CheckedPath): Promise<OpenedFile> {
    const handle = await this.open(checked, checked.real, READ_FLAGS);
    try {
      const info = await this.verifyOpened(handle, checked.real, checked);
      if (info.isFile() && info.nlink > 1n) throw new HardLinkedFileError(checked.requested, Number(info.nlink));
      return { handle, real: checked.real, isFile: info.isFile(), size: Number(info.size) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Runs `use` on the verified folder; entries must be read through `view.path`. */
  async withDirectory<T>(checked: CheckedPath, use: (view: DirectoryView) => Promise<T>): Promise<T> {
    const view = (path: string): DirectoryView => ({
      real: checked.real,
      path,
      isExcluded: (name) => isExcluded(join(checked.real, name), checked.excluded),
    });
    if (this.strategy === 'descriptor') {
      const handle = await this.open(checked, checked.real, DIR_FLAGS);
      try {
        await this.verifyOpened(handle, checked.real, checked);
        return await use(view(fdPath(handle)));
      } finally {
        await handle.close();
      }
    }
    // Walk: the folder must be the same object (and reached without symlinks) before and after.
    const before = await this.folderIdentity(checked.real, checked);
    const result = await use(view(checked.real));
    const after = await this.folderIdentity(checked.real, checked);
    if (!sameObject(before, after)) throw new PathChangedError(checked.requested, 'moved');
    return result;
  }

  /**
   * Writes `content` to a checked path (from `check(…, { forWrite: true })`) atomically: a
   * temporary file created exclusively in the verified folder, synced, then renamed over the
   * target. Readers see the old or the new content, never a mix.
   */
  async writeFile(checked: CheckedPath, content: string, options: BoundWriteOptions = {}): Promise<BoundWriteOutcome> {
    return this.strategy === 'descriptor'
      ? this.writeThroughDescriptor(checked, content, options)
      : this.writeByWalk(checked, content, options);
  }

  // ---- descriptor strategy -------------------------------------------------------------------

  private async writeThroughDescriptor(
    checked: CheckedPath,
    content: string,
    options: BoundWriteOptions,
  ): Promise<BoundWriteOutcome> {
    const name = basename(checked.real);
    const folderReal = dirname(checked.real);
    const folder = await this.openParentFolder(checked, folderReal, options.createDirs ?? false);
    try {
      const folderPath = fdPath(folder);
      const existing = await this.replaceable(join(folderPath, name), checked);
      const tempName = tempNameFor(name);
      const tempPath = join(folderPath, tempName);
      const temp = await this.open(checked, tempPath, CREATE_FLAGS, existing ? Number(existing.mode & 0o7777n) : 0o666);
      let committed = false;
      try {
        await this.verifyOpened(temp, join(folderReal, tempName), checked);
        await this.fill(temp, content, existing);
        options.beforeCommit?.();
        await rename(tempPath, join(folderPath, name));
        committed = true;
        // Makes the rename durable; some file systems refuse to sync a folder, which loses nothing here.
        await folder.sync().catch(() => undefined);
      } finally {
        await temp.close();
        if (!committed) await unlink(tempPath).catch(() => undefined);
      }
      return { real: checked.real, created: existing === undefined };
    } finally {
      await folder.close();
    }
  }

  /** Opens and verifies the folder to write in, creating missing ones through verified descriptors. */
  private async openParentFolder(checked: CheckedPath, folderReal: string, createDirs: boolean): Promise<FileHandle> {
    const missing: string[] = [];
    let current = folderReal;
    let handle: FileHandle;
    for (;;) {
      try {
        handle = await this.open(checked, current, DIR_FLAGS);
        break;
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT' || current === checked.root || !isInsideRoots(current, [checked.root]))
          throw error;
        if (!createDirs) throw new ParentFolderMissingError(checked.requested);
        missing.unshift(basename(current));
        current = dirname(current);
      }
    }
    try {
      await this.verifyOpened(handle, current, checked);
      for (const part of missing) {
        const at = join(fdPath(handle), part);
        await mkdir(at).catch((error: unknown) => {
          if (errnoCode(error) !== 'EEXIST') throw error;
        });
        const next = await this.open(checked, at, DIR_FLAGS);
        await handle.close();
        handle = next;
        current = join(current, part);
        await this.verifyOpened(handle, current, checked);
      }
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  // ---- walk strategy (best effort) -----------------------------------------------------------

  private async writeByWalk(
    checked: CheckedPath,
    content: string,
    options: BoundWriteOptions,
  ): Promise<BoundWriteOutcome> {
    const folderReal = dirname(checked.real);
    await this.makeFoldersByWalk(checked, folderReal, options.createDirs ?? false);
    const folder = await this.folderIdentity(folderReal, checked);
    const existing = await this.replaceable(checked.real, checked);
    const tempPath = join(folderReal, tempNameFor(basename(checked.real)));
    const temp = await this.open(checked, tempPath, CREATE_FLAGS, existing ? Number(existing.mode & 0o7777n) : 0o666);
    let committed = false;
    try {
      await this.verifyOpened(temp, tempPath, checked);
      await this.fill(temp, content, existing);
      options.beforeCommit?.();
      if (!sameObject(folder, await this.folderIdentity(folderReal, checked)))
        throw new PathChangedError(checked.requested, 'moved');
      await rename(tempPath, checked.real);
      committed = true;
    } finally {
      await temp.close();
      if (!committed) await unlink(tempPath).catch(() => undefined);
    }
    return { real: checked.real, created: existing === undefined };
  }

  private async makeFoldersByWalk(checked: CheckedPath, folderReal: string, createDirs: boolean): Promise<void> {
    const parts = relative(checked.root, folderReal).split(sep).filter(Boolean);
    let current = checked.root;
    for (const part of parts) {
      current = join(current, part);
      let info = await lstat(current).catch((error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (info === undefined) {
        if (!createDirs) throw new ParentFolderMissingError(checked.requested);
        await mkdir(current).catch((error: unknown) => {
          if (errnoCode(error) !== 'EEXIST') throw error;
        });
        info = await lstat(current);
      }
      if (info.isSymbolicLink()) throw new PathChangedError(checked.requested, 'moved');
      if (!info.isDirectory()) throw errno('ENOTDIR', `${current} is not a folder`);
    }
  }

  /** A folder's identity, reached through no symlink. */
  private async folderIdentity(real: string, checked: CheckedPath): Promise<BigIntStats> {
    await this.assertNoSymlinkBelowRoot(real, checked);
    const info = await lstat(real, { bigint: true });
    if (info.isSymbolicLink()) throw new PathChangedError(checked.requested, 'moved');
    if (!info.isDirectory()) throw errno('ENOTDIR', `${real} is not a folder`);
    return info;
  }

  private async assertNoSymlinkBelowRoot(real: string, checked: CheckedPath): Promise<void> {
    let current = checked.root;
    for (const part of relative(checked.root, real).split(sep).filter(Boolean)) {
      current = join(current, part);
      const info = await lstat(current).catch(() => undefined);
      if (info === undefined || info.isSymbolicLink()) throw new PathChangedError(checked.requested, 'moved');
    }
  }

  // ---- shared ---------------------------------------------------------------------------------

  private async open(checked: CheckedPath, path: string, flags: number, mode?: number): Promise<FileHandle> {
    try {
      return await open(path, flags, mode);
    } catch (error) {
      // With O_NOFOLLOW, a last component that became a symlink after the check fails with ELOOP,
      // or with ENOTDIR when O_DIRECTORY is set too (which also means "a file, not a folder").
      const code = errnoCode(error);
      if (code === 'ELOOP') throw new PathChangedError(checked.requested, 'moved');
      if (code === 'ENOTDIR' && (flags & O_DIRECTORY) !== 0) {
        // Unless a file (not a folder) is there now, it was a symlink or missing at the open: it changed.
        const now = await lstat(path).then(
          (info) => (info.isSymbolicLink() || info.isDirectory() ? 'changed' : 'file'),
          (lstatError: unknown) => (errnoCode(lstatError) === 'ENOENT' ? 'changed' : 'file'),
        );
        if (now === 'changed') throw new PathChangedError(checked.requested, 'moved');
      }
      // The check found it, so it disappeared since (a folder on the way moved, or it was deleted).
      if (code === 'ENOENT' && path === checked.real && checked.exists)
        throw new PathChangedError(checked.requested, 'moved');
      throw error;
    }
  }

  /**
   * The descriptor must name the checked object: confined by the kernel's own path (descriptor)
   * or by a symlink-free walk (walk), and with the dev + inode of a fresh lstat of `expected`.
   */
  private async verifyOpened(handle: FileHandle, expected: string, checked: CheckedPath): Promise<BigIntStats> {
    const info = await handle.stat({ bigint: true });
    if (this.strategy === 'descriptor') {
      const opened = await readlink(fdPath(handle));
      // Not an absolute path: a pseudo-file or an object unreachable from our root.
      if (!isAbsolute(opened)) throw new PathChangedError(checked.requested, 'moved');
      if (!isInsideRoots(opened, checked.roots)) throw new PathChangedError(checked.requested, 'outside_roots');
      if (isExcluded(opened, checked.excluded)) throw new PathChangedError(checked.requested, 'excluded');
      if (opened !== expected) throw new PathChangedError(checked.requested, 'moved');
    } else {
      await this.assertNoSymlinkBelowRoot(expected, checked);
    }
    const now = await lstat(expected, { bigint: true }).catch(() => undefined);
    // nlink 0: deleted since it was opened.
    if (now === undefined || !sameObject(now, info) || info.nlink === 0n)
      throw new PathChangedError(checked.requested, 'moved');
    return info;
  }

  /** What a write would replace at `path` (undefined: nothing); refuses what it must not replace. */
  private async replaceable(path: string, checked: CheckedPath): Promise<BigIntStats | undefined> {
    const info = await lstat(path, { bigint: true }).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (info === undefined) return undefined;
    // The check resolved every symlink, so one here was swapped in since.
    if (info.isSymbolicLink()) throw new PathChangedError(checked.requested, 'moved');
    if (info.isDirectory()) throw new InvalidPathError(checked.requested, 'it is a folder; name a file to write.');
    if (info.nlink > 1n) throw new HardLinkedFileError(checked.requested, Number(info.nlink));
    return info;
  }

  private async fill(temp: FileHandle, content: string, replaced: BigIntStats | undefined): Promise<void> {
    // The umask applied at creation; a replaced file keeps its exact mode.
    if (replaced) await temp.chmod(Number(replaced.mode & 0o7777n));
    await temp.writeFile(content, 'utf8');
    await temp.sync();
  }
}
