/**
 * The agents and their tokens (AgentStorage), the same on both stores — the configuration file
 * (the desktop's) and PostgreSQL (every instance on one database): a token is accepted until its
 * agent is revoked or removed, only its SHA-256 is stored, names are unique whatever their case,
 * and a signed-in client's agent gets a free name. Then PostgreSQL across two instances: an agent
 * created or revoked on A is accepted or refused on B without a restart (waited for on B's
 * change event), two instances creating one name at once register it once, and the token check
 * reads memory only (it holds with B's connections closed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStorage } from '../../electron/gateway/agentStore.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { AgentNameTakenError, AgentNotFoundError } from '../../electron/gateway/errors.js';
import type { AgentsChange } from '../../electron/gateway/postgresAgentStore.js';
import { POSTGRES_AGENT_MIGRATIONS, PostgresAgentStore } from '../../electron/gateway/postgresAgentStore.js';
import { hashToken } from '../../electron/security/tokenHash.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type { AgentVisibility } from '../../shared/agents.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const ALL: AgentVisibility = { allServers: true, serverIds: [], localTools: false };
const SIGN_IN = { clientId: 'c1', redirectTarget: 'http://127.0.0.1:1/cb', grantId: 'g1' };

/** A store, and everything it stored as text (to find a token that must not be there). */
type Subject = { store: AgentStorage; storedText: () => Promise<string> };

function describeAgentStorage(name: string, open: () => Promise<Subject>): void {
  describe(`${name}: agents and their tokens`, () => {
    let store: AgentStorage;
    let storedText: () => Promise<string>;
    beforeAll(async () => ({ store, storedText } = await open()));

    it('accepts a new agent’s token, stores only its SHA-256, refuses it once revoked', async () => {
      const { agent, token } = await store.create('Builder', ALL);
      expect(token).toMatch(/^mhg_/);
      expect(agent.tokenHash).toBe(hashToken(token));
      expect(store.authenticate(token)?.id).toBe(agent.id);
      expect(store.authenticate('mhg_wrong')).toBeUndefined();
      expect(store.authenticate(undefined)).toBeUndefined();
      const text = await storedText();
      expect(text).toContain(agent.tokenHash);
      expect(text).not.toContain(token);

      const revoked = await store.revoke(agent.id);
      expect(revoked.revokedAt).toEqual(expect.any(Number));
      expect(store.authenticate(token)).toBeUndefined();
      // Revoking again keeps the first time.
      expect((await store.revoke(agent.id)).revokedAt).toBe(revoked.revokedAt);
      expect(store.get(agent.id).revokedAt).toBe(revoked.revokedAt);
    });

    it('refuses a name already used, whatever its case; unknown ids are not found', async () => {
      await store.create('Reviewer', ALL);
      await expect(async () => store.create('reviewer', ALL)).rejects.toThrow(AgentNameTakenError);
      await expect(async () => store.revoke('no-such-agent-id')).rejects.toThrow(AgentNotFoundError);
      await expect(async () => store.setVisibility('no-such-agent-id', ALL)).rejects.toThrow(AgentNotFoundError);
      expect(() => store.get('no-such-agent-id')).toThrow(AgentNotFoundError);
    });

    it('changes what an agent sees, and removes it (its token refused)', async () => {
      const { agent, token } = await store.create('Limited', ALL);
      const limited = { allServers: false, serverIds: ['fs'], localTools: true };
      expect((await store.setVisibility(agent.id, limited)).visibility).toEqual(limited);
      expect(store.authenticate(token)?.visibility).toEqual(limited);
      expect(await store.remove(agent.id)).toBe(true);
      expect(await store.remove(agent.id)).toBe(false);
      expect(store.authenticate(token)).toBeUndefined();
      expect(store.list().some((a) => a.id === agent.id)).toBe(false);
    });

    it('names a signed-in client’s agent with a free name and keeps its sign-in', async () => {
      const first = await store.createSignedIn('Client X', ALL, SIGN_IN);
      const second = await store.createSignedIn('Client X', ALL, { ...SIGN_IN, grantId: 'g2' });
      expect([first.name, second.name]).toEqual(['Client X', 'Client X 2']);
      expect(store.get(second.id).signIn).toEqual({ ...SIGN_IN, grantId: 'g2' });
      expect((await store.createSignedIn('gui', ALL, SIGN_IN)).name).toBe('gui 2');
    });
  });
}

const scratch = scratchDir('mh-agent-storage-');
afterAll(() => scratch.cleanup());
describeAgentStorage('configuration file', async () => {
  const config = openConfConfigStore(join(scratch.dir, 'data'));
  return { store: new AgentStore(config, () => undefined), storedText: async () => readFileSync(config.path, 'utf8') };
});

describePostgres('PostgreSQL agents', () => {
  let database: TestDatabase;
  const pools: PostgresDatabase[] = [];
  const stores: PostgresAgentStore[] = [];
  const warnings: string[] = [];
  const openInstance = async (): Promise<PostgresAgentStore> => {
    const db = await openPostgres(database.url, { migrations: { agents: POSTGRES_AGENT_MIGRATIONS } });
    pools.push(db);
    const store = await PostgresAgentStore.open(db.pool, database.url, db.where, (m) => warnings.push(m));
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    database = await createTestDatabase('agents');
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const pool of pools) await pool.close().catch(() => undefined);
    await database?.drop();
  });

  describeAgentStorage('PostgreSQL', async () => {
    const store = await openInstance();
    const pool = pools[0] as PostgresDatabase;
    return {
      store,
      storedText: async () => JSON.stringify((await pool.pool.query('SELECT * FROM agents')).rows),
    };
  });

  describe('two instances on one database', () => {
    let a: PostgresAgentStore;
    let b: PostgresAgentStore;
    beforeAll(async () => {
      a = await openInstance();
      b = await openInstance();
    });
    /**
     * Resolves once `holds()` — at once when it already does (the other instance's notice may have been read
     * before the caller got here), else at the first re-read of `store` after which it does; with the changes
     * seen till then.
     */
    const changedUntil = (store: PostgresAgentStore, holds: () => boolean): Promise<AgentsChange[]> =>
      new Promise((resolve) => {
        const seen: AgentsChange[] = [];
        if (holds()) return resolve(seen);
        const stop = store.onChange((change) => {
          seen.push(change);
          if (!holds()) return;
          stop();
          resolve(seen);
        });
      });

    it('an agent created on A is accepted on B; revoked on A, refused on B (and B is told to end it)', async () => {
      const { agent, token } = await a.create('Shared agent', ALL);
      await changedUntil(b, () => b.authenticate(token)?.id === agent.id);
      expect(b.get(agent.id).name).toBe('Shared agent');

      const revoked = changedUntil(b, () => b.authenticate(token) === undefined);
      await a.revoke(agent.id);
      expect((await revoked).flatMap((c) => c.closed)).toEqual([agent.id]);
      expect(b.get(agent.id).revokedAt).toEqual(expect.any(Number));
    });

    it('an agent removed on B is refused on A; a visibility set on A is what B sees', async () => {
      const { agent, token } = await b.create('Moving agent', ALL);
      await changedUntil(a, () => a.authenticate(token) !== undefined);
      const limited = { allServers: false, serverIds: ['x'], localTools: false };
      const changed = changedUntil(b, () => b.authenticate(token)?.visibility.allServers === false);
      await a.setVisibility(agent.id, limited);
      await changed;
      expect(b.authenticate(token)?.visibility).toEqual(limited);
      const removed = changedUntil(a, () => a.list().every((x) => x.id !== agent.id));
      await b.remove(agent.id);
      expect((await removed).flatMap((c) => c.closed)).toEqual([agent.id]);
      expect(a.authenticate(token)).toBeUndefined();
    });

    it('one name created on both at once is registered once', async () => {
      const results = await Promise.allSettled([a.create('Racer', ALL), b.create('racer', ALL)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected');
      expect(refused?.reason).toBeInstanceOf(AgentNameTakenError);
    });

    it('a row that does not parse gives no access and is reported', async () => {
      const pool = (pools[0] as PostgresDatabase).pool;
      const token = 'mhg_' + 'x'.repeat(43);
      const told = changedUntil(b, () => warnings.some((w) => w.includes('could not be read')));
      await pool.query(
        `INSERT INTO agents (id, name, token_hash, created_at, visibility) VALUES ('bad-row-1', 'Bad row', $1, 1, '"nonsense"')`,
        [hashToken(token)],
      );
      await pool.query(`SELECT pg_notify('mh_agents', '{"kind":"agent","from":"test"}')`);
      await told;
      expect(b.authenticate(token)).toBeUndefined();
      expect(b.list().some((x) => x.id === 'bad-row-1')).toBe(false);
    });

    it('checks a token from memory: no database round trip (it holds with B’s connections closed)', async () => {
      const { agent, token } = await a.create('Offline check', ALL);
      await changedUntil(b, () => b.authenticate(token) !== undefined);
      await (pools[2] as PostgresDatabase).close();
      expect(b.authenticate(token)?.id).toBe(agent.id);
    });
  });
});
