/**
 * Agent runs over the real pipeline: the loopback provider (both APIs, through the official
 * SDKs) drives a real stdio server's write tool through `HarnessApplication.executeTool`.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCaller } from '../../electron/runs/runEngine.js';
import { readEvents, readLines, scratchDir } from '../helpers/fixtures.js';
import type { ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider, turnsByToolResults } from '../doubles/providers/loopbackProvider.js';
import type { RunHarness } from './runHarness.js';
import { buildRunHarness, conversationText, loopbackModel } from './runHarness.js';

const ALL = { allServers: true, serverIds: [], localTools: false };

describe('agent runs through the pipeline', () => {
  const scratch = scratchDir();
  let loopback: LoopbackProvider;
  let turns: ScriptedTurn[] = [];
  let rh: RunHarness | undefined;
  let n = 0;
  const counter = () => join(scratch.dir, `counter-${n}.txt`);
  const fixtureEvents = () => join(scratch.dir, `events-${n}.jsonl`);

  async function harness(level: 'ALLOW' | 'ASK'): Promise<RunHarness> {
    n += 1;
    rh = await buildRunHarness({
      dir: join(scratch.dir, `h${n}`),
      counter: counter(),
      events: fixtureEvents(),
      rules: [{ level, match: { serverId: 'fx' } }],
    });
    return rh;
  }

  beforeAll(async () => {
    loopback = await new LoopbackProvider((request) => turnsByToolResults(turns)(request)).start();
  });
  afterEach(async () => {
    await rh?.close();
    rh = undefined;
  });
  afterAll(async () => {
    await loopback.close();
    scratch.cleanup();
  });

  it.each(['anthropic', 'openai', 'openai_responses'] as const)(
    '%s: the model calls the write tool, sees its result, and finishes',
    async (kind) => {
      const { engine, store, h, events } = await harness('ALLOW');
      turns = [
        {
          kind: 'reply',
          text: ['Appending ', 'now.'],
          toolCalls: [{ id: 'toolu_01', name: 'append', args: { line: 'hello' } }],
          usage: { input: 30, output: 10 },
        },
        { kind: 'reply', text: ['Done.'], usage: { input: 50, output: 3 } },
      ];
      const before = loopback.requests.length;
      const run = await engine.start({
        model: loopbackModel(kind, loopback.origin),
        visibility: ALL,
        prompt: 'append hello',
      });
      const done = await engine.settled(run.id);

      expect(done.status).toBe('completed');
      expect(readLines(counter())).toEqual(['hello']);
      // The model's next turn saw the tool's result.
      expect(loopback.requests[before + 1]?.resultTexts).toEqual(['appended hello']);
      expect(conversationText(store.messages(run.id))).toBe(
        [
          'user: append hello',
          'assistant: Appending now. [call toolu_01 append {"line":"hello"}]',
          'result toolu_01: appended hello',
          'assistant: Done.',
        ].join('\n'),
      );
      expect(done).toMatchObject({ toolCalls: 1, inputTokens: 80, outputTokens: 13 });
      // The pipeline recorded the call under the run, by the model's tool-call id, as the run's caller.
      expect(h.checkpoints.get(run.id, 'toolu_01')).toMatchObject({
        status: 'completed',
        userId: runCaller(run),
        toolName: 'append',
        serverId: 'fx',
      });
      expect(
        events
          .filter((e) => e.type === 'text')
          .map((e) => (e as { delta: string }).delta)
          .join(''),
      ).toBe('Appending now.Done.');
      expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { status: string }).status)).toEqual([
        'pending',
        'running',
        'done',
      ]);
    },
  );

  it('Deny: the approval names the run and its model; the model sees a tool error and carries on', async () => {
    const { engine, store, h } = await harness('ASK');
    h.approver.answer = 'deny';
    turns = [
      { kind: 'reply', toolCalls: [{ id: 'toolu_d', name: 'append', args: { line: 'nope' } }] },
      { kind: 'reply', text: ['Understood, not appending.'] },
    ];
    const before = loopback.requests.length;
    const run = await engine.start({
      model: loopbackModel('anthropic', loopback.origin),
      visibility: ALL,
      prompt: 'append nope',
    });
    const done = await engine.settled(run.id);

    expect(done.status).toBe('completed');
    expect(h.approver.requests).toHaveLength(1);
    expect(h.approver.requests[0]).toMatchObject({
      userId: `agent run ${run.id.slice(0, 8)} (Loopback)`,
      sessionId: run.id,
      toolName: 'append',
    });
    expect(readLines(counter())).toEqual([]);
    const seen = loopback.requests[before + 1];
    expect(seen?.body.messages[2].content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_d',
      is_error: true,
    });
    expect(seen?.resultTexts[0]).toMatch(/denied/i);
    expect(store.toolCalls(run.id)[0]?.result).toMatchObject({ isError: true, code: 'permission_denied' });
  });

  it('Stop during the model stream cancels the stream; the run is stopped and resumable', async () => {
    const { engine } = await harness('ALLOW');
    turns = [{ kind: 'reply', text: ['Thinking'], hold: true }];
    const abandoned = loopback.abandoned;
    const run = await engine.start({
      model: loopbackModel('openai', loopback.origin),
      visibility: ALL,
      prompt: 'think',
    });
    await loopback.whenHeld();
    expect(engine.stop(run.id)).toBe(true);
    expect((await engine.settled(run.id)).status).toBe('stopped');
    await expect.poll(() => loopback.abandoned).toBe(abandoned + 1);
    loopback.release();

    turns = [{ kind: 'reply', text: ['Thought.'] }];
    await engine.resume(run.id);
    expect((await engine.settled(run.id)).status).toBe('completed');
  });

  it('Stop during a tool call cancels the call at the server', async () => {
    const { engine } = await harness('ALLOW');
    turns = [{ kind: 'reply', toolCalls: [{ id: 'toolu_s', name: 'slow', args: { ms: 60_000 } }] }];
    const run = await engine.start({
      model: loopbackModel('anthropic', loopback.origin),
      visibility: ALL,
      prompt: 'wait',
    });
    await expect
      .poll(() => readEvents(fixtureEvents()).some((e) => e.event === 'tools/call' && e.tool === 'slow'), {
        timeout: 10_000,
      })
      .toBe(true);
    engine.stop(run.id);
    expect((await engine.settled(run.id)).status).toBe('stopped');
    await expect
      .poll(() => readEvents(fixtureEvents()).some((e) => e.event === 'cancelled'), { timeout: 10_000 })
      .toBe(true);
  });

  it('the tool-call limit: calls past it are not run, the model is told, and the run ends limit_reached', async () => {
    const { engine, store } = await harness('ALLOW');
    turns = [
      {
        kind: 'reply',
        toolCalls: [
          { id: 'toolu_a', name: 'append', args: { line: 'a' } },
          { id: 'toolu_b', name: 'append', args: { line: 'b' } },
        ],
      },
    ];
    const run = await engine.start({
      model: loopbackModel('anthropic', loopback.origin),
      visibility: ALL,
      prompt: 'two',
      limits: { maxToolCalls: 1 },
    });
    const done = await engine.settled(run.id);
    expect(done).toMatchObject({ status: 'limit_reached', toolCalls: 1, outcome: { code: 'max_tool_calls' } });
    expect(readLines(counter())).toEqual(['a']);
    expect(store.toolCalls(run.id)[1]?.result).toMatchObject({ isError: true, code: 'max_tool_calls' });
  });

  it('the token budget: once spent, no further model turn is asked; the run ends limit_reached', async () => {
    const { engine } = await harness('ALLOW');
    turns = [
      {
        kind: 'reply',
        toolCalls: [{ id: 'toolu_t', name: 'append', args: { line: 't' } }],
        usage: { input: 900, output: 200 },
      },
      { kind: 'reply', text: ['never asked'] },
    ];
    const before = loopback.requests.length;
    const run = await engine.start({
      model: loopbackModel('openai', loopback.origin),
      visibility: ALL,
      prompt: 'spend',
      limits: { tokenBudget: 1000 },
    });
    const done = await engine.settled(run.id);
    expect(done).toMatchObject({
      status: 'limit_reached',
      inputTokens: 900,
      outputTokens: 200,
      outcome: { code: 'token_budget' },
    });
    // The call of the turn that spent it was answered; the next turn was never requested.
    expect(readLines(counter())).toEqual(['t']);
    expect(loopback.requests.length - before).toBe(1);
  });

  it('a 429 with Retry-After and a cut stream are asked again; a 401 fails the run with its code', async () => {
    const { engine, events } = await harness('ALLOW');
    let calls = 0;
    loopback.script = () => {
      calls += 1;
      if (calls === 1) return { kind: 'status', status: 429, retryAfter: '0' };
      if (calls === 2) return { kind: 'cut', text: ['Par'] };
      return { kind: 'reply', text: ['Whole.'] };
    };
    try {
      const run = await engine.start({
        model: loopbackModel('openai', loopback.origin),
        visibility: ALL,
        prompt: 'hi',
      });
      expect((await engine.settled(run.id)).status).toBe('completed');
      expect(events.filter((e) => e.type === 'turn_restarted').map((e) => (e as { reason: string }).reason)).toEqual([
        'model_rate_limited',
        'model_stream_cut',
      ]);

      loopback.script = () => ({ kind: 'status', status: 401 });
      const refused = await engine.start({
        model: loopbackModel('anthropic', loopback.origin),
        visibility: ALL,
        prompt: 'hi',
      });
      expect(await engine.settled(refused.id)).toMatchObject({
        status: 'failed',
        outcome: { code: 'model_auth_failed' },
      });
    } finally {
      loopback.script = (request) => turnsByToolResults(turns)(request);
    }
  });
});
