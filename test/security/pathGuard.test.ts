import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidPathError,
  NoAllowedRootsError,
  PathExcludedError,
  PathNotFoundError,
  PathOutsideRootsError,
} from '../../electron/security/errors.js';
import { validatePath } from '../../electron/security/pathGuard.js';

let base: string; // real path of the scratch folder
let root: string; // the allowed folder
let outside: string; // a sibling folder that is not allowed

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mh-path-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'sub', 'a.txt'), 'inside');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET CONTENT');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('validatePath inside the roots', () => {
  it('resolves relative paths against the first root', async () => {
    expect(await validatePath('sub/a.txt', [root])).toBe(join(root, 'sub', 'a.txt'));
    expect(await validatePath('.', [root])).toBe(root);
    const other = join(base, 'other');
    mkdirSync(other);
    expect(await validatePath('sub/a.txt', [root, other])).toBe(join(root, 'sub', 'a.txt'));
  });

  it('accepts absolute paths in any root and `..` that stays inside', async () => {
    const other = join(base, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'b.txt'), 'b');
    expect(await validatePath(join(other, 'b.txt'), [root, other])).toBe(join(other, 'b.txt'));
    expect(await validatePath('sub/../sub/a.txt', [root])).toBe(join(root, 'sub', 'a.txt'));
  });

  it('a symlink inside the root pointing inside is followed to its real path', async () => {
    symlinkSync(join(root, 'sub'), join(root, 'alias'));
    expect(await validatePath('alias/a.txt', [root])).toBe(join(root, 'sub', 'a.txt'));
  });

  it('a root given through a symlink works, and results are real paths', async () => {
    const link = join(base, 'root-link');
    symlinkSync(root, link);
    expect(await validatePath('sub/a.txt', [link])).toBe(join(root, 'sub', 'a.txt'));
    expect(await validatePath(join(link, 'sub', 'a.txt'), [link])).toBe(join(root, 'sub', 'a.txt'));
    expect(await validatePath(join(root, 'sub', 'a.txt'), [link])).toBe(join(root, 'sub', 'a.txt'));
    await expect(validatePath(join(outside, 'secret.txt'), [link])).rejects.toBeInstanceOf(PathOutsideRootsError);
  });

  it('a write target that does not exist yet resolves through its nearest existing ancestor', async () => {
    expect(await validatePath('new/deeper/file.txt', [root], { forWrite: true })).toBe(
      join(root, 'new', 'deeper', 'file.txt'),
    );
  });
});

describe('validatePath refusals', () => {
  it('`..` traversal that leaves the roots', async () => {
    for (const p of ['../outside/secret.txt', 'sub/../../outside/secret.txt', '..', '../../../../../../etc/passwd']) {
      await expect(validatePath(p, [root])).rejects.toBeInstanceOf(PathOutsideRootsError);
    }
  });

  it('absolute paths outside, including a sibling sharing the root name as prefix', async () => {
    mkdirSync(`${root}-evil`);
    for (const p of [join(outside, 'secret.txt'), '/etc/passwd', `${root}-evil`, base]) {
      await expect(validatePath(p, [root])).rejects.toBeInstanceOf(PathOutsideRootsError);
    }
  });

  it('a file symlink inside the root pointing outside', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'innocent.txt'));
    await expect(validatePath('innocent.txt', [root])).rejects.toBeInstanceOf(PathOutsideRootsError);
    await expect(validatePath('innocent.txt', [root], { forWrite: true })).rejects.toBeInstanceOf(
      PathOutsideRootsError,
    );
  });

  it('a directory symlink inside the root pointing outside', async () => {
    symlinkSync(outside, join(root, 'escape'));
    await expect(validatePath('escape/secret.txt', [root])).rejects.toBeInstanceOf(PathOutsideRootsError);
    await expect(validatePath('escape', [root])).rejects.toBeInstanceOf(PathOutsideRootsError);
  });

  it('a not-yet-existing write target under a symlinked folder that escapes', async () => {
    symlinkSync(outside, join(root, 'escape'));
    await expect(validatePath('escape/new.txt', [root], { forWrite: true })).rejects.toBeInstanceOf(
      PathOutsideRootsError,
    );
    await expect(validatePath('escape/a/b/new.txt', [root], { forWrite: true })).rejects.toBeInstanceOf(
      PathOutsideRootsError,
    );
  });

  it('a dangling symlink whose target would be created outside', async () => {
    symlinkSync(join(outside, 'created-later.txt'), join(root, 'dangling'));
    await expect(validatePath('dangling', [root], { forWrite: true })).rejects.toBeInstanceOf(PathOutsideRootsError);
    symlinkSync(join(root, 'sub', 'later.txt'), join(root, 'dangling-inside'));
    expect(await validatePath('dangling-inside', [root], { forWrite: true })).toBe(join(root, 'sub', 'later.txt'));
  });

  it('a symlink loop is refused with a clear error', async () => {
    symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
    symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
    await expect(validatePath('loop-a', [root])).rejects.toBeInstanceOf(InvalidPathError);
  });

  it('NUL bytes and empty paths', async () => {
    await expect(validatePath('sub/a.txt\0.png', [root])).rejects.toBeInstanceOf(InvalidPathError);
    await expect(validatePath('', [root])).rejects.toBeInstanceOf(InvalidPathError);
  });

  it('mustExist refuses missing paths inside, but reports outside paths as outside first', async () => {
    await expect(validatePath('missing.txt', [root], { mustExist: true })).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(validatePath(join(outside, 'missing.txt'), [root], { mustExist: true })).rejects.toBeInstanceOf(
      PathOutsideRootsError,
    );
  });

  it('forWrite refuses a root itself and an existing folder', async () => {
    await expect(validatePath('.', [root], { forWrite: true })).rejects.toThrow(/allowed folders itself/);
    await expect(validatePath('sub', [root], { forWrite: true })).rejects.toThrow(/is a folder/);
  });

  it('no roots, or only missing ones', async () => {
    await expect(validatePath('a', [])).rejects.toBeInstanceOf(NoAllowedRootsError);
    await expect(validatePath('a', [join(base, 'nope')])).rejects.toBeInstanceOf(NoAllowedRootsError);
  });

  it('the error names the roots and never the file contents', async () => {
    const error = await validatePath(join(outside, 'secret.txt'), [root]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PathOutsideRootsError);
    const message = (error as Error).message;
    expect(message).toContain(root);
    expect(message).toContain('secret.txt');
    expect(message).not.toContain('TOP SECRET CONTENT');
  });
});

describe('validatePath with excluded folders', () => {
  it('refuses an excluded folder and everything below it, by real path, and nothing else', async () => {
    const data = join(root, 'data');
    mkdirSync(join(data, 'inner'), { recursive: true });
    symlinkSync(data, join(root, 'alias'));
    for (const p of ['data', 'data/inner', 'data/inner/x.txt', 'alias/inner', 'sub/../data']) {
      await expect(validatePath(p, [root], { excluded: [data] })).rejects.toBeInstanceOf(PathExcludedError);
    }
    // A sibling that only shares the name as a prefix is not excluded.
    mkdirSync(join(root, 'data-other'));
    expect(await validatePath('data-other', [root], { excluded: [data] })).toBe(join(root, 'data-other'));
    expect(await validatePath('sub/a.txt', [root], { excluded: [data] })).toBe(join(root, 'sub', 'a.txt'));
  });

  it('an excluded folder given through a symlink, and a root inside an excluded folder', async () => {
    const data = join(root, 'data');
    mkdirSync(data);
    const dataLink = join(base, 'data-link');
    symlinkSync(data, dataLink);
    await expect(validatePath('data/x.txt', [root], { excluded: [dataLink], forWrite: true })).rejects.toBeInstanceOf(
      PathExcludedError,
    );
    await expect(validatePath('sub/a.txt', [root], { excluded: [base] })).rejects.toBeInstanceOf(PathExcludedError);
  });

  it('outside paths are reported as outside first, and the error names no excluded content', async () => {
    const data = join(root, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'secrets.json'), 'TOP SECRET CONTENT');
    await expect(validatePath(join(outside, 'secret.txt'), [root], { excluded: [data] })).rejects.toBeInstanceOf(
      PathOutsideRootsError,
    );
    const error = await validatePath('data/secrets.json', [root], { excluded: [data] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'path_excluded' });
    expect((error as Error).message).not.toContain('TOP SECRET CONTENT');
  });
});
