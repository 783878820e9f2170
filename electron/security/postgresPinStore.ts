/**
 * The tool pins in PostgreSQL (PinStore, pins.ts), shared by the cores on the database: read
 * whole when the core starts, then kept in memory as ToolPins does. PinStore is synchronous (a pin
 * is taken as its call is let through, on the call path), so a write is handed to a queue and
 * stored a moment later, in order; one that fails is reported (the pin holds in this process, and
 * the tool asks again after a restart — never less safe than no pin). Each stored write is
 * announced on `mh_lists` (kind `pins`); the other cores then `refresh` and take the pins in
 * (core/sharedLists.ts), so a pin approved on one holds on all without restart.
 */
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import type { PinStore, ToolPin } from './pins.js';
import type { PinRow } from './sqlitePinStore.js';
import { pinsFromRows } from './sqlitePinStore.js';
import { announce } from './postgresRuleStore.js';

export const POSTGRES_PIN_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'tool pins: the definition each tool was approved with, by server identity and tool',
    sql: `
      CREATE TABLE tool_pins (
        server_uid text NOT NULL,
        tool_name text NOT NULL,
        server_id text NOT NULL,
        hash text NOT NULL,
        definition_json text NOT NULL,
        pinned_at bigint NOT NULL,
        pinned_by text NOT NULL,
        decision text NOT NULL CHECK (decision IN ('allow-once', 'allow-session', 'allow-always', 'rule')),
        PRIMARY KEY (server_uid, tool_name)
      );
    `,
  },
];

export class PostgresPinStore implements PinStore {
  #tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly pool: PgPool,
    private readonly where: string,
    private pins: ToolPin[],
    private readonly origin: string | undefined,
  ) {}

  /** Reads every pin (the pool has POSTGRES_PIN_MIGRATIONS applied); `origin` names this process in its notices. */
  static async open(pool: PgPool, where: string, origin?: string): Promise<PostgresPinStore> {
    return new PostgresPinStore(pool, where, await readPins(pool, where), origin);
  }

  /**
   * Reads every pin again (another core changed them), once this process's own writes are
   * stored; `load` then gives them. Reads again while writes were queued meanwhile.
   */
  async refresh(): Promise<void> {
    for (;;) {
      const tail = this.#tail;
      await tail;
      const pins = await readPins(this.pool, this.where);
      if (tail !== this.#tail) continue;
      this.pins = pins;
      return;
    }
  }

  load(): ToolPin[] {
    return [...this.pins];
  }

  put(pin: ToolPin): void {
    this.#write(
      `INSERT INTO tool_pins (server_uid, tool_name, server_id, hash, definition_json, pinned_at, pinned_by, decision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (server_uid, tool_name) DO UPDATE SET server_id = EXCLUDED.server_id, hash = EXCLUDED.hash,
         definition_json = EXCLUDED.definition_json, pinned_at = EXCLUDED.pinned_at, pinned_by = EXCLUDED.pinned_by,
         decision = EXCLUDED.decision`,
      [
        pin.serverUid,
        pin.toolName,
        pin.serverId,
        pin.hash,
        JSON.stringify(pin.definition),
        pin.pinnedAt,
        pin.pinnedBy,
        pin.decision,
      ],
    );
    this.pins = [...this.pins.filter((p) => p.serverUid !== pin.serverUid || p.toolName !== pin.toolName), pin];
  }

  /** Whether this process knew the pin (the row is deleted whoever wrote it). */
  delete(serverUid: string, toolName: string): boolean {
    this.#write('DELETE FROM tool_pins WHERE server_uid = $1 AND tool_name = $2', [serverUid, toolName]);
    const before = this.pins.length;
    this.pins = this.pins.filter((p) => p.serverUid !== serverUid || p.toolName !== toolName);
    return this.pins.length < before;
  }

  deleteServer(serverUid: string): number {
    this.#write('DELETE FROM tool_pins WHERE server_uid = $1', [serverUid]);
    const before = this.pins.length;
    this.pins = this.pins.filter((p) => p.serverUid !== serverUid);
    return before - this.pins.length;
  }

  /** Resolves once every write handed over so far is stored (or its failure reported). */
  drain(): Promise<void> {
    return this.#tail;
  }

  #write(sql: string, params: unknown[]): void {
    this.#tail = this.#tail.then(() =>
      this.pool.query(sql, params).then(
        () => (this.origin === undefined ? undefined : announce(this.pool, 'pins', this.origin)),
        (error: unknown) =>
          process.emitWarning(
            `A tool pin could not be stored: ${toStorageError(error, this.where, 'store a tool pin').message}`,
          ),
      ),
    );
  }
}

async function readPins(pool: PgPool, where: string): Promise<ToolPin[]> {
  try {
    return pinsFromRows((await pool.query<PinRow>('SELECT * FROM tool_pins')).rows);
  } catch (error) {
    throw toStorageError(error, where, 'read the tool pins');
  }
}
