/**
 * Several tool calls in one model turn ("parallel tool calls"): each goes through the pipeline
 * under its own call id (its own checkpoint, its own approval and trace), and all the results go
 * back to the model in the order it made the calls. Durable: a run killed with SIGKILL after the
 * second of three calls resumes with the first two replayed (no second side effect) and the third
 * run — or, when it had reached the server, resolved — and the same conversation as without the kill.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { LoopbackRequest, ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import type { KillFigures } from './killRun.js';
import { resumeToEnd, runUntilKilled } from './killRun.js';
import { expectedResultText, KILL_PROMPT } from './killScript.js';
import { buildRunHarness, conversationText, loopbackModel } from './runHarness.js';

const ALLOW = [{ level: 'ALLOW' as const, match: { serverId: 'fx' } }];
const ALL = { allServers: true, serverIds: [], localTools: false };

/** Three calls in one turn; the third is slow, so a kill after the second finds it not done. */
const THREE_CALLS: ScriptedTurn = {
  kind: 'reply',
  text: ['Three at once.'],
  toolCalls: [
    { id: 'toolu_p1', name: 'append', args: { line: 'a' } },
    { id: 'toolu_p2', name: 'append', args: { line: 'b' } },
    { id: 'toolu_p3', name: 'slow_append', args: { line: 'c', ms: 400 } },
  ],
};

describe('several tool calls in one model turn', () => {
  const scratch = scratchDir();
  let loopback: LoopbackProvider;

  beforeAll(async () => {
    loopback = await new LoopbackProvider((request: LoopbackRequest): ScriptedTurn =>
      request.toolResults === 0 ? THREE_CALLS : { kind: 'reply', text: [`Saw ${request.resultTexts.join(', ')}.`] },
    ).start();
  });
  afterAll(async () => {
    await loopback.close();
    scratch.cleanup();
  });

  it.each(['anthropic', 'openai', 'openai_responses'] as const)(
    '%s: each call through the pipeline under its own id; the results go back in order',
    async (kind) => {
      const counter = join(scratch.dir, `${kind}.txt`);
      const rh = await buildRunHarness({ dir: join(scratch.dir, kind), counter, rules: ALLOW });
      try {
        const before = loopback.requests.length;
        const run = await rh.engine.start({
          model: loopbackModel(kind, loopback.origin),
          visibility: ALL,
          prompt: 'three',
        });
        expect(await rh.engine.settled(run.id)).toMatchObject({ status: 'completed', toolCalls: 3 });
        expect(readLines(counter)).toEqual(['a', 'b', 'c']);
        for (const id of ['toolu_p1', 'toolu_p2', 'toolu_p3'])
          expect(rh.h.checkpoints.get(run.id, id)?.status).toBe('completed');
        const next = loopback.requests[before + 1];
        expect(next?.resultTexts.map((t) => t.replace(/^Error: /, ''))).toEqual([
          'appended a',
          'appended b',
          'appended c',
        ]);
        expect(conversationText(rh.store.messages(run.id))).toContain(
          'result toolu_p1: appended a\nresult toolu_p2: appended b\nresult toolu_p3: appended c',
        );
      } finally {
        await rh.close();
      }
    },
  );

  it('killed -9 after the second of three calls: resume replays two and runs or resolves the third', async () => {
    // The uninterrupted run of the same script.
    const base = await buildRunHarness({
      dir: join(scratch.dir, 'base'),
      counter: join(scratch.dir, 'base.txt'),
      rules: ALLOW,
    });
    let baseline: string;
    try {
      const run = await base.engine.start({
        model: loopbackModel('openai', loopback.origin),
        visibility: ALL,
        prompt: KILL_PROMPT,
      });
      expect((await base.engine.settled(run.id)).status).toBe('completed');
      baseline = conversationText(base.store.messages(run.id));
    } finally {
      await base.close();
    }

    const dir = join(scratch.dir, 'killed');
    const files = {
      dir,
      dbFile: join(dir, 'app.db'),
      counter: join(dir, 'counter.txt'),
      events: join(dir, 'events.jsonl'),
    };
    const runId = 'run-parallel-kill';
    const figures: KillFigures = { runs: 1, kills: 0, resumes: 0, resolved: 0, duplicates: 0 };
    await runUntilKilled(files, { origin: loopback.origin, runId, kind: 'openai' }, async (output) => {
      await expect
        .poll(() => readLines(files.counter).includes('b') || output().includes('settled'), {
          timeout: 30_000,
          interval: 2,
        })
        .toBe(true);
    });
    figures.kills += 1;
    expect(readLines(files.counter)).toEqual(['a', 'b']);

    const rh = await buildRunHarness({ dir, dbFile: files.dbFile, counter: files.counter, rules: ALLOW });
    try {
      const before = loopback.requests.length;
      const run = await resumeToEnd(rh, runId, figures, (args) => ({
        content: [{ type: 'text', text: expectedResultText(args) }],
        structuredContent: undefined,
        isError: false,
      }));
      expect(run.status).toBe('completed');
      // The first two were not run again; the third ran once (resumed) or was resolved (it had reached the server).
      const lines = readLines(files.counter);
      expect(lines.slice(0, 2)).toEqual(['a', 'b']);
      expect(new Set(lines).size, 'a side effect ran twice').toBe(lines.length);
      if (figures.resolved === 0) expect(lines).toEqual(['a', 'b', 'c']);
      // The model's next turn got the three results, in order.
      expect(loopback.requests.slice(before).at(-1)?.resultTexts).toEqual(['appended a', 'appended b', 'appended c']);
      expect(conversationText(rh.store.messages(runId))).toBe(baseline);
      process.stdout.write(`parallel calls, kill -9 after the second of three: ${JSON.stringify(figures)}\n`);
    } finally {
      await rh.close();
    }
  }, 90_000);
});
