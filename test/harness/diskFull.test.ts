/**
 * The database's disk fills up after a tool acted (issue 28.11): the call's result cannot be
 * recorded. SQLite's own limit (`PRAGMA max_page_count`, on the pipeline's connection) makes its
 * real "database or disk is full" (SQLITE_FULL) at the completion's write, through the real
 * pipeline and a real stdio server whose `big` tool counts each run. The caller is told the call
 * may have acted (`result_not_recorded`), never "could not complete"; the record stays started
 * ("result unknown" in History), so the same key answers "in progress or unknown" and nothing runs
 * twice; the app's warning says the disk is full while it is, and goes once a write succeeds.
 * Before: the caller got SQLite's own error ("database or disk is full": `internal`, i.e. "could
 * not complete"), and a caller told so tries again under a new key: the tool runs twice.
 * (test/gateway/diskFull.test.ts does the same with a real full filesystem, where it can mount one.)
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppWarning } from '../../shared/contract.js';
import { ResultNotRecordedError } from '../../electron/checkpoints/errors.js';
import { toErrorShape } from '../../electron/core/errors.js';
import { EventHub } from '../../electron/core/eventHub.js';
import { AppWarnings } from '../../electron/core/warnings.js';
import { CheckpointInProgressError } from '../../electron/checkpoints/errors.js';
import { groupCommitFor } from '../../electron/storage/groupCommit.js';
import { countEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import type { TestHarness } from './harness.js';
import { buildHarness } from './harness.js';

describe('the disk fills up between the side effect and its record', () => {
  const scratch = scratchDir('mh-disk-full-');
  const events = join(scratch.dir, 'events.jsonl');
  let h: TestHarness | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
    scratch.cleanup();
  });

  it('the caller hears "may have acted", the record stays unknown, a warning lasts while the disk is full, and all recovers', async () => {
    h = await buildHarness({ dir: scratch.dir });
    h.registry.addServer(stdioFixtureConfig('fx', { FIXTURE_TOOLS: 'big', FIXTURE_EVENTS: events }, { trusted: true }));
    await h.registry.discover();
    await h.engine.addRule({ level: 'ALLOW', match: { serverId: 'fx' } });
    const hub = new EventHub((value) => value);
    const pushed: AppWarning[][] = [];
    hub.on((event, payload) => {
      if (event === 'app.warnings') pushed.push((payload as { warnings: AppWarning[] }).warnings);
    });
    const warnings = new AppWarnings(hub, [], [], (text) => text);
    // The disk's free space as the warning sees it: none while SQLite's limit stands in for a full disk.
    let limited = false;
    warnings.watchStorage(groupCommitFor(h.db), 'harness.db', () => (limited ? 0 : Number.MAX_SAFE_INTEGER));
    warnings.start();
    const call = (callId: string) =>
      h!.harness.executeTool('big', { mb: 1 }, { userId: 'u', sessionId: 's', callId, serverId: 'fx' });

    // Room for a claim and a few trace writes, not for a 1 MiB result.
    h.tracer.flush();
    const pages = Number(h.db.pragma('page_count', { simple: true }));
    h.db.pragma(`max_page_count = ${pages + 64}`);
    limited = true;
    const error = await call('full-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultNotRecordedError);
    const shape = toErrorShape(error);
    expect(shape.code).toBe('result_not_recorded');
    expect(shape.message).toMatch(
      /ran and may have acted, but its result could not be recorded \(the disk holding the database is full\)/,
    );
    expect(countEvents(events, 'big')).toBe(1);
    expect(h.checkpoints.get('s', 'full-1')).toMatchObject({ status: 'started' });
    expect(warnings.list()).toEqual([{ code: 'disk_full', file: 'harness.db' }]);
    expect(pushed.at(-1)).toEqual([{ code: 'disk_full', file: 'harness.db' }]);

    // The same key runs nothing: its result is unknown.
    await expect(call('full-1')).rejects.toBeInstanceOf(CheckpointInProgressError);
    expect(countEvents(events, 'big')).toBe(1);

    // Space is back: the next call runs and is recorded, and the warning goes.
    h.db.pragma('max_page_count = 4294967294');
    limited = false;
    const outcome = await call('full-2');
    expect(outcome.replayed).toBe(false);
    expect(h.checkpoints.get('s', 'full-2')).toMatchObject({ status: 'completed' });
    expect(countEvents(events, 'big')).toBe(2);
    expect(warnings.list()).toEqual([]);
    expect(pushed.at(-1)).toEqual([]);
    // The unknown record can now be resolved by hand.
    expect(h.checkpoints.resolveManually('s', 'full-1', { status: 'failed', note: 'checked' })).toMatchObject({
      status: 'failed',
    });
  });
});
