/**
 * The database file itself: created 0600 whatever the umask (SQLite gives -wal/-shm the same
 * mode), older 0644 files tightened, and a file that is not a database — 0 bytes, not SQLite,
 * or corrupt behind a valid header — moved aside with its -wal/-shm and reported, never
 * silently replaced. A new file is linked into place complete, so processes starting together
 * share one database and none of them sees a half-made file as damaged.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppDatabase, openAppDatabaseWithReport } from '../../electron/core/database.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

const STAMP = '2031-02-03T04-05-06-007Z';
const now = () => Date.UTC(2031, 1, 3, 4, 5, 6, 7);
const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);
const posix = process.platform !== 'win32';

describe('the database file', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let file: string;
  let umask: number;
  beforeEach(() => {
    scratch = scratchDir();
    file = join(scratch.dir, 'data', 'miniharness.db');
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
    scratch.cleanup();
  });

  it('is created 0600 (with -wal and -shm) in a 0700 folder under umask 000, with no temporary file left', () => {
    const db = openAppDatabase(file);
    db.exec('CREATE TABLE t (x)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    if (posix) {
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`), modeOf(join(scratch.dir, 'data'))]).toEqual([
        '600',
        '600',
        '600',
        '700',
      ]);
    }
    db.close();
    expect(readdirSync(join(scratch.dir, 'data')).filter((n) => n.includes('.new-'))).toEqual([]);
  });

  // File modes are POSIX's: Windows has none to check.
  it.skipIf(!posix)('an older 0644 database and its -wal are made 0600 when opened, data intact', () => {
    const first = openAppDatabase(file);
    first.exec('CREATE TABLE t (x); INSERT INTO t VALUES (42);');
    first.close();
    chmodSync(file, 0o644);
    const { db, damaged } = openAppDatabaseWithReport(file);
    expect(damaged).toBeUndefined();
    expect(db.prepare('SELECT x FROM t').pluck().get()).toBe(42);
    expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(['600', '600', '600']);
    db.close();
  });

  it.each([
    ['0 bytes', Buffer.alloc(0), 'empty'],
    ['not SQLite', Buffer.from('PK\u0003\u0004 a zip file, say'), 'not_sqlite'],
    ['shorter than a header', Buffer.from('SQLite'), 'not_sqlite'],
  ] as const)(
    'a file of %s is moved aside with its -wal/-shm and reported; a new database starts',
    (_label, bytes, problem) => {
      const data = join(scratch.dir, 'data');
      mkdirSync(data, { recursive: true });
      writeFileSync(file, bytes);
      writeFileSync(`${file}-wal`, 'old wal');
      writeFileSync(`${file}-shm`, 'old shm');
      const { db, damaged } = openAppDatabaseWithReport(file, { now });
      const movedTo = `${file}.corrupt-${STAMP}`;
      expect(damaged).toEqual({ code: 'file_damaged', file, movedTo, lost: 'history', problem });
      expect(readFileSync(movedTo)).toEqual(bytes);
      expect(readFileSync(`${movedTo}-wal`, 'utf8')).toBe('old wal');
      expect(readFileSync(`${movedTo}-shm`, 'utf8')).toBe('old shm');
      // The new database works and has the app's schema.
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'checkpoints'").pluck().get()).toBe(1);
      db.close();
    },
  );

  it('a valid header over damaged pages is caught at the first read, moved aside and reported', () => {
    const first = openAppDatabase(file);
    first.close();
    const original = readFileSync(file);
    // Keep the 100-byte header, overwrite the schema page behind it.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(original.length - 100, 0xab), 0, original.length - 100, 100);
    closeSync(fd);
    const damagedBytes = readFileSync(file);
    const { db, damaged } = openAppDatabaseWithReport(file, { now });
    expect(damaged).toMatchObject({ code: 'file_damaged', file, lost: 'history', movedTo: `${file}.corrupt-${STAMP}` });
    expect(['not_sqlite', 'invalid_content']).toContain(damaged?.problem);
    expect(readFileSync(`${file}.corrupt-${STAMP}`)).toEqual(damagedBytes);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'checkpoints'").pluck().get()).toBe(1);
    db.close();
  });

  it('a valid header and schema over a damaged table page is caught at open (quick_check), moved aside and reported', () => {
    const first = openAppDatabase(file);
    first.exec('CREATE TABLE filler (x BLOB)');
    const insert = first.prepare('INSERT INTO filler VALUES (randomblob(3000))');
    for (let i = 0; i < 200; i++) insert.run();
    const pageSize = first.pragma('page_size', { simple: true }) as number;
    first.close();
    // The header and the schema stay intact: only a page of the table filled last (at the end of the file) is overwritten.
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, size - 3 * pageSize);
    closeSync(fd);
    const damagedBytes = readFileSync(file);
    const { db, damaged } = openAppDatabaseWithReport(file, { now });
    expect(damaged).toEqual({
      code: 'file_damaged',
      file,
      lost: 'history',
      movedTo: `${file}.corrupt-${STAMP}`,
      problem: 'invalid_content',
    });
    expect(readFileSync(`${file}.corrupt-${STAMP}`)).toEqual(damagedBytes);
    // The new database is whole: every table reads.
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'filler'").pluck().get()).toBe(0);
    db.close();
  });

  it('a valid database is never moved, whatever its size', () => {
    const first = openAppDatabase(file);
    first.close();
    const { db, damaged } = openAppDatabaseWithReport(file);
    expect(damaged).toBeUndefined();
    db.close();
    expect(readdirSync(join(scratch.dir, 'data')).filter((n) => n.includes('corrupt'))).toEqual([]);
  });

  it('four processes creating the same new database at once share one file: every row lands, nothing is moved aside', async () => {
    const code = `
      import { openAppDatabase } from ${JSON.stringify(join(PROJECT_ROOT, 'electron', 'core', 'database.ts'))};
      const db = openAppDatabase(process.argv[1]);
      db.exec('CREATE TABLE IF NOT EXISTS pids (pid INTEGER)');
      db.prepare('INSERT INTO pids VALUES (?)').run(process.pid);
      db.close();
    `;
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, file], {
            cwd: PROJECT_ROOT,
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('error', reject);
          child.on('close', (status) =>
            status === 0 ? resolve(child.pid ?? 0) : reject(new Error(`child failed (${status}): ${stderr}`)),
          );
        }),
    );
    const pids = await Promise.all(runs);
    const db = openAppDatabase(file);
    expect((db.prepare('SELECT pid FROM pids').pluck().all() as number[]).sort()).toEqual(pids.sort());
    db.close();
    const names = readdirSync(join(scratch.dir, 'data'));
    expect(names.filter((n) => n.includes('corrupt') || n.includes('.new-'))).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});
