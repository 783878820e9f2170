import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, readLines, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import { buildHarness } from './harness.js';

const ROUNDS = 20;
const CALLS = 400;

/** Starts the child, waits until it is ready, lets it work `ms`, then kills its whole group. */
function runAndKill(args: string[], ms: number): Promise<{ finished: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'test', 'harness', 'crashChild.ts'), ...args],
      {
        cwd: PROJECT_ROOT,
        detached: true, // its own process group: the kill takes the MCP server down with it
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      if (output.includes('ready') && !timer) {
        timer = setTimeout(() => {
          try {
            process.kill(-(child.pid ?? 0), 'SIGKILL');
          } catch {
            // already gone
          }
        }, ms);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL'); // anything the group left behind
      } catch {
        // none
      }
      if (signal === 'SIGKILL' || code === 0) resolve({ finished: output.includes('done') });
      else reject(new Error(`crash child failed (code ${code}): ${stderr.slice(-2000)}`));
    });
  });
}

describe('crash recovery: executeTool killed with SIGKILL mid-call, 20 times', () => {
  const scratch = scratchDir();
  const dbFile = join(scratch.dir, 'harness.db');
  const counter = join(scratch.dir, 'counter.txt');
  const events = join(scratch.dir, 'events.jsonl');

  beforeAll(async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // Kill moments spread over 10–600 ms of work, in no particular order.
      const ms = 10 + ((round * 197) % 590);
      await runAndKill([scratch.dir, dbFile, counter, events, String(CALLS)], ms);
      const db = new Database(dbFile);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
      const lines = readLines(counter);
      expect(new Set(lines).size, `round ${round}: a call ran twice`).toBe(lines.length);
    }
  }, 240_000);
  afterAll(() => scratch.cleanup());

  it('the database opens cleanly and nothing ran twice', () => {
    const lines = readLines(counter);
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('completed calls replay without running again; interrupted ones stay started', async () => {
    const h = await buildHarness({ dir: scratch.dir, dbFile, rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    try {
      h.registry.addServer(
        stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'slow_append' }),
      );
      await h.registry.discover();
      const records = [];
      for (let page = h.checkpoints.history({ sessionId: 'crash-session', limit: 500 }); ;) {
        records.push(...page.records);
        if (!page.nextCursor) break;
        page = h.checkpoints.history({ sessionId: 'crash-session', limit: 500, cursor: page.nextCursor });
      }
      const completed = records.filter((r) => r.status === 'completed');
      const started = records.filter((r) => r.status === 'started');
      expect(completed.length).toBeGreaterThan(0);
      // Some kills landed mid-call: those records are "in progress or result unknown".
      expect(started.length).toBeGreaterThan(0);
      expect(completed.length + started.length).toBe(records.length);

      const lines = readLines(counter);
      // Every completed call ran exactly once on the server.
      for (const record of completed) expect(lines.filter((l) => l === record.callId)).toHaveLength(1);
      // Every line on the server belongs to a claimed call (nothing ran without a checkpoint).
      const claimed = new Set(records.map((r) => r.callId));
      for (const line of lines) expect(claimed.has(line)).toBe(true);

      const before = lines.length;
      for (const record of completed.slice(0, 50)) {
        const again = await h.harness.executeTool('slow_append', record.args as Record<string, unknown>, {
          userId: 'crash-test',
          sessionId: 'crash-session',
          callId: record.callId,
        });
        expect(again.replayed).toBe(true);
      }
      for (const record of started.slice(0, 5)) {
        await expect(
          h.harness.executeTool('slow_append', record.args as Record<string, unknown>, {
            userId: 'crash-test',
            sessionId: 'crash-session',
            callId: record.callId,
          }),
        ).rejects.toThrow(/in progress|unknown/i);
      }
      expect(readLines(counter)).toHaveLength(before);
    } finally {
      await h.close();
    }
  });
});
