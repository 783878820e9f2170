/**
 * BoundFs: the check and the use are bound together. Each test checks a path, then swaps a
 * folder on the way for a symlink leading outside (what a racing process does between the two
 * steps), then uses the checked path: opening it again by path would read, list or write
 * outside; BoundFs must refuse and touch nothing outside. Both bindings are exercised; the
 * descriptor one only where /proc/self/fd exists.
 */
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BindingStrategy } from '../../electron/security/boundFs.js';
import { BoundFs, defaultBindingStrategy } from '../../electron/security/boundFs.js';
import { ParentFolderMissingError } from '../../electron/security/errors.js';
import { HardLinkedFileError, PathChangedError, PathExcludedError } from '../../electron/security/errors.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mh-bound-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'd', 'sub'), { recursive: true });
  mkdirSync(join(outside, 'sub'), { recursive: true });
  writeFileSync(join(root, 'd', 'sub', 'file.txt'), 'inside');
  writeFileSync(join(outside, 'sub', 'file.txt'), 'OUTSIDE SECRET');
  writeFileSync(join(outside, 'sub', 'outside-only.txt'), 'OUTSIDE SECRET');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** What the racing process does: `d` is parked and a symlink to the outside folder takes its name. */
function swapForSymlink(): void {
  renameSync(join(root, 'd'), join(root, 'parked'));
  symlinkSync(outside, join(root, 'd'));
}

const outsideEntries = (): string[] => readdirSync(join(outside, 'sub')).sort();

const descriptorAvailable = defaultBindingStrategy() === 'descriptor';
const strategies: BindingStrategy[] = descriptorAvailable ? ['descriptor', 'walk'] : ['walk'];

it('the strongest binding is chosen by default (descriptor on Linux)', () => {
  expect(new BoundFs({ roots: [root] }).strategy).toBe(process.platform === 'linux' ? 'descriptor' : 'walk');
});

describe.each(strategies)('BoundFs (%s binding)', (strategy) => {
  const bound = (excluded: string[] = []): BoundFs => new BoundFs({ roots: [root], excluded, strategy });
  // The descriptor binding sees where the open landed; the walk sees a symlink on the way.
  const reason = strategy === 'descriptor' ? 'outside_roots' : 'moved';

  it('reads the checked file, and refuses once a folder on the way became a symlink', async () => {
    const fs = bound();
    const opened = await fs.openFile(await fs.check('d/sub/file.txt', { mustExist: true }));
    expect(await opened.handle.readFile('utf8')).toBe('inside');
    await opened.handle.close();

    const checked = await fs.check('d/sub/file.txt', { mustExist: true });
    swapForSymlink();
    const error = await fs.openFile(checked).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PathChangedError);
    expect(error).toMatchObject({ code: 'path_changed', reason });
  });

  it('lists the checked folder, and refuses (without calling back) once it leads outside', async () => {
    const fs = bound();
    const names = await fs.withDirectory(await fs.check('d/sub', { mustExist: true }), async (view) =>
      readdir(view.path),
    );
    expect(names).toEqual(['file.txt']);

    const checked = await fs.check('d/sub', { mustExist: true });
    swapForSymlink();
    let listed: string[] | undefined;
    await expect(
      fs.withDirectory(checked, async (view) => {
        listed = await readdir(view.path);
      }),
    ).rejects.toMatchObject({ code: 'path_changed', reason });
    expect(listed).toBeUndefined();
  });

  it('writes into the checked folder, and creates nothing outside once it leads outside', async () => {
    const fs = bound();
    await fs.writeFile(await fs.check('d/sub/new.txt', { forWrite: true }), 'fresh');
    expect(readFileSync(join(root, 'd', 'sub', 'new.txt'), 'utf8')).toBe('fresh');

    const plain = await fs.check('d/sub/escaped.txt', { forWrite: true });
    const deep = await fs.check('d/sub/x/y/escaped.txt', { forWrite: true });
    const replacing = await fs.check('d/sub/file.txt', { forWrite: true });
    swapForSymlink();
    for (const checked of [plain, deep, replacing]) {
      await expect(fs.writeFile(checked, 'pwned', { createDirs: true })).rejects.toMatchObject({
        code: 'path_changed',
        reason,
      });
    }
    expect(outsideEntries()).toEqual(['file.txt', 'outside-only.txt']);
    expect(readFileSync(join(outside, 'sub', 'file.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });

  it('creates missing folders one by one inside, and needs createDirs for them', async () => {
    const fs = bound();
    const checked = await fs.check('d/a/b/c.txt', { forWrite: true });
    await expect(fs.writeFile(checked, 'x')).rejects.toBeInstanceOf(ParentFolderMissingError);
    expect(existsSync(join(root, 'd', 'a'))).toBe(false);
    expect(await fs.writeFile(checked, 'x', { createDirs: true })).toEqual({
      real: join(root, 'd', 'a', 'b', 'c.txt'),
      created: true,
    });
    expect(readFileSync(join(root, 'd', 'a', 'b', 'c.txt'), 'utf8')).toBe('x');
  });

  it('replaces atomically, keeps the mode, and leaves no temporary file when the commit is refused', async () => {
    const fs = bound();
    const target = join(root, 'd', 'sub', 'file.txt');
    chmodSync(target, 0o640);
    expect(await fs.writeFile(await fs.check('d/sub/file.txt', { forWrite: true }), 'replaced')).toEqual({
      real: target,
      created: false,
    });
    expect(readFileSync(target, 'utf8')).toBe('replaced');
    expect(statSync(target).mode & 0o777).toBe(0o640);

    const refusal = new Error('stop before commit');
    await expect(
      fs.writeFile(await fs.check('d/sub/file.txt', { forWrite: true }), 'never', {
        beforeCommit: () => {
          throw refusal;
        },
      }),
    ).rejects.toBe(refusal);
    expect(readFileSync(target, 'utf8')).toBe('replaced');
    expect(readdirSync(join(root, 'd', 'sub'))).toEqual(['file.txt']);
  });

  it('refuses to read or replace a file with a hard link (here: to an outside file)', async () => {
    const fs = bound();
    linkSync(join(outside, 'sub', 'file.txt'), join(root, 'd', 'linked.txt'));
    const read = await fs.openFile(await fs.check('d/linked.txt', { mustExist: true })).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(HardLinkedFileError);
    expect(read).toMatchObject({ code: 'hard_linked_file', links: 2 });
    await expect(fs.writeFile(await fs.check('d/linked.txt', { forWrite: true }), 'pwned')).rejects.toBeInstanceOf(
      HardLinkedFileError,
    );
    expect(readFileSync(join(outside, 'sub', 'file.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });

  it('excluded folders are refused at the check, and left out of listings', async () => {
    const data = join(root, 'd', 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'secrets.json'), '{}');
    const fs = bound([data]);
    await expect(fs.check('d/data/secrets.json')).rejects.toBeInstanceOf(PathExcludedError);
    await expect(fs.check('d/data')).rejects.toBeInstanceOf(PathExcludedError);
    await expect(fs.check('d/data/new.txt', { forWrite: true })).rejects.toBeInstanceOf(PathExcludedError);
    const names = await fs.withDirectory(await fs.check('d', { mustExist: true }), async (view) =>
      (await readdir(view.path)).filter((n) => !view.isExcluded(n)),
    );
    expect(names).toEqual(['sub']);
  });
});

describe.skipIf(!descriptorAvailable)('BoundFs descriptor binding', () => {
  it('refuses an open that lands in an excluded folder through a swapped folder', async () => {
    const data = join(root, 'data');
    mkdirSync(join(data, 'sub'), { recursive: true });
    writeFileSync(join(data, 'sub', 'file.txt'), 'DATA SECRET');
    const fs = new BoundFs({ roots: [root], excluded: [data], strategy: 'descriptor' });
    const checked = await fs.check('d/sub/file.txt', { mustExist: true });
    renameSync(join(root, 'd'), join(root, 'parked'));
    symlinkSync(data, join(root, 'd'));
    await expect(fs.openFile(checked)).rejects.toMatchObject({ code: 'path_changed', reason: 'excluded' });
  });

  it('refuses what is no longer at the checked path, even inside the roots', async () => {
    const fs = new BoundFs({ roots: [root], strategy: 'descriptor' });
    const checked = await fs.check('d/sub/file.txt', { mustExist: true });
    // The folder moves and a symlink to its new place takes its name: the open lands inside,
    // but on another path than the one checked.
    renameSync(join(root, 'd'), join(root, 'e'));
    symlinkSync(join(root, 'e'), join(root, 'd'));
    await expect(fs.openFile(checked)).rejects.toMatchObject({ code: 'path_changed', reason: 'moved' });
  });
});

it('the descriptor binding cannot be forced where /proc/self/fd is missing', () => {
  if (descriptorAvailable) expect(new BoundFs({ roots: [root], strategy: 'descriptor' }).strategy).toBe('descriptor');
  else expect(() => new BoundFs({ roots: [root], strategy: 'descriptor' })).toThrow(/proc/);
});
