/**
 * The agents and their tokens in PostgreSQL (AgentStorage, agentStore.ts), shared by every
 * instance on the database: an agent created on one instance connects through any, and one
 * revoked on any is refused by all.
 *
 * The token is checked on every agent request, so it is checked in memory (no database round
 * trip per request): each instance keeps every agent indexed by its token's SHA-256, read whole
 * at start and re-read whenever another instance says on `mh_agents` (LISTEN/NOTIFY) that it
 * changed one — and after the listening connection comes back, since notices sent meanwhile are
 * lost. A change is one statement (READ COMMITTED is enough: each touches one row, and the
 * unique index on the lower-cased name decides two instances creating one name at once); it is
 * stored before this instance uses it, then told. Rows are validated as the file's entries are;
 * one that does not parse gives no access and is reported.
 */
import { randomUUID } from 'node:crypto';
import type { AgentVisibility } from '../../shared/agents.js';
import { AgentNameSchema, AgentVisibilitySchema } from '../../shared/agents.js';
import { hashToken } from '../security/tokenHash.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import type { Listener } from '../storage/postgres/notify.js';
import { SerialQueue } from '../storage/postgres/serialQueue.js';
import { listen, publish } from '../storage/postgres/notify.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import type { AgentStorage, StoredAgent } from './agentStore.js';
import { agentOfToken, freeAgentName, mintAgentToken, StoredAgentSchema } from './agentStore.js';
import { AgentNameTakenError, AgentNotFoundError } from './errors.js';

export const POSTGRES_AGENT_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'agents: the registered agents, their tokens as SHA-256 only, revocation and OAuth sign-in',
    sql: `
      CREATE TABLE agents (
        id text PRIMARY KEY,
        name text NOT NULL,
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        created_at bigint NOT NULL,
        revoked_at bigint,
        visibility jsonb NOT NULL,
        sign_in jsonb
      );
      CREATE UNIQUE INDEX agents_name_key ON agents (lower(name));
    `,
  },
];

interface AgentRow {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
  visibility: unknown;
  sign_in: unknown;
}

const COLUMNS = 'id, name, token_hash, created_at, revoked_at, visibility, sign_in';
/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

function agentOfRow(row: AgentRow): StoredAgent | undefined {
  const parsed = StoredAgentSchema.safeParse({
    id: row.id,
    name: row.name,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
    visibility: row.visibility,
    ...(row.sign_in !== null ? { signIn: row.sign_in } : {}),
  });
  return parsed.success ? parsed.data : undefined;
}

/** What another instance changed, as this one saw it in its re-read. */
export interface AgentsChange {
  /** Agents revoked or removed since the last read: their connections here should end. */
  closed: string[];
}

export class PostgresAgentStore implements AgentStorage {
  private agents: StoredAgent[] = [];
  private byHash = new Map<string, StoredAgent>();
  private readonly origin = randomUUID();
  private listener: Listener | undefined;
  /** Re-reads and this instance's own changes are applied in order, one at a time. */
  private readonly queue = new SerialQueue();
  #unreadable = 0;
  private readonly changeListeners: Array<(change: AgentsChange) => void> = [];

  private constructor(
    private readonly pool: PgPool,
    private readonly where: string,
    private readonly warn: (message: string) => void,
    private readonly now: () => number,
  ) {}

  /** Reads every agent and listens for other instances' changes (the pool has POSTGRES_AGENT_MIGRATIONS applied). */
  static async open(
    pool: PgPool,
    url: string,
    where: string,
    warn: (message: string) => void,
    now: () => number = Date.now,
  ): Promise<PostgresAgentStore> {
    const store = new PostgresAgentStore(pool, where, warn, now);
    store.listener = await listen(
      url,
      ['mh_agents'],
      (_channel, notice) => {
        if (notice.from !== store.origin) store.reread();
      },
      () => store.reread(),
    );
    try {
      await store.queue.run(() => store.read());
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Called after a re-read caused by another instance (the Agents view updates; revoked agents' connections end). */
  onChange(listener: (change: AgentsChange) => void): () => void {
    this.changeListeners.push(listener);
    return () => {
      const at = this.changeListeners.indexOf(listener);
      if (at >= 0) this.changeListeners.splice(at, 1);
    };
  }

  async close(): Promise<void> {
    await this.listener?.close();
    await this.queue.idle();
  }

  list(): StoredAgent[] {
    return [...this.agents];
  }

  get(id: string): StoredAgent {
    const agent = this.agents.find((a) => a.id === id);
    if (!agent) throw new AgentNotFoundError(id);
    return agent;
  }

  authenticate(token: string | undefined): StoredAgent | undefined {
    return agentOfToken(this.byHash, token);
  }

  freeName(preferred: string): string {
    return freeAgentName(preferred, this.agents);
  }

  async create(name: string, visibility: AgentVisibility): Promise<{ agent: StoredAgent; token: string }> {
    const clean = AgentNameSchema.parse(name);
    if (this.agents.some((a) => a.name.toLowerCase() === clean.toLowerCase())) throw new AgentNameTakenError(clean);
    const token = mintAgentToken();
    const agent: StoredAgent = {
      id: randomUUID(),
      name: clean,
      tokenHash: hashToken(token),
      createdAt: this.now(),
      visibility: AgentVisibilitySchema.parse(visibility),
    };
    if (!(await this.insert(agent))) throw new AgentNameTakenError(clean);
    return { agent, token };
  }

  async createSignedIn(
    preferredName: string,
    visibility: AgentVisibility,
    signIn: NonNullable<StoredAgent['signIn']>,
  ): Promise<StoredAgent> {
    // Another instance may take the free name at the same moment: re-read and take the next one.
    for (let attempt = 0; ; attempt++) {
      const agent: StoredAgent = {
        id: randomUUID(),
        name: this.freeName(preferredName),
        tokenHash: hashToken(mintAgentToken()),
        createdAt: this.now(),
        visibility: AgentVisibilitySchema.parse(visibility),
        signIn,
      };
      if (await this.insert(agent)) return agent;
      if (attempt === 2) throw new AgentNameTakenError(agent.name);
      await this.queue.run(() => this.read());
    }
  }

  async setVisibility(id: string, visibility: AgentVisibility): Promise<StoredAgent> {
    const clean = AgentVisibilitySchema.parse(visibility);
    return this.updated(id, 'UPDATE agents SET visibility = $2 WHERE id = $1', [JSON.stringify(clean)]);
  }

  async revoke(id: string): Promise<StoredAgent> {
    // The first revocation's time stays; revoking again changes nothing.
    return this.updated(id, 'UPDATE agents SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [this.now()]);
  }

  async remove(id: string): Promise<boolean> {
    const deleted = await this.write('remove an agent', () =>
      this.pool.query('DELETE FROM agents WHERE id = $1', [id]),
    );
    if (deleted.rowCount === 0) return false;
    await this.queue.run(async () => this.index(this.agents.filter((a) => a.id !== id)));
    await this.tell(id);
    return true;
  }

  /** Stores a new agent; false when its name is taken (another instance may have just taken it). */
  private async insert(agent: StoredAgent): Promise<boolean> {
    try {
      await this.pool.query(`INSERT INTO agents (${COLUMNS}) VALUES ($1, $2, $3, $4, NULL, $5, $6)`, [
        agent.id,
        agent.name,
        agent.tokenHash,
        agent.createdAt,
        JSON.stringify(agent.visibility),
        agent.signIn ? JSON.stringify(agent.signIn) : null,
      ]);
    } catch (error) {
      const { code, constraint } = error as { code?: unknown; constraint?: unknown };
      if (code === UNIQUE_VIOLATION && constraint === 'agents_name_key') return false;
      throw toStorageError(error, this.where, 'register an agent');
    }
    await this.queue.run(async () => this.index([...this.agents.filter((a) => a.id !== agent.id), agent]));
    await this.tell(agent.id);
    return true;
  }

  private async updated(id: string, sql: string, values: unknown[]): Promise<StoredAgent> {
    const result = await this.write('change an agent', () =>
      this.pool.query<AgentRow>(`${sql} RETURNING ${COLUMNS}`, [id, ...values]),
    );
    const row = result.rows[0];
    if (!row) throw new AgentNotFoundError(id);
    const agent = agentOfRow(row);
    if (!agent) throw new AgentNotFoundError(id);
    await this.queue.run(async () => this.index(this.agents.map((a) => (a.id === id ? agent : a))));
    await this.tell(id);
    return agent;
  }

  private async write<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
  }

  /** Tells the other instances (the change is stored: one that misses the notice re-reads at its next one or reconnect). */
  private async tell(id: string): Promise<void> {
    await publish(this.pool, 'mh_agents', { kind: 'agent', ids: { id }, from: this.origin }).catch(() =>
      this.warn('Another MiniHarness instance on the database may not see this agent change until its next one.'),
    );
  }

  /** A re-read after another instance's change (one queued at a time: it reads everything). */
  private reread(): void {
    void this.queue
      .coalesced(async () => {
        const before = new Map(this.agents.map((a) => [a.id, a]));
        await this.read();
        const now = new Map(this.agents.map((a) => [a.id, a]));
        // Usable before, revoked or gone now.
        const closed = [...before.values()]
          .filter((a) => a.revokedAt === undefined && (!now.has(a.id) || now.get(a.id)?.revokedAt !== undefined))
          .map((a) => a.id);
        for (const listener of this.changeListeners) listener({ closed });
      })
      ?.catch((error: unknown) =>
        this.warn(
          `The agents could not be re-read from the database: ${toStorageError(error, this.where, 'read the agents').message}`,
        ),
      );
  }

  private async read(): Promise<void> {
    const rows = await this.write('read the agents', () =>
      this.pool.query<AgentRow>(`SELECT ${COLUMNS} FROM agents ORDER BY created_at, id`),
    );
    const agents: StoredAgent[] = [];
    for (const row of rows.rows) {
      const agent = agentOfRow(row);
      if (agent) agents.push(agent);
    }
    const unreadable = rows.rows.length - agents.length;
    if (unreadable > 0 && unreadable !== this.#unreadable)
      this.warn(
        `${unreadable} agent entr${unreadable === 1 ? 'y' : 'ies'} in the database could not be read; they were kept as they are and cannot connect.`,
      );
    this.#unreadable = unreadable;
    this.index(agents);
  }

  private index(agents: StoredAgent[]): void {
    this.agents = agents;
    this.byHash = new Map(agents.map((a) => [a.tokenHash, a]));
  }
}
