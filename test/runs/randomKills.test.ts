/**
 * Kill -9 at random points: 10 runs, each killed once at a point drawn from a seeded generator —
 * inside a model stream (before any one of its SSE events, any turn, any of the three provider
 * APIs), during a tool call (the n-th call has reached the server), or between a tool's side
 * effect and what follows — then resumed in this process from the same database. Each resumed
 * run completes (a call left "in progress or unknown" is resolved, as a person would in
 * History), no side effect happens twice, and the conversation is the text of an uninterrupted
 * run of the same script. The script has a turn with two calls, so kills land between them too.
 *
 * The seed is printed; `RUNS_KILL_SEED=<n>` replays the same points, `RUNS_KILL_SEED=random` draws
 * new ones. The default is one fixed draw, so that CI runs the same points every time (a new draw
 * belongs in a session where its failure can be read, not in a gate). The figures are printed too.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../electron/models/providerFactory.js';
import { readEvents, readLines, scratchDir } from '../helpers/fixtures.js';
import type { LoopbackApi, LoopbackRequest, ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import type { KillFigures } from './killRun.js';
import { resumeToEnd, runUntilKilled } from './killRun.js';
import { expectedResultText, KILL_PROMPT, RANDOM_KILL_LINES, RANDOM_KILL_TURNS } from './killScript.js';
import { buildRunHarness, conversationText, loopbackModel } from './runHarness.js';

const KILLS = 10;
const KINDS: ReadonlyArray<ModelConfig['kind']> = ['anthropic', 'openai', 'openai_responses'];
const API_OF: Record<ModelConfig['kind'], LoopbackApi> = {
  anthropic: 'anthropic',
  openai: 'openai',
  openai_responses: 'responses',
};
/** The tool results the conversation holds when each model turn is asked. */
const TURN_KEYS = [...RANDOM_KILL_TURNS.keys()];
const ALLOW = [{ level: 'ALLOW' as const, match: { serverId: 'fx' } }];
const ALL = { allServers: true, serverIds: [], localTools: false };

type KillPoint =
  { at: 'stream'; turn: number; chunk: number } | { at: 'tool'; nth: number } | { at: 'after_tool'; line: string };

/** mulberry32: a small seeded generator, so a failing draw can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function describePoint(point: KillPoint): string {
  if (point.at === 'stream') return `during model turn ${point.turn + 1}'s stream, before SSE event ${point.chunk}`;
  if (point.at === 'tool') return `during tool call ${point.nth}`;
  return `after the side effect "${point.line}"`;
}

const SEED_SETTING = process.env.RUNS_KILL_SEED ?? '586446756';
const SEED = SEED_SETTING === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(SEED_SETTING);
const random = seeded(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** The draw: a provider and a kill point for each run (chunk counts are the API's own stream). */
const DRAWS = Array.from({ length: KILLS }, (_, i) => {
  const kind = pick(KINDS);
  const category = pick(['stream', 'tool', 'after_tool'] as const);
  let point: KillPoint;
  if (category === 'stream') {
    const turn = Math.floor(random() * TURN_KEYS.length);
    const chunks = LoopbackProvider.chunkCount(
      API_OF[kind],
      RANDOM_KILL_TURNS.get(TURN_KEYS[turn] ?? 0) as ScriptedTurn,
    );
    point = { at: 'stream', turn, chunk: Math.floor(random() * chunks) };
  } else if (category === 'tool') point = { at: 'tool', nth: 1 + Math.floor(random() * RANDOM_KILL_LINES.length) };
  else point = { at: 'after_tool', line: pick(RANDOM_KILL_LINES) };
  return { i, kind, point };
});

describe(`agent runs resume after kill -9 at random points (seed ${SEED})`, () => {
  const scratch = scratchDir();
  let loopback: LoopbackProvider;
  /** The one stream to hold (the kill point), once: the resumed run's request streams through. */
  let holdPlan: { results: number; chunk: number } | undefined;
  const figures: KillFigures & { seed: number } = {
    seed: SEED,
    runs: 0,
    kills: 0,
    resumes: 0,
    resolved: 0,
    duplicates: 0,
  };
  let baseline = '';

  beforeAll(async () => {
    process.stdout.write(
      `random kill points, seed ${SEED} (replay with RUNS_KILL_SEED=${SEED}):\n${DRAWS.map((d) => `  ${d.i}: ${d.kind}, ${describePoint(d.point)}`).join('\n')}\n`,
    );
    loopback = await new LoopbackProvider((request: LoopbackRequest): ScriptedTurn => {
      const turn = RANDOM_KILL_TURNS.get(request.toolResults);
      if (!turn)
        return { kind: 'status', status: 400, message: `no scripted turn after ${request.toolResults} results` };
      if (holdPlan?.results === request.toolResults && turn.kind === 'reply') {
        const { chunk } = holdPlan;
        holdPlan = undefined;
        return { ...turn, holdAtChunk: chunk };
      }
      return turn;
    }).start();

    const rh = await buildRunHarness({
      dir: join(scratch.dir, 'baseline'),
      counter: join(scratch.dir, 'baseline.txt'),
      rules: ALLOW,
    });
    try {
      const run = await rh.engine.start({
        model: loopbackModel('anthropic', loopback.origin),
        visibility: ALL,
        prompt: KILL_PROMPT,
      });
      expect((await rh.engine.settled(run.id)).status).toBe('completed');
      baseline = conversationText(rh.store.messages(run.id));
      expect(readLines(join(scratch.dir, 'baseline.txt'))).toEqual(RANDOM_KILL_LINES);
    } finally {
      await rh.close();
    }
  }, 60_000);

  afterAll(async () => {
    process.stdout.write(`runs resume after kill -9 at random points: ${JSON.stringify(figures)}\n`);
    await loopback.close();
    scratch.cleanup();
  });

  it.each(DRAWS.map((d) => [d.i, d.kind, describePoint(d.point), d] as const))(
    'run %i (%s), killed %s: resumed to the same conversation, no side effect twice',
    async (_i, kind, _name, draw) => {
      const dir = join(scratch.dir, `kill-${draw.i}`);
      const files = {
        dir,
        dbFile: join(dir, 'app.db'),
        counter: join(dir, 'counter.txt'),
        events: join(dir, 'events.jsonl'),
      };
      const runId = `run-random-${draw.i}`;
      const { point } = draw;
      figures.runs += 1;
      // A tool point holds the last model turn as a backstop: the run cannot finish before the kill lands.
      holdPlan =
        point.at === 'stream'
          ? { results: TURN_KEYS[point.turn] ?? 0, chunk: point.chunk }
          : { results: TURN_KEYS.at(-1) ?? 0, chunk: 0 };
      try {
        await runUntilKilled(files, { origin: loopback.origin, runId, kind }, async (output) => {
          if (point.at === 'stream') return loopback.whenHeld();
          const reached =
            point.at === 'tool'
              ? () => readEvents(files.events).filter((e) => e.event === 'tools/call').length >= point.nth
              : () => readLines(files.counter).includes(point.line);
          await expect
            .poll(() => reached() || output().includes('settled'), { timeout: 30_000, interval: 2 })
            .toBe(true);
        });
        figures.kills += 1;
      } finally {
        holdPlan = undefined;
        loopback.release();
      }

      const rh = await buildRunHarness({ dir, dbFile: files.dbFile, counter: files.counter, rules: ALLOW });
      try {
        const run = await resumeToEnd(rh, runId, figures, (args) => ({
          content: [{ type: 'text', text: expectedResultText(args) }],
          structuredContent: undefined,
          isError: false,
        }));
        expect(run.status).toBe('completed');
        const lines = readLines(files.counter);
        figures.duplicates += lines.length - new Set(lines).size;
        expect(new Set(lines).size, 'a side effect ran twice').toBe(lines.length);
        expect(lines.every((line) => RANDOM_KILL_LINES.includes(line))).toBe(true);
        expect(conversationText(rh.store.messages(runId))).toBe(baseline);
      } finally {
        await rh.close();
      }
    },
    90_000,
  );
});
