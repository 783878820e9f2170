/**
 * The permission rules in PostgreSQL, shared by every MiniHarness on the database (a core started
 * with `--database`): one row holding the whole list, as the JSON file does, with a revision.
 *
 * A save is one statement that writes only over the revision this process read (optimistic
 * concurrency under READ COMMITTED: a concurrent writer's committed row is re-checked against the
 * WHERE, so of two processes saving from the same revision exactly one wins). The loser is told
 * (ChangedElsewhereError) instead of erasing the other's rule; the engine then keeps its rules
 * as they were (it swaps them in only after a save).
 *
 * A save is announced on `mh_lists` (kind `rules`): the other instances read the row again and
 * tell their GUI (core/sharedLists.ts), so a rule saved on one takes effect on all without restart.
 */
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import { ChangedElsewhereError } from '../storage/errors.js';
import { publish } from '../storage/postgres/notify.js';
import type { PermissionRule } from './permissions.js';
import type { PermissionRuleStore } from './permissionStore.js';
import { RULES_FILE_VERSION, RulesFileSchema } from './permissionStore.js';
import { PermissionRulesCorruptError } from './errors.js';
import { describeZodIssues } from './zodIssues.js';

export const POSTGRES_RULE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'permission rules: one row with the whole list and its revision',
    sql: `
      CREATE TABLE permission_rules (
        id smallint PRIMARY KEY CHECK (id = 1),
        revision bigint NOT NULL,
        rules_json text NOT NULL
      );
    `,
  },
];

export class PostgresPermissionRuleStore implements PermissionRuleStore {
  /** The revision `load` read (0: no row yet); a save writes only over it. */
  #revision = 0;

  /**
   * `pool` has POSTGRES_RULE_MIGRATIONS applied (openPostgres); `where` is its redacted URL;
   * `origin` names this process in the notices it publishes (it ignores its own echo).
   */
  constructor(
    private readonly pool: PgPool,
    private readonly where: string,
    private readonly origin?: string,
  ) {}

  async load(): Promise<PermissionRule[]> {
    let row: { revision: number; rules_json: string } | undefined;
    try {
      [row] = (
        await this.pool.query<{ revision: number; rules_json: string }>(
          'SELECT revision, rules_json FROM permission_rules WHERE id = 1',
        )
      ).rows;
    } catch (error) {
      throw toStorageError(error, this.where, 'read the permission rules');
    }
    this.#revision = row?.revision ?? 0;
    if (!row) return [];
    let data: unknown;
    try {
      data = JSON.parse(row.rules_json);
    } catch {
      data = undefined;
    }
    const parsed = RulesFileSchema.safeParse(data);
    // Never set aside: other processes share the row. Refusing to start lets nothing overwrite it.
    if (!parsed.success)
      throw new PermissionRulesCorruptError(
        `${this.where} (permission_rules)`,
        undefined,
        data === undefined ? 'it is not valid JSON' : describeZodIssues(parsed.error),
      );
    return parsed.data.rules;
  }

  async save(rules: PermissionRule[]): Promise<void> {
    const body = JSON.stringify(RulesFileSchema.parse({ version: RULES_FILE_VERSION, rules }));
    let saved: Array<{ revision: number }>;
    try {
      saved = (
        await this.pool.query<{ revision: number }>(
          `INSERT INTO permission_rules (id, revision, rules_json) SELECT 1, 1, $1 WHERE $2::bigint = 0
           ON CONFLICT (id) DO NOTHING RETURNING revision`,
          [body, this.#revision],
        )
      ).rows;
      if (saved.length === 0 && this.#revision > 0)
        saved = (
          await this.pool.query<{ revision: number }>(
            `UPDATE permission_rules SET rules_json = $1, revision = revision + 1 WHERE id = 1 AND revision = $2
             RETURNING revision`,
            [body, this.#revision],
          )
        ).rows;
    } catch (error) {
      throw toStorageError(error, this.where, 'save the permission rules');
    }
    const [row] = saved;
    if (!row) throw new ChangedElsewhereError('permission rules');
    this.#revision = row.revision;
    if (this.origin !== undefined) await announce(this.pool, 'rules', this.origin);
  }
}

/**
 * Tells the other instances a shared list changed. The change is stored already: a notice that
 * cannot be sent is a warning (the others see the change at their next start or resync), not a
 * failed save.
 */
export async function announce(pool: PgPool, kind: 'rules' | 'pins', origin: string): Promise<void> {
  try {
    await publish(pool, 'mh_lists', { kind, from: origin });
  } catch (error) {
    process.emitWarning(
      `Other instances were not told of a change of the ${kind === 'rules' ? 'permission rules' : 'tool pins'}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
