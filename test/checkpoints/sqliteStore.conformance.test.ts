import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteCheckpointStore, sqliteCheckpointStorage } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { Database } from '../../electron/storage/database.js';
import type { Clock } from '../../electron/storage/clock.js';
import type { ConformanceSubject } from './conformance.js';
import { LEASE_MS, describeCheckpointStoreConformance } from './conformance.js';
import { tempDir } from './tempDir.js';

/** Fixture rows straight into the table: completed, one per ms, every 10th a tool error. */
function seedHistory(db: Database, sessionId: string, count: number, t0: number): void {
  const insert = db.prepare(
    `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, result_json,
       is_error, trace_id, created_at, updated_at)
     VALUES (?, ?, 'u1', 'write_file', 'fs', 'completed', 'h', '{}', ?, ?, 't', ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const isError = i % 10 === 0;
      const result = JSON.stringify({ content: [{ type: 'text', text: `r${i}` }], isError });
      insert.run(sessionId, `h${i}`, result, Number(isError), t0 + i, t0 + i);
    }
  })();
}

function subjectOn(db: Database, clock: Clock, close: () => void, file?: string): ConformanceSubject {
  const sqlite = new SqliteCheckpointStore(db, { clock, leaseMs: LEASE_MS, heartbeat: false });
  return {
    store: sqliteCheckpointStorage(sqlite),
    grouped: sqlite.grouped,
    ...(file
      ? {
          reopen: async () => {
            const other = openAppDatabase(file);
            const store = sqliteCheckpointStorage(new SqliteCheckpointStore(other, { clock, leaseMs: LEASE_MS }));
            return { store, close: async () => void other.close() };
          },
        }
      : {}),
    // At rest: the file and its WAL as bytes, when there is a file; the table's every column in any case.
    storedText: async () =>
      [
        JSON.stringify(db.prepare('SELECT * FROM checkpoints').all()),
        ...(file ? [file, `${file}-wal`].filter(existsSync).map((path) => readFileSync(path).toString('latin1')) : []),
      ].join('\n'),
    seedHistory: async (sessionId, count, t0) => seedHistory(db, sessionId, count, t0),
    close,
  };
}

describeCheckpointStoreConformance('SqliteCheckpointStore on a file', (clock) => {
  const scratch = tempDir();
  const file = join(scratch.dir, 'harness.db');
  const db = openAppDatabase(file);
  return subjectOn(
    db,
    clock,
    () => {
      db.close();
      scratch.cleanup();
    },
    file,
  );
});

describeCheckpointStoreConformance('SqliteCheckpointStore in memory', (clock) => {
  const db = openAppDatabase(':memory:');
  return subjectOn(db, clock, () => db.close());
});
