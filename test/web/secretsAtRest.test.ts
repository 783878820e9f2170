/**
 * Through the real browser-mode host process (electron/web/cli.ts) and its WebSocket: a server
 * that echoes the credential it was given (a stdio fixture whose `echo_env` tool sends back its
 * env secret in text, structured content and a progress message) never gets that secret into
 * the stored result, the traces, the bridge events, History or the call outcome — before and
 * after a restart. And everything the host writes is the user's alone (0700 / 0600), even when
 * it is started with umask 000.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import type { WebHostProcess } from '../e2e/support/webHost.js';
import { filesContaining, filesUnder, startWebHost } from '../e2e/support/webHost.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir, waitFor } from '../helpers/fixtures.js';
import { BridgeClient } from './host.js';

const SECRET = `sk-echo-${randomUUID()}`;
const SERVER = {
  id: 'leaky',
  name: 'Leaky',
  transport: 'stdio',
  command: process.execPath,
  args: [BUILT_STDIO_FIXTURE],
  cwd: PROJECT_ROOT,
  env: {
    FIXTURE_ECHO_ENV: 'LEAKY_TOKEN',
    FIXTURE_TOOLS: 'echo_env',
    LEAKY_TOKEN: { secret: { source: 'store', key: 'env.LEAKY_TOKEN' } },
  },
};

describe('a server that echoes its credential, through the real host process', () => {
  const scratch = scratchDir();
  const dataDir = join(scratch.dir, 'data');
  let host: WebHostProcess;
  let client: BridgeClient;
  let previousUmask: number;

  async function ok<T>(channel: string, payload: unknown): Promise<T> {
    const reply = await client.call(channel, payload);
    if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
    return reply.result as T;
  }

  async function start(): Promise<void> {
    host = await startWebHost({ dataDir });
    client = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    await waitFor(
      async () => (await ok<ServerView[]>('servers.list', {})).some((s) => s.config.id === 'leaky' && s.toolCount > 0),
      15_000,
    );
  }

  async function stop(): Promise<void> {
    client.close();
    await host.stop();
  }

  /** Everything the host may have stored or sent about a call, none of which may hold SECRET. */
  async function expectNowhere(outcome: CallOutcome): Promise<void> {
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(JSON.stringify(client.events)).not.toContain(SECRET);
    expect(JSON.stringify(await ok('traces.get', { traceId: outcome.traceId }))).not.toContain(SECRET);
    expect(JSON.stringify(await ok('traces.export', { traceId: outcome.traceId }))).not.toContain(SECRET);
    expect(JSON.stringify(await ok('history.page', {}))).not.toContain(SECRET);
    // The database itself, read directly: the stored result holds the marker, not the value.
    const db = new BetterSqlite3(join(dataDir, 'miniharness.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT result_json FROM checkpoints WHERE call_id = ?').get(outcome.callId) as
        { result_json: string } | undefined;
      expect(row?.result_json).toContain('LEAKY_TOKEN=[redacted]');
      expect(row?.result_json).not.toContain(SECRET);
      // Trace events: in trace_events, or in their trace's own row (a trace written whole, tracing/schema.ts).
      const traces = db
        .prepare(
          `SELECT coalesce((SELECT group_concat(data) FROM trace_events), '') || coalesce((SELECT group_concat(events) FROM traces), '') AS data`,
        )
        .get() as { data: string };
      expect(traces.data).toContain('"outcome":"owner"'); // the events are there (either place), and read
      expect(traces.data).not.toContain(SECRET);
    } finally {
      db.close();
    }
    // Byte for byte, on disk (the WAL included): only the secret store holds it.
    expect(filesContaining(dataDir, SECRET)).toEqual(['secrets.json']);
  }

  beforeAll(async () => {
    // Modes must not depend on the umask: the host inherits 000, which would give 0666 / 0777.
    previousUmask = process.umask(0);
    host = await startWebHost({ dataDir });
    client = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    await ok('servers.save', { mode: 'create', config: SERVER, secrets: { 'env.LEAKY_TOKEN': SECRET } });
    await waitFor(async () => (await ok<ServerView[]>('servers.list', {}))[0]?.toolCount === 1, 15_000);
    // Trusted, so its read-only tool runs without an approval.
    await ok('permissions.setServerTrust', { serverId: 'leaky', trusted: true });
  }, 60_000);

  afterAll(async () => {
    process.umask(previousUmask);
    await stop();
    scratch.cleanup();
  });

  it('the call outcome, progress event, stored result, traces and History carry "[redacted]" where the server put the secret', async () => {
    const callId = `call-${randomUUID()}`;
    const outcome = await ok<CallOutcome>('tools.call', { name: 'echo_env', serverId: 'leaky', args: {}, callId });
    // The server did send the value back: the marker stands exactly where it was.
    expect(outcome.result).toEqual({
      content: [{ type: 'text', text: 'LEAKY_TOKEN=[redacted]' }],
      structuredContent: { LEAKY_TOKEN: '[redacted]', nested: [{ value: '[redacted]' }] },
      isError: false,
    });
    // The progress message held the secret too. (Under heavy load the SDK client may drop a
    // progress notification that arrives with its response, so its presence is not asserted;
    // test/core/eventRedaction.test.ts covers event redaction deterministically.)
    for (const progress of client.events.filter((e) => e.event === 'call.progress')) {
      expect(progress.payload).toMatchObject({ callId, message: 'using [redacted]' });
    }
    await expectNowhere(outcome);
    const replay = await ok<CallOutcome>('history.replay', { sessionId: outcome.sessionId, callId });
    expect(replay).toMatchObject({ replayed: true, result: outcome.result });
  });

  it('after a restart (the secret known again only once the server connects), a new call is redacted too', async () => {
    await stop();
    await start();
    const outcome = await ok<CallOutcome>('tools.call', {
      name: 'echo_env',
      serverId: 'leaky',
      args: {},
      callId: `call-${randomUUID()}`,
    });
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'LEAKY_TOKEN=[redacted]' }]);
    await expectNowhere(outcome);
  });

  // File modes are POSIX's: Windows has none to check.
  it.skipIf(process.platform === 'win32')(
    'the data folder is 0700 and every file in it 0600 — database, -wal, -shm, config, secrets, rules, tool cache — under umask 000',
    () => {
      const files = filesUnder(dataDir).filter((f) => !f.startsWith('workspace'));
      for (const expected of [
        'miniharness.db',
        'miniharness.db-wal',
        'miniharness.db-shm',
        'config.json',
        'secrets.json',
        join('tool-cache', 'leaky.tools.json'),
      ]) {
        expect(files).toContain(expected);
      }
      for (const file of files) {
        // A file gone since it was listed is the temporary name of a replacing write (a verdict kept as
        // the server connected); the file it became is listed and checked on its own.
        const stat = statSync(join(dataDir, file), { throwIfNoEntry: false });
        if (stat === undefined) continue;
        expect({ file, mode: (stat.mode & 0o777).toString(8) }).toEqual({ file, mode: '600' });
      }
      const folders = [dataDir, join(dataDir, 'tool-cache')];
      for (const folder of folders)
        expect({ folder, mode: (statSync(folder).mode & 0o777).toString(8) }).toEqual({ folder, mode: '700' });
      // The database was built under a temporary name and linked into place; nothing of that is left.
      expect(readdirSync(dataDir).filter((name) => name.startsWith('miniharness.db.new-'))).toEqual([]);
    },
  );
});
