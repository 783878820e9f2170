/**
 * The tool pins in PostgreSQL (security/postgresPinStore.ts): what one process pins, another that
 * starts after reads — a changed definition is then "changed" there too, and unpinning one tool
 * or a whole server is shared the same way.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ToolPin } from '../../electron/security/pins.js';
import { ToolPins } from '../../electron/security/pins.js';
import { POSTGRES_PIN_MIGRATIONS, PostgresPinStore } from '../../electron/security/postgresPinStore.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const pin = (toolName: string, hash: string, serverUid = 'uid-fx'): ToolPin => ({
  serverUid,
  serverId: 'fx',
  toolName,
  hash,
  definition: {
    name: toolName,
    title: null,
    description: 'd',
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: null,
    ui: null,
    execution: null,
  },
  pinnedAt: 1,
  pinnedBy: 'gui',
  decision: 'allow-always',
});

describePostgres('tool pins in PostgreSQL', () => {
  let database: TestDatabase;
  let one: PostgresDatabase;
  let two: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('pins');
    const migrations = { tool_pins: POSTGRES_PIN_MIGRATIONS };
    one = await openPostgres(database.url, { migrations });
    two = await openPostgres(database.url, { migrations });
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('a pin taken in one process holds in another started after; a changed definition is changed there', async () => {
    const store = await PostgresPinStore.open(one.pool, one.where);
    const pins = new ToolPins(store);
    pins.pin(pin('append', 'h1'));
    pins.pin(pin('echo', 'h2'));
    pins.pin(pin('other', 'h3', 'uid-other'));
    expect(pins.check('uid-fx', 'append', 'h1').state).toBe('pinned'); // at once, in this process
    await store.drain();

    const later = new ToolPins(await PostgresPinStore.open(two.pool, two.where));
    expect(later.check('uid-fx', 'append', 'h1').state).toBe('pinned');
    expect(later.check('uid-fx', 'append', 'rug-pulled').state).toBe('changed');

    pins.unpin('uid-fx', 'echo');
    pins.unpinServer('uid-other');
    await store.drain();
    const third = new ToolPins(await PostgresPinStore.open(two.pool, two.where));
    expect(third.list().map((p) => p.toolName)).toEqual(['append']);
  });
});
