/**
 * Damaged files through the real browser-mode host process (electron/web/cli.ts): with each kind
 * of damaged file in its data folder the process starts, the file is moved aside under a
 * timestamped name with its bytes intact, and `app.info` over the WebSocket names it and what
 * was lost — as data (`file_damaged`), never a silent loss.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppInfo, AppWarning, FileDamagedWarning, ServerView } from '../../shared/contract.js';
import type { WebHostProcess } from '../e2e/support/webHost.js';
import { startWebHost } from '../e2e/support/webHost.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir, waitFor } from '../helpers/fixtures.js';
import { BridgeClient } from './host.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';

const STAMPED = /\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

describe('damaged files in the data folder of the real host process', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startOver(
    dataDir: string,
  ): Promise<{ host: WebHostProcess; client: BridgeClient; info: () => Promise<AppInfo> }> {
    const host = await startWebHost({ dataDir });
    const client = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    cleanups.push(async () => {
      client.close();
      await host.stop();
    });
    const info = async (): Promise<AppInfo> => {
      const reply = await client.call('app.info', {});
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.result as AppInfo;
    };
    return { host, client, info };
  }

  function expectMovedAside(
    warnings: AppWarning[],
    file: string,
    lost: FileDamagedWarning['lost'],
    problem: FileDamagedWarning['problem'],
    bytes: string | Buffer,
  ): void {
    const warning = warnings.find((w): w is FileDamagedWarning => w.code === 'file_damaged' && w.file === file);
    expect(warning, `no warning names ${file}: ${JSON.stringify(warnings)}`).toMatchObject({
      code: 'file_damaged',
      file,
      lost,
      problem,
    });
    expect(warning?.movedTo.startsWith(`${file}.corrupt-`)).toBe(true);
    expect(warning?.movedTo).toMatch(STAMPED);
    // The bytes are kept for recovery by hand.
    expect(readFileSync(warning?.movedTo ?? '')).toEqual(Buffer.from(bytes));
  }

  it('a corrupt config.json, database, permission rules and secrets file: the host starts and names each one', async () => {
    const scratch = scratchDir();
    cleanups.push(() => scratch.cleanup());
    const dataDir = join(scratch.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    const damaged = {
      config: '{"servers": [ {"id": "half-written"',
      db: Buffer.from('this is not a database, whatever its name says'.repeat(20)),
      rules: '{"version": 1, "rules": [oops]}',
      secrets: '{"format": 1, "secrets": {"auth.token": ',
    };
    writeFileSync(join(dataDir, 'config.json'), damaged.config);
    writeFileSync(join(dataDir, 'miniharness.db'), damaged.db);
    writeFileSync(join(dataDir, 'miniharness.db-wal'), 'a WAL that goes with it');
    writeFileSync(join(dataDir, 'permissions.json'), damaged.rules);
    writeFileSync(join(dataDir, 'secrets.json'), damaged.secrets);

    const { client, info } = await startOver(dataDir);
    const { warnings } = await info();
    expectMovedAside(warnings, join(dataDir, 'config.json'), 'settings', 'not_json', damaged.config);
    expectMovedAside(warnings, join(dataDir, 'miniharness.db'), 'history', 'not_sqlite', damaged.db);
    expectMovedAside(warnings, join(dataDir, 'permissions.json'), 'permission_rules', 'not_json', damaged.rules);
    expectMovedAside(warnings, join(dataDir, 'secrets.json'), 'secrets', 'not_json', damaged.secrets);
    expect(warnings.filter((w) => w.code === 'file_damaged')).toHaveLength(4);
    // The database's WAL went with it (a stale WAL must not be replayed into the new file).
    const db = warnings.find((w): w is FileDamagedWarning => w.code === 'file_damaged' && w.lost === 'history');
    expect(readFileSync(`${db?.movedTo}-wal`, 'utf8')).toBe('a WAL that goes with it');

    // And the app works on fresh files: a new database answers, settings save.
    expect(await client.call('history.page', {})).toMatchObject({ ok: true, result: { records: [] } });
    const saved = await client.call('servers.save', {
      mode: 'create',
      config: { id: 'after', name: 'After', transport: 'stdio', command: 'true' },
    });
    expect(saved.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toMatchObject({
      servers: [{ id: 'after' }],
    });
  });

  it('a database whose header and schema are intact but whose history pages are damaged: moved aside and named, the host starts', async () => {
    const scratch = scratchDir();
    cleanups.push(() => scratch.cleanup());
    const dataDir = join(scratch.dir, 'data');
    const file = join(dataDir, 'miniharness.db');
    // A history of 200 recorded calls, written by the app's own store.
    const db = openAppDatabase(file);
    const store = new SqliteCheckpointStore(db);
    for (let n = 0; n < 200; n++) {
      const claim = store.claim({
        sessionId: 'gui-s',
        callId: `call-${n}`,
        userId: 'gui',
        toolName: 'echo',
        serverId: 'fx',
        argsHash: `h${n}`,
        args: { n },
        traceId: `t${n}`,
      });
      if (claim.kind !== 'owner') throw new Error('expected to own the claim');
      store.complete('gui-s', `call-${n}`, claim.lease, {
        content: [{ type: 'text', text: `result ${n} `.repeat(300) }],
        structuredContent: undefined,
        isError: false,
      });
    }
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    // A page near the end (the history written last) is overwritten; page 1 and the schema stay whole.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, statSync(file).size - 4 * pageSize);
    closeSync(fd);
    const damagedBytes = readFileSync(file);

    const { host, client, info } = await startOver(dataDir);
    const { warnings } = await info();
    expectMovedAside(warnings, file, 'history', 'invalid_content', damagedBytes);
    expect(await client.call('history.page', {})).toMatchObject({ ok: true, result: { records: [] } });
    expect(host.alive()).toBe(true);
  });

  it('a 0-byte database and a damaged tool cache: both moved aside and named', async () => {
    const scratch = scratchDir();
    cleanups.push(() => scratch.cleanup());
    const dataDir = join(scratch.dir, 'data');
    mkdirSync(join(dataDir, 'tool-cache'), { recursive: true });
    const server = {
      id: 'cached',
      name: 'Cached',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_TOOLS: 'echo' },
    };
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ servers: [server] }));
    writeFileSync(join(dataDir, 'miniharness.db'), '');
    const cacheFile = join(dataDir, 'tool-cache', 'cached.tools.json');
    writeFileSync(cacheFile, '{"format": 1, "tools": [tru');

    const { client, info } = await startOver(dataDir);
    // The cache is read by discovery, which may finish after the page asked: poll what it shows on
    // reconnect (a live page also gets the list pushed as an `app.warnings` event).
    await waitFor(
      async () => (await info()).warnings.some((w) => w.code === 'file_damaged' && w.file === cacheFile),
      15_000,
    );
    const { warnings } = await info();
    expectMovedAside(warnings, join(dataDir, 'miniharness.db'), 'history', 'empty', '');
    expectMovedAside(warnings, cacheFile, 'tool_cache', 'not_json', '{"format": 1, "tools": [tru');
    // The server's tools came from the server instead, and a fresh cache file was written.
    await waitFor(async () => {
      const list = await client.call('servers.list', {});
      return list.ok && (list.result as ServerView[])[0]?.toolCount === 1;
    }, 15_000);
    await waitFor(() => existsSync(cacheFile));
  });
});
