/**
 * Through the real browser-mode host (core + WebSocket bridge): history pages stay small when
 * results are huge and the whole record comes on demand; servers.discover answers before a server
 * that never answers has timed out.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_RECORD_MAX_BYTES } from '../../electron/core/handlers/history.js';
import { HISTORY_PAGE_MAX_BYTES, SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { HistoryRecordView, ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, startTestHost } from './host.js';

const MiB = 1024 * 1024;

/** Resolves with the first event from now on that matches. */
function nextEvent(client: BridgeClient, match: (event: string, payload: unknown) => boolean): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer): void => {
      const frame = JSON.parse(data.toString()) as { t: string; event?: string; payload?: unknown };
      if (frame.t === 'event' && match(frame.event ?? '', frame.payload)) {
        client.ws.off('message', onMessage);
        resolve(frame.payload);
      }
    };
    client.ws.on('message', onMessage);
  });
}

describe('results and discovery through the host', () => {
  const scratch = scratchDir();
  let running: RunningHost;
  let client: BridgeClient;

  beforeAll(async () => {
    running = await startTestHost(scratch.dir);
    client = await BridgeClient.connect(running.host.port);
  });
  afterAll(async () => {
    client.close();
    await running.close();
    scratch.cleanup();
  });

  it('a page of three 9 MB results stays under the page budget; history.get returns each whole', async () => {
    // Three completed calls with 9 MB results, written as the pipeline writes them (another
    // connection to the host's own database file).
    const db = openAppDatabase(join(running.dataDir, 'miniharness.db'));
    const store = new SqliteCheckpointStore(db);
    const big = (n: number): string => String(n).repeat(9 * MiB);
    for (const n of [1, 2, 3]) {
      const claim = store.claim({
        sessionId: 'big',
        callId: `big-call-${n}`,
        userId: 'gui',
        toolName: 'big',
        serverId: 'fx',
        argsHash: `h${n}`,
        args: { mb: 9 },
        traceId: `t${n}`,
      });
      if (claim.kind !== 'owner') throw new Error('expected owner');
      store.complete('big', `big-call-${n}`, claim.lease, {
        content: [{ type: 'text', text: big(n) }],
        structuredContent: undefined,
        isError: false,
      });
    }
    db.close();

    const reply = await client.call('history.page', { sessionId: 'big', limit: 100 });
    if (!reply.ok) throw new Error(reply.error.message);
    const frameBytes = Buffer.byteLength(JSON.stringify({ t: 'result', id: 1, ...reply }));
    expect(frameBytes).toBeLessThan(HISTORY_PAGE_MAX_BYTES);
    const { records } = reply.result as { records: HistoryRecordView[] };
    expect(records.map((r) => r.callId)).toEqual(['big-call-3', 'big-call-2', 'big-call-1']);
    for (const record of records) {
      expect(record.result).toBeUndefined();
      expect(record.args).toEqual({ mb: 9 }); // small arguments still come whole
      expect(record.preview).toMatchObject({ truncated: true, resultBytes: expect.any(Number) as number });
      expect(record.preview?.resultBytes).toBeGreaterThan(9 * MiB);
      expect(record.preview?.result?.startsWith('{"content":[{"type":"text","text":"')).toBe(true);
    }

    for (const n of [1, 2, 3]) {
      const whole = await client.call('history.get', { sessionId: 'big', callId: `big-call-${n}` });
      if (!whole.ok) throw new Error(whole.error.message);
      const record = whole.result as HistoryRecordView;
      expect(record.preview).toBeUndefined();
      expect(record.result?.content).toEqual([{ type: 'text', text: big(n) }]);
    }
  });

  it('history.get refuses a record bigger than it may send, with a typed error', async () => {
    const db = openAppDatabase(join(running.dataDir, 'miniharness.db'));
    const store = new SqliteCheckpointStore(db);
    const claim = store.claim({
      sessionId: 'huge',
      callId: 'huge-call-1',
      userId: 'gui',
      toolName: 'big',
      serverId: 'fx',
      argsHash: 'h',
      args: {},
      traceId: 't',
    });
    if (claim.kind !== 'owner') throw new Error('expected owner');
    store.complete('huge', 'huge-call-1', claim.lease, {
      content: [{ type: 'text', text: 'y'.repeat(HISTORY_RECORD_MAX_BYTES + 1) }],
      structuredContent: undefined,
      isError: false,
    });
    db.close();
    const reply = await client.call('history.get', { sessionId: 'huge', callId: 'huge-call-1' });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'record_too_large', details: { limitBytes: HISTORY_RECORD_MAX_BYTES } },
    });
    const missing = await client.call('history.get', { sessionId: 'huge', callId: 'no-such-call' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('servers.discover answers while a server that never answers is still connecting', async () => {
    const silent = {
      id: 'silent',
      name: 'Silent',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_MODE: 'silent' },
      timeoutMs: 3_000,
    };
    const gaveUp = nextEvent(
      client,
      (event, payload) =>
        event === 'server.status' &&
        (payload as { serverId: string; status: { state: string } }).serverId === 'silent' &&
        (payload as { status: { state: string } }).status.state === 'error',
    );
    let timedOut = false;
    void gaveUp.then(() => (timedOut = true));
    const connecting = nextEvent(
      client,
      (event, payload) =>
        event === 'server.status' &&
        (payload as { serverId: string; status: { state: string } }).serverId === 'silent' &&
        (payload as { status: { state: string } }).status.state === 'connecting',
    );
    const saved = await client.call('servers.save', { mode: 'create', config: silent });
    expect(saved.ok).toBe(true);
    await connecting; // saving connects it in the background; it now waits for an answer that never comes

    const reply = await client.call('servers.discover', { refresh: true });
    // The answer came first: the silent server had not timed out yet.
    expect(timedOut).toBe(false);
    if (!reply.ok) throw new Error(reply.error.message);
    const view = (reply.result as ServerView[]).find((s) => s.config.id === 'silent');
    expect(view?.status).toEqual({ state: 'connecting' });
    // Its outcome streams in afterwards, as an event.
    expect(await gaveUp).toMatchObject({ serverId: 'silent', status: { state: 'error', code: 'timeout' } });
  });
});
