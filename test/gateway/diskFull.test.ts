/**
 * A real full disk (issue 28.11), where this machine lets the test mount one (root, a tmpfs): the
 * app's data folder on a small tmpfs, filled up by a file of its own, and a v2 SDK agent over HTTP
 * calling a real stdio server's `big` tool (a 4 MiB result, each run counted outside the tmpfs).
 * The side effect happens, the result cannot be written: the agent hears that the call ran and
 * may have acted (`result_not_recorded`), never "could not complete"; History shows the record as
 * "result unknown"; the GUI's warnings carry `disk_full` while the disk is full. Once the file is
 * deleted, the next call runs and is recorded, the warning goes, the first key still runs nothing,
 * and History resolves it. Before: the agent read "MiniHarness could not complete big: database
 * or disk is full" (`internal`) — an invitation to call again under a new key.
 * (test/harness/diskFull.test.ts covers the same through SQLite's own page limit, everywhere.)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { META_CALL_ID } from '../../shared/agents.js';
import type { AppWarning, HistoryRecordView } from '../../shared/contract.js';
import { countEvents, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

const scratch = scratchDir('mh-disk-full-gw-');
const mountPoint = join(scratch.dir, 'small-disk');

/** Mounts a 64 MiB tmpfs for the data folder; false where this process may not (not root, no CAP_SYS_ADMIN). */
function mountSmallDisk(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  mkdirSync(mountPoint, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes `file` until the disk refuses (ENOSPC), then gives `spare` bytes back. */
function fillUp(file: string, spare: number): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  execFileSync('truncate', ['-s', String(Math.max(0, written - spare)), file]);
}

const mounted = mountSmallDisk();

describe('the data folder’s disk is full when a call’s result is to be recorded', () => {
  let app: GatewayApp | undefined;

  afterAll(async () => {
    await app?.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    scratch.cleanup();
  });

  it.runIf(mounted)(
    'the agent hears "may have acted", History shows it unknown, the GUI warns while it lasts, and all recovers',
    async () => {
      const events = join(scratch.dir, 'events.jsonl');
      app = await startGatewayApp(mountPoint);
      const gui = app;
      await addFixtureServer(gui, 'fx', { FIXTURE_TOOLS: 'big', FIXTURE_EVENTS: events }, ['big']);
      const agent = await gui.createAgent('Big Caller');
      const client = new ModernClient(
        { name: 'disk-full', version: '2.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        new ModernHttp(gui.url, { requestInit: { headers: { Authorization: `Bearer ${agent.token}` } } }),
      );
      const call = (callId: string) =>
        client.callTool({ name: 'fx__big', arguments: { mb: 4 }, _meta: { [META_CALL_ID]: callId } });
      const warned = (full: boolean) =>
        gui.nextEvent<{ warnings: AppWarning[] }>('app.warnings', (p) =>
          full ? p.warnings.some((w) => w.code === 'disk_full') : !p.warnings.some((w) => w.code === 'disk_full'),
        );
      try {
        // Room for the claim and some trace writes, not for a 4 MiB result.
        const filler = join(mountPoint, 'filler');
        fillUp(filler, 256 * 1024);
        const full = warned(true);
        const first = await call('big-1');
        expect(first.isError).toBe(true);
        expect(first._meta?.['io.miniharness/error']).toBe('result_not_recorded');
        expect(JSON.stringify(first.content)).toMatch(
          /ran and may have acted, but MiniHarness could not record its result/,
        );
        expect(JSON.stringify(first.content)).not.toMatch(/could not complete/);
        expect(countEvents(events, 'big')).toBe(1);
        expect((await full).warnings).toContainEqual({
          code: 'disk_full',
          file: join(mountPoint, 'data', 'miniharness.db'),
        });
        expect((await gui.call<{ warnings: AppWarning[] }>('app.info')).warnings.map((w) => w.code)).toContain(
          'disk_full',
        );
        const sessionId = `agent:${agent.id}:default`;
        expect(await gui.call<HistoryRecordView>('history.get', { sessionId, callId: 'big-1' })).toMatchObject({
          status: 'unknown',
        });

        // Space is back: a new call runs and is recorded, and the warning goes.
        rmSync(filler);
        const cleared = gui.nextEvent<{ warnings: AppWarning[] }>(
          'app.warnings',
          (p) => !p.warnings.some((w) => w.code === 'disk_full'),
        );
        const second = await call('big-2');
        expect(second.isError).toBeFalsy();
        expect(countEvents(events, 'big')).toBe(2);
        await cleared;
        expect((await gui.call<{ warnings: AppWarning[] }>('app.info')).warnings).toEqual([]);
        // The first key still runs nothing (its result is unknown), and History resolves it.
        const again = await call('big-1');
        expect(again._meta?.['io.miniharness/error']).toBe('in_progress');
        expect(countEvents(events, 'big')).toBe(2);
        expect(
          await gui.call<HistoryRecordView>('history.resolve', {
            sessionId,
            callId: 'big-1',
            resolution: { status: 'failed', note: 'checked: it ran, result lost' },
          }),
        ).toMatchObject({ status: 'failed' });
      } finally {
        await client.close();
      }
    },
    120_000,
  );
});
