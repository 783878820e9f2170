import { join } from 'node:path';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { describeCheckpointStoreConformance } from './conformance.js';
import { tempDir } from './tempDir.js';

describeCheckpointStoreConformance('SqliteCheckpointStore on a file', (clock) => {
  const scratch = tempDir();
  const db = openAppDatabase(join(scratch.dir, 'harness.db'));
  return {
    store: new SqliteCheckpointStore(db, { clock }),
    close: () => {
      db.close();
      scratch.cleanup();
    },
  };
});

describeCheckpointStoreConformance('SqliteCheckpointStore in memory', (clock) => {
  const db = openAppDatabase(':memory:');
  return { store: new SqliteCheckpointStore(db, { clock }), close: () => db.close() };
});
