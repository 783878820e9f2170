/**
 * Events to a page that stops reading are bounded. The real host (real core, real WebSocket)
 * follows a real stdio server that floods its stderr while one page's socket is paused (it reads
 * nothing, as a frozen tab). The host's buffer for that page stays under its high-water mark plus
 * one frame, the held events under their cap; when the page reads again it learns exactly how
 * many log lines it missed, and the events that must arrive (an approval) still do.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxLimits } from '../../electron/web/eventOutbox.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, startTestHost } from './host.js';

const FLOOD_SERVER = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'stderrFloodServer.ts');
/** Small marks so the test gets past the kernel's socket buffers quickly. */
const LIMITS: OutboxLimits = { highWaterBytes: 64 * 1024, lowWaterBytes: 16 * 1024, maxHeldBytes: 256 * 1024 };
/** One event frame at most: a log line is cut at 2,000 characters. */
const ONE_FRAME = 16 * 1024;

type LogPayload = { serverId: string; line: { text: string } };
type DroppedPayload = { event: string; serverId?: string; count: number };

describe('browser-mode host: a page that stops reading', () => {
  const scratch = scratchDir('mh-backpressure-');
  let running: RunningHost;
  let emittedFloodLines = 0;
  const doneTags = new Set<string>();
  const approvals: string[] = [];
  const waiters = new Set<() => void>();

  /** Resolves once `check` holds; re-checked on every core event (no sleeping). */
  function until(check: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const run = () => {
        if (!check()) return;
        waiters.delete(run);
        resolve();
      };
      waiters.add(run);
      run();
    });
  }

  beforeAll(async () => {
    running = await startTestHost(scratch.dir, { outbox: LIMITS });
    running.core.onEvent((event, payload) => {
      if (event === 'server.log' && (payload as LogPayload).serverId === 'flood') {
        emittedFloodLines += 1;
        const done = /^flood done (\S+)/.exec((payload as LogPayload).line.text);
        if (done?.[1]) doneTags.add(done[1]);
      }
      if (event === 'approval.requested') approvals.push((payload as { requestId: string }).requestId);
      for (const waiter of [...waiters]) waiter();
    });
    let ready = false;
    const stop = running.core.onEvent((event, payload) => {
      const tools = (payload as { tools?: Array<{ name: string; serverId: string }> }).tools;
      if (event === 'tools.changed' && tools?.some((t) => t.serverId === 'flood' && t.name === 'flood')) ready = true;
    });
    const saved = await running.core.dispatch('servers.save', {
      mode: 'create',
      config: {
        id: 'flood',
        name: 'Flood',
        transport: 'stdio',
        command: process.execPath,
        args: ['--import', 'tsx', FLOOD_SERVER],
        cwd: PROJECT_ROOT,
      },
    });
    expect(saved.ok).toBe(true);
    await until(() => ready);
    stop();
    // Trusted, so its read-only `flood` tool runs without asking.
    expect((await running.core.dispatch('permissions.setServerTrust', { serverId: 'flood', trusted: true })).ok).toBe(
      true,
    );
  }, 60_000);

  afterAll(async () => {
    await running.close();
    scratch.cleanup();
  });

  async function flood(tag: string, lines: number): Promise<void> {
    const result = await running.core.dispatch('tools.call', {
      name: 'flood',
      serverId: 'flood',
      args: { lines, width: 200, tag },
      callId: `flood-call-${tag}`,
    });
    expect(result, JSON.stringify(result).slice(0, 400)).toMatchObject({ ok: true });
    await until(() => doneTags.has(tag));
  }

  function nextClientEvent<T>(
    client: BridgeClient,
    event: string,
    match: (payload: T) => boolean = () => true,
  ): Promise<T> {
    return new Promise((resolve) => {
      const check = () => {
        const found = client.events.find((e) => e.event === event && match(e.payload as T));
        if (!found) return false;
        client.ws.off('message', check);
        resolve(found.payload as T);
        return true;
      };
      if (!check()) client.ws.on('message', check);
    });
  }

  /**
   * Round trips until the host holds nothing for this page, then one more: its answer was written
   * after everything else, so once it is here every earlier frame is too.
   */
  async function settle(client: BridgeClient): Promise<void> {
    const drained = () => {
      const stats = running.host.clients().at(-1)!;
      return !stats.backlogged && stats.heldEvents === 0 && stats.unreportedDroppedLines === 0;
    };
    do expect((await client.call('app.info', {})).ok).toBe(true);
    while (!drained());
    expect(running.host.clients().at(-1)).toMatchObject({ heldBytes: 0, readingPaused: false });
    expect((await client.call('app.info', {})).ok).toBe(true);
  }

  it(
    'keeps the paused page under its bound, reports the dropped lines after, and still delivers the approval',
    { timeout: 120_000 },
    async () => {
      const client = await BridgeClient.connect(running.host.port);
      const before = emittedFloodLines;
      client.ws.pause();

      // Flood until the host has had to drop lines for this page (the kernel's buffers fill first).
      let round = 0;
      while (!(running.host.clients()[0]?.droppedTotal ?? 0)) {
        expect(round, 'the host never held back events for the paused page').toBeLessThan(40);
        await flood(`r${round++}`, 20_000);
      }
      await flood(`r${round++}`, 20_000);

      // An approval asked while the page is not reading: it must not be dropped.
      const asked = approvals.length;
      const pendingWrite = running.core.dispatch('tools.call', {
        name: 'write_file',
        serverId: 'local',
        args: { path: 'held.txt', content: 'held' },
        callId: 'held-approval-1',
      });
      await until(() => approvals.length > asked);
      const requestId = approvals[asked]!;

      const stalled = running.host.clients()[0]!;
      expect(stalled.backlogged).toBe(true);
      expect(stalled.maxBufferedAmount).toBeLessThanOrEqual(LIMITS.highWaterBytes + ONE_FRAME);
      expect(stalled.bufferedAmount).toBeLessThanOrEqual(LIMITS.highWaterBytes + ONE_FRAME);
      expect(stalled.heldBytes).toBeLessThanOrEqual(LIMITS.maxHeldBytes);
      expect(stalled.unreportedDroppedLines).toBeGreaterThan(0);

      client.ws.resume();
      const approval = await nextClientEvent<{ requestId: string }>(
        client,
        'approval.requested',
        (p) => p.requestId === requestId,
      );
      expect(approval.requestId).toBe(requestId);
      await nextClientEvent<DroppedPayload>(client, 'bridge.dropped', (p) => p.serverId === 'flood');
      await settle(client);

      const received = client.events.filter(
        (e) => e.event === 'server.log' && (e.payload as LogPayload).serverId === 'flood',
      ).length;
      const dropped = client.events
        .filter((e) => e.event === 'bridge.dropped' && (e.payload as DroppedPayload).serverId === 'flood')
        .reduce((sum, e) => sum + (e.payload as DroppedPayload).count, 0);
      expect(dropped).toBeGreaterThan(0);
      expect(received + dropped).toBe(emittedFloodLines - before);

      expect((await running.core.dispatch('approvals.answer', { requestId, answer: 'deny' })).ok).toBe(true);
      expect(await pendingWrite).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
      client.close();
    },
  );

  it('a page that reads gets every line, or is told how many it missed', { timeout: 60_000 }, async () => {
    const client = await BridgeClient.connect(running.host.port);
    const before = emittedFloodLines;
    await flood('reader', 5_000);
    await settle(client);
    const received = client.events.filter(
      (e) => e.event === 'server.log' && (e.payload as LogPayload).serverId === 'flood',
    ).length;
    const dropped = client.events
      .filter((e) => e.event === 'bridge.dropped')
      .reduce((sum, e) => sum + (e.payload as DroppedPayload).count, 0);
    expect(received + dropped).toBe(emittedFloodLines - before);
    client.close();
  });
});
