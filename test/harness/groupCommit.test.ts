/**
 * Group commit through the whole pipeline: concurrent executeTool calls share transactions for
 * their claims, completions and trace events (counted, not timed), and a claim is durable before
 * the side effect starts — a process killed once the server has received the calls leaves every
 * one of them recorded as `started`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import type { TestHarness } from './harness.js';
import { buildHarness } from './harness.js';

const CALLS = 20;

describe('executeTool under concurrency', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let h: TestHarness | undefined;

  beforeEach(() => {
    scratch = scratchDir();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    scratch.cleanup();
  });

  it('shares transactions between the calls: fewer commits than a claim and a completion per call', async () => {
    h = await buildHarness({ dir: scratch.dir, rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    h.registry.addServer(stdioFixtureConfig('fx', { FIXTURE_TOOLS: 'slow' }));
    await h.registry.discover();
    const before = h.checkpoints.groupCommitStats;

    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        h!.harness.executeTool('slow', { ms: 20 }, { userId: 'u', sessionId: 'group', callId: `c${i}` }),
      ),
    );

    const after = h.checkpoints.groupCommitStats;
    expect(results.every((r) => !r.replayed && r.result.isError === false)).toBe(true);
    // Committed one call at a time, the calls would need at least a claim commit and a completion
    // commit each: 2 × CALLS. Shared, the claims take one, the completions as many as the chunks
    // the answers arrive in, and the trace events a few.
    expect(after.transactions - before.transactions).toBeLessThan(2 * CALLS);
    // The claims of the burst went in together (with their traces' first events).
    expect(after.largestBatch).toBeGreaterThanOrEqual(CALLS);
    for (let i = 0; i < CALLS; i++) expect(h.checkpoints.get('group', `c${i}`)?.status).toBe('completed');
    h.tracer.flush();
    for (const r of results) expect(h.tracer.getTrace(r.traceId)?.trace.status).toBe('ok');
  });
});

describe('a process killed after its calls reached the server', () => {
  const calls = 5;

  it(
    'leaves every call claimed: the claims were durable before the side effects started',
    { timeout: 60_000 },
    async () => {
      const scratch = scratchDir();
      const dbFile = join(scratch.dir, 'harness.db');
      const events = join(scratch.dir, 'events.jsonl');
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(PROJECT_ROOT, 'test', 'harness', 'claimChild.ts'),
          scratch.dir,
          dbFile,
          events,
          String(calls),
        ],
        {
          cwd: PROJECT_ROOT,
          detached: true, // its own process group: the kill takes the MCP server down with it
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      try {
        // The server logs each tools/call as it receives it: from here the side effects have started.
        await waitFor(() => readEvents(events).filter((e) => e.event === 'tools/call').length === calls, 30_000).catch(
          () => {
            throw new Error(`the calls never reached the server. stderr:\n${stderr}`);
          },
        );
        process.kill(-(child.pid ?? 0), 'SIGKILL');
        expect(await exited).toBe('SIGKILL');

        const db = new Database(dbFile, { readonly: true });
        try {
          const rows = db
            .prepare(
              `SELECT call_id, status, args_json FROM checkpoints WHERE session_id = 'durability' ORDER BY call_id`,
            )
            .all();
          expect(rows).toEqual(
            Array.from({ length: calls }, (_, i) => ({
              call_id: `call-${i}`,
              status: 'started',
              args_json: '{"ms":60000}',
            })),
          );
        } finally {
          db.close();
        }
      } finally {
        try {
          process.kill(-(child.pid ?? 0), 'SIGKILL');
        } catch {
          // already gone
        }
        scratch.cleanup();
      }
    },
  );
});
