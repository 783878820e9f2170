/**
 * The identity that keys checkpoints survives restarts: the GUI's is stored once per data
 * folder; a caller that brings its own (an agent) is keyed by it. Records of the per-start GUI
 * sessions older versions made stay readable and replayable.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallService, GUI_USER, persistentGuiCaller } from '../../electron/core/callService.js';
import { hashArguments } from '../../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { persistentValue, sqliteAppMeta } from '../../electron/storage/appMeta.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { CallOutcome, HistoryRecordView } from '../../shared/contract.js';
import { readLines, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import { buildHarness } from '../harness/harness.js';
import type { TestHarness } from '../harness/harness.js';
import { BridgeClient, startTestHost } from '../web/host.js';

describe('persistentValue', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.cleanup());

  it('creates a value once per database: every connection and every later open reads the first one', async () => {
    const file = join(scratch.dir, 'meta.db');
    const a = openAppDatabase(file);
    const b = openAppDatabase(file);
    let created = 0;
    const make = () => `value-${++created}`;
    expect(persistentValue(a, 'k', make)).toBe('value-1');
    expect(persistentValue(b, 'k', make)).toBe('value-1');
    expect(persistentValue(b, 'other', make)).toBe('value-2');
    a.close();
    b.close();
    const again = openAppDatabase(file);
    expect(persistentValue(again, 'k', make)).toBe('value-1');
    expect(created).toBe(2);
    expect(await persistentGuiCaller(sqliteAppMeta(again))).toEqual(await persistentGuiCaller(sqliteAppMeta(again)));
    again.close();
  });
});

describe('the GUI session across restarts of the app core', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.cleanup());
  const oldSession = 'gui-2025-01-02T03-04-05-678Z-abcdef12';
  const oldCallId = `old-${randomUUID()}`;

  async function sessionsAfterStart(): Promise<{
    current: string;
    sessions: Array<{ sessionId: string; count: number }>;
    client: BridgeClient;
    close(): Promise<void>;
  }> {
    const running = await startTestHost(scratch.dir);
    const client = await BridgeClient.connect(running.host.port);
    const reply = await client.call('history.sessions', {});
    if (!reply.ok) throw new Error(reply.error.message);
    return {
      ...(reply.result as { current: string; sessions: Array<{ sessionId: string; count: number }> }),
      client,
      async close() {
        client.close();
        await running.close();
      },
    };
  }

  it('is created at the first start and the same at every later one; old per-start sessions stay readable', async () => {
    // A data folder an older version used: one completed call in a per-start session.
    const db = openAppDatabase(join(scratch.dir, 'data', 'miniharness.db'));
    const store = new SqliteCheckpointStore(db);
    const args = { path: 'notes.txt' };
    const claim = store.claim({
      sessionId: oldSession,
      callId: oldCallId,
      userId: GUI_USER,
      toolName: 'read_file',
      serverId: 'local',
      argsHash: hashArguments(args),
      args,
      traceId: 'trace-old',
    });
    if (claim.kind !== 'owner') throw new Error('expected to own the fresh call');
    store.complete(oldSession, oldCallId, claim.lease, {
      content: [{ type: 'text', text: 'old result' }],
      structuredContent: undefined,
      isError: false,
    });
    db.close();

    const first = await sessionsAfterStart();
    await first.close();
    const second = await sessionsAfterStart();
    try {
      expect(first.current).toMatch(/^gui-/);
      expect(second.current).toBe(first.current);
      expect(second.current).not.toBe(oldSession);
      expect(second.sessions).toContainEqual(expect.objectContaining({ sessionId: oldSession, count: 1 }));

      const page = await second.client.call('history.page', { sessionId: oldSession, limit: 10 });
      expect(
        page.ok && (page.result as { records: HistoryRecordView[] }).records.map((r) => [r.callId, r.status]),
      ).toEqual([[oldCallId, 'completed']]);
      const replay = await second.client.call('history.replay', { sessionId: oldSession, callId: oldCallId });
      expect(replay).toMatchObject({
        ok: true,
        result: { replayed: true, sessionId: oldSession, result: { content: [{ type: 'text', text: 'old result' }] } },
      });
    } finally {
      await second.close();
    }
  });
});

describe('CallService keyed by the caller’s identity', () => {
  const scratch = scratchDir();
  const counter = join(scratch.dir, 'counter.txt');
  const dbFile = join(scratch.dir, 'calls.db');
  const noEvents = () => undefined;
  afterAll(() => scratch.cleanup());

  async function start(): Promise<{ h: TestHarness; service: CallService }> {
    const h = await buildHarness({ dir: scratch.dir, dbFile, rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    h.registry.addServer(stdioFixtureConfig('fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }));
    await h.registry.discover();
    return {
      h,
      service: new CallService(h.harness, h.checkpoints, noEvents, await persistentGuiCaller(sqliteAppMeta(h.db))),
    };
  }

  it('replays a callId re-sent by the same caller after a restart; another caller’s same callId is its own call', async () => {
    const callId = `shared-${randomUUID()}`;
    const agent = { userId: 'agent:a1', sessionId: 'agent:a1:session-7' };
    const request = { name: 'append', serverId: 'fx', args: { line: 'once' }, callId };

    const before = await start();
    let gui: CallOutcome;
    let byAgent: CallOutcome;
    try {
      gui = await before.service.call(request);
      byAgent = await before.service.call(request, agent);
      expect(gui).toMatchObject({ replayed: false, sessionId: before.service.sessionId });
      expect(byAgent).toMatchObject({ replayed: false, sessionId: agent.sessionId });
      expect(readLines(counter)).toEqual(['once', 'once']);
    } finally {
      await before.h.close();
    }

    const after = await start();
    try {
      expect(after.service.sessionId).toBe(before.service.sessionId);
      expect(await after.service.call(request)).toMatchObject({
        replayed: true,
        sessionId: gui.sessionId,
        result: gui.result,
      });
      expect(await after.service.call(request, agent)).toMatchObject({
        replayed: true,
        sessionId: agent.sessionId,
        result: byAgent.result,
      });
      expect(readLines(counter)).toEqual(['once', 'once']);
    } finally {
      await after.h.close();
    }
  });
});
