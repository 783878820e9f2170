/**
 * Approvals across two `miniharness serve` instances on one PostgreSQL (issue 36): a call made
 * through A waits for an approver; B's approvers see it, B's `approvals decide` answers it, and the
 * call on A completes with that answer. Decided on both at once, exactly one decision wins and the
 * other is told who decided. Each instance is its own core, broker and database connections; the
 * only path between them is the database (its table and NOTIFY).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { runClientCommand } from '../../electron/cli/commands.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const OPS = 'shared-approvals-ops-token-0123456789';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

async function cli(args: string[], url: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const [command, ...rest] = args;
  const env = { MINIHARNESS_URL: url, MINIHARNESS_TOKEN: OPS };
  const code = await runClientCommand(
    command,
    rest,
    env,
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

const requested = (client: BridgeClient): ApprovalView[] =>
  client.events.filter((e) => e.event === 'approval.requested').map((e) => e.payload as ApprovalView);

describePostgres('approvals shared by two serve instances on one PostgreSQL', () => {
  const scratch = scratchDir('mh-serve-approvals-');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;
  let watchA: BridgeClient;
  let watchB: BridgeClient;

  beforeAll(async () => {
    database = await createTestDatabase('approvals');
    const shared = {
      databaseUrl: database.url,
      apiTokens: [{ name: 'ops', role: 'admin' as const, sha256: sha256(OPS) }],
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
    watchA = await BridgeClient.connect(a.port, { token: OPS });
    watchB = await BridgeClient.connect(b.port, { token: OPS });
  }, 90_000);
  afterAll(async () => {
    watchA?.close();
    watchB?.close();
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  it('a call waiting on A is shown on B, decided there, and completes on A', async () => {
    const call = cli(
      ['call', 'local', 'write_file', '--args', '{"path":"via-b.txt","content":"B said yes"}', '--json'],
      a.url,
    );
    await waitFor(() => requested(watchB).some((v) => v.toolName === 'write_file'), 15_000);
    const listed = await cli(['approvals', 'list', '--json'], b.url);
    const [pending] = JSON.parse(listed.out) as ApprovalView[];
    expect(pending).toMatchObject({ userId: 'CLI (ops)', toolName: 'write_file', args: { path: 'via-b.txt' } });
    expect(await cli(['approvals', 'decide', pending?.requestId ?? '', 'allow-once'], b.url)).toMatchObject({
      code: 0,
      out: 'Decided: allow-once.\n',
    });
    const done = await call;
    expect(done, done.err).toMatchObject({ code: 0 });
    expect((JSON.parse(done.out) as { result: { isError: boolean } }).result.isError).toBe(false);
    expect(readFileSync(join(scratch.dir, 'a', 'workspace', 'via-b.txt'), 'utf8')).toBe('B said yes');
    // A's pages close the dialog naming who decided on B; neither instance lists it any more.
    await waitFor(() =>
      watchA.events.some(
        (e) =>
          e.event === 'approval.closed' &&
          (e.payload as { requestId: string }).requestId === pending?.requestId &&
          (e.payload as { decidedBy?: string }).decidedBy === 'CLI (ops)',
      ),
    );
    expect(JSON.parse((await cli(['approvals', 'list', '--json'], a.url)).out)).toEqual([]);
    expect(JSON.parse((await cli(['approvals', 'list', '--json'], b.url)).out)).toEqual([]);
  }, 60_000);

  it('decided on A and on B at once: exactly one decision wins, the other is told it was already decided', async () => {
    const before = requested(watchB).length;
    const call = cli(
      ['call', 'local', 'write_file', '--args', '{"path":"race.txt","content":"raced"}', '--json'],
      a.url,
    );
    await waitFor(() => requested(watchB).length > before, 15_000);
    const requestId = requested(watchB).at(-1)?.requestId ?? '';
    const [onA, onB] = await Promise.all([
      cli(['approvals', 'decide', requestId, 'allow-once'], a.url),
      cli(['approvals', 'decide', requestId, 'deny'], b.url),
    ]);
    const winners = [onA, onB].filter((r) => r.code === 0);
    const losers = [onA, onB].filter((r) => r.code !== 0);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]?.err).toMatch(
      /CLI \(ops\) already decided this approval \((allow-once|deny)\).*\(stale_approval\)/,
    );
    const done = await call;
    // The call got the winner's answer.
    expect(done.code).toBe(onA.code === 0 ? 0 : 1);
  }, 60_000);

  it('a call cancelled on A withdraws its approval from B: closed there, no longer listed, no longer decidable', async () => {
    const before = requested(watchB).length;
    const made = watchA.call('tools.call', {
      name: 'write_file',
      serverId: 'local',
      args: { path: 'never.txt', content: 'cancelled' },
      callId: 'shared-cancel-1',
    });
    await waitFor(() => requested(watchB).length > before, 15_000);
    const requestId = requested(watchB).at(-1)?.requestId ?? '';
    expect(await watchA.call('tools.cancel', { callId: 'shared-cancel-1' })).toMatchObject({ ok: true });
    await made;
    await waitFor(() =>
      watchB.events.some(
        (e) =>
          e.event === 'approval.closed' &&
          (e.payload as { requestId: string; outcome: string }).requestId === requestId &&
          (e.payload as { outcome: string }).outcome === 'cancelled',
      ),
    );
    expect(JSON.parse((await cli(['approvals', 'list', '--json'], b.url)).out)).toEqual([]);
    expect(await cli(['approvals', 'decide', requestId, 'allow-once'], b.url)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/caller stopped waiting.*not used.*\(stale_approval\)/) as string,
    });
  }, 60_000);
});
