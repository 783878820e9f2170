/**
 * The tool pins' SQLite store (PinStore, pins.ts), in the app's database beside the checkpoints:
 * pins and the calls they let through share one file and one fate.
 */
import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import type { Migration } from '../storage/migrate.js';
import { requireMigrations } from '../storage/migrate.js';
import type { PinStore, ToolPin } from './pins.js';

const PINS_V1: Omit<Migration, 'version'> = {
  name: 'security: create the tool_pins table (the definition each tool was approved with)',
  up(db) {
    db.exec(`
      CREATE TABLE tool_pins (
        server_uid TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        definition_json TEXT NOT NULL,
        pinned_at INTEGER NOT NULL,
        pinned_by TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('allow-once', 'allow-session', 'allow-always', 'rule')),
        PRIMARY KEY (server_uid, tool_name)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};

/** The pins' migrations, at their place in the database file's one history (storage/migrate.ts). */
export const PIN_MIGRATIONS: readonly Migration[] = [{ version: 12, ...PINS_V1 }];

const DefinitionSchema = z.object({
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  annotations: z.unknown(),
  ui: z.unknown(),
  execution: z.unknown(),
});

export interface PinRow {
  server_uid: string;
  tool_name: string;
  server_id: string;
  hash: string;
  definition_json: string;
  pinned_at: number;
  pinned_by: string;
  decision: ToolPin['decision'];
}

/** Rows as pins (both stores): a row whose definition cannot be read back is left out — that tool asks as if never approved. */
export function pinsFromRows(rows: readonly PinRow[]): ToolPin[] {
  return rows.flatMap((row) => {
    let parsed;
    try {
      parsed = DefinitionSchema.safeParse(JSON.parse(row.definition_json));
    } catch {
      return [];
    }
    if (!parsed.success) return [];
    return [
      {
        serverUid: row.server_uid,
        serverId: row.server_id,
        toolName: row.tool_name,
        hash: row.hash,
        definition: parsed.data,
        pinnedAt: row.pinned_at,
        pinnedBy: row.pinned_by,
        decision: row.decision,
      },
    ];
  });
}

export class SqlitePinStore implements PinStore {
  private readonly upsert;
  private readonly remove;
  private readonly removeServer;

  constructor(private readonly db: Database) {
    requireMigrations(db, 'tool pins', PIN_MIGRATIONS);
    this.upsert = db.prepare(
      `INSERT INTO tool_pins (server_uid, tool_name, server_id, hash, definition_json, pinned_at, pinned_by, decision)
       VALUES (@server_uid, @tool_name, @server_id, @hash, @definition_json, @pinned_at, @pinned_by, @decision)
       ON CONFLICT (server_uid, tool_name) DO UPDATE SET server_id = excluded.server_id, hash = excluded.hash,
         definition_json = excluded.definition_json, pinned_at = excluded.pinned_at, pinned_by = excluded.pinned_by,
         decision = excluded.decision`,
    );
    this.remove = db.prepare('DELETE FROM tool_pins WHERE server_uid = ? AND tool_name = ?');
    this.removeServer = db.prepare('DELETE FROM tool_pins WHERE server_uid = ?');
  }

  load(): ToolPin[] {
    return pinsFromRows(this.db.prepare<[], PinRow>('SELECT * FROM tool_pins').all());
  }

  put(pin: ToolPin): void {
    this.upsert.run({
      server_uid: pin.serverUid,
      tool_name: pin.toolName,
      server_id: pin.serverId,
      hash: pin.hash,
      definition_json: JSON.stringify(pin.definition),
      pinned_at: pin.pinnedAt,
      pinned_by: pin.pinnedBy,
      decision: pin.decision,
    });
  }

  delete(serverUid: string, toolName: string): boolean {
    return this.remove.run(serverUid, toolName).changes > 0;
  }

  deleteServer(serverUid: string): number {
    return this.removeServer.run(serverUid).changes;
  }
}
