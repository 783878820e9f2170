/**
 * `npm run web --database <url>` (electron/web/cli.ts), the real host process: a PostgreSQL URL
 * runs the core's History on that database (a call recorded there by another process is listed),
 * and a database that cannot be reached stops the host with a sentence that names it without
 * its password — before, the option was refused as unknown and the URL never reached the core.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresCheckpoints } from '../../electron/checkpoints/postgresStore.js';
import { ROOT, startWebHost } from '../e2e/support/webHost.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from './host.js';

/** Runs the host to its exit; its code and what it printed. */
function runHost(args: string[], dataDir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'electron', 'web', 'cli.ts'), '--port', '0', '--data-dir', dataDir, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, MINIHARNESS_SECRET_STORE: 'file', MINIHARNESS_TOKEN: 'a-token-of-the-right-length' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('the web host’s --database option', () => {
  const scratch = scratchDir('mh-web-db-');
  afterAll(() => scratch.cleanup());

  it('an unreachable database: the host stops with a sentence naming it, never its password', async () => {
    const { code, output } = await runHost(
      ['--workspace', join(scratch.dir, 'ws'), '--database', 'postgres://mh:hunter2secret@127.0.0.1:1/nowhere'],
      join(scratch.dir, 'data'),
    );
    expect(code).toBe(2);
    expect(output).toContain('The database at postgres://127.0.0.1:1/nowhere could not be reached');
    expect(output).not.toContain('hunter2secret');
  }, 180_000);
});

describePostgres('the web host on PostgreSQL', () => {
  const scratch = scratchDir('mh-web-pg-');
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('webhost');
    // Another process's call, recorded in the database before the host starts.
    const other = await openPostgresCheckpoints(database.url);
    try {
      const claimed = await other.storage.claim({
        sessionId: 'other-host',
        callId: 'c1',
        userId: 'gui',
        toolName: 'append',
        serverId: 'fx',
        argsHash: 'h',
        args: { line: 'x' },
        traceId: 't1',
      });
      if (claimed.kind !== 'owner') throw new Error('expected a new claim');
      await other.storage.complete('other-host', 'c1', claimed.lease, {
        content: [{ type: 'text', text: 'done' }],
        structuredContent: undefined,
        isError: false,
      });
    } finally {
      await other.close();
    }
  });

  afterAll(async () => {
    await database?.drop();
    scratch.cleanup();
  });

  it('History lists the calls stored in the database', async () => {
    const host = await startWebHost({ dataDir: join(scratch.dir, 'data'), args: ['--database', database.url] });
    const client = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    try {
      const reply = await client.call('history.sessions', {});
      expect(reply.ok).toBe(true);
      const sessions = (reply as { result: { sessions: Array<{ sessionId: string; count: number }> } }).result.sessions;
      expect(sessions).toContainEqual(expect.objectContaining({ sessionId: 'other-host', count: 1 }));
    } finally {
      client.close();
      await host.stop();
    }
  }, 180_000);
});
