/**
 * Figures for issue 19 (attack finding 5): what `PRAGMA quick_check` at open costs as the
 * database grows. The app's own opener (openAppDatabaseWithReport) over files of growing size —
 * the history table filled with rows the size of ordinary tool results — and the time of the
 * check alone on a fresh connection, cold (first open after writing) and warm (the page cache hot).
 *
 * Prints one line per size, then one JSON line. Run: npm run bench:db-check
 * Env: BENCH_DB_MIB ("16,128,512": the sizes to measure, in MiB).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openAppDatabase, openAppDatabaseWithReport } from '../electron/core/database.js';

const SIZES = (process.env.BENCH_DB_MIB ?? '16,128,512').split(',').map(Number);
const MiB = 1024 * 1024;
const ROW_BYTES = 16 * 1024;

function fill(file: string, mib: number): void {
  const db = openAppDatabase(file);
  db.exec('CREATE TABLE IF NOT EXISTS bench_rows (x BLOB)');
  const insert = db.prepare('INSERT INTO bench_rows VALUES (randomblob(?))');
  const rows = Math.ceil((mib * MiB) / ROW_BYTES);
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(ROW_BYTES);
  })();
  db.close();
}

function timeCheck(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true });
  const started = performance.now();
  const verdict = db.pragma('quick_check(1)', { simple: true }) as unknown;
  const ms = performance.now() - started;
  db.close();
  if (verdict !== 'ok') throw new Error(`quick_check: ${String(verdict)}`);
  return ms;
}

function main(): void {
  const figures: { mib: number; openMs: number; checkMs: number }[] = [];
  for (const mib of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'mh-bench-quickcheck-'));
    try {
      const file = join(dir, 'miniharness.db');
      fill(file, mib);
      const started = performance.now();
      const { db, damaged } = openAppDatabaseWithReport(file);
      const openMs = performance.now() - started;
      db.close();
      if (damaged) throw new Error('the bench database was reported damaged');
      const checkMs = timeCheck(file);
      const actual = statSync(file).size / MiB;
      figures.push({ mib: Math.round(actual), openMs: Math.round(openMs), checkMs: Math.round(checkMs) });
      console.log(
        `${actual.toFixed(0).padStart(6)} MiB  open (with quick_check) ${openMs.toFixed(0).padStart(6)} ms   quick_check alone ${checkMs.toFixed(0).padStart(6)} ms`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify({ bench: 'databaseQuickCheck', figures }));
}

main();
