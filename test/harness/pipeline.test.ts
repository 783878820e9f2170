import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointArgumentsMismatchError, CheckpointInProgressError } from '../../electron/checkpoints/errors.js';
import { traceIdOf } from '../../electron/harness/application.js';
import { MCPRequestTimeout, MCPTransportError } from '../../electron/mcp/errors.js';
import { PermissionDeniedError } from '../../electron/security/errors.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { countEvents, readLines, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import type { TestHarness } from './harness.js';
import { buildHarness } from './harness.js';

const USER = { userId: 'tester', sessionId: 'session-1' };

describe('HarnessApplication.executeTool: the one secure entry', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let h: TestHarness;
  let counter: string;
  let events: string;
  let http: HttpFixture | undefined;
  let nextCall = 0;
  const call = () => ({ ...USER, callId: `call-${++nextCall}` });

  async function withFixture(
    options: Parameters<typeof buildHarness>[0] extends infer O ? Partial<O> : never = {},
  ): Promise<void> {
    h = await buildHarness({ dir: scratch.dir, ...options });
    h.registry.addServer(
      stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_COUNTER: counter }, { trusted: false }),
    );
    await h.registry.discover();
  }

  beforeEach(() => {
    scratch = scratchDir();
    counter = join(scratch.dir, 'counter.txt');
    events = join(scratch.dir, 'events.jsonl');
  });
  afterEach(async () => {
    await h?.close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  describe('DENY happens before any side effect', () => {
    it('for an MCP tool: the server never sees the call', async () => {
      await withFixture({
        rules: [{ level: 'DENY', match: { serverId: 'fx', toolName: 'append' }, note: 'no appends' }],
      });
      const error = await h.harness.executeTool('append', { line: 'x' }, call()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(readLines(counter)).toEqual([]);
      expect(countEvents(events, 'tools/call')).toBe(0);
      expect(h.approver.requests).toEqual([]);
      const trace = h.tracer.getTrace(traceIdOf(error) ?? '');
      expect(trace?.trace.status).toBe('denied');
      expect(trace?.events.map((e) => e.type)).toEqual(['decision']);
      expect(h.checkpoints.history({ limit: 10 }).records).toEqual([]);
    });

    it('for a local tool: the file is never written', async () => {
      await withFixture({ rules: [{ level: 'DENY', match: { serverId: 'local', toolName: 'write_file' } }] });
      await expect(
        h.harness.executeTool('write_file', { path: 'out.txt', content: 'x' }, call()),
      ).rejects.toBeInstanceOf(PermissionDeniedError);
      expect(existsSync(join(h.root, 'out.txt'))).toBe(false);
    });

    it('a guardrail refusal (path outside the roots) is a DENY whatever the rules say', async () => {
      await withFixture({ rules: [{ level: 'ALLOW', match: { serverId: 'local' } }] });
      const error = await h.harness
        .executeTool('write_file', { path: '../escape.txt', content: 'x' }, call())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(existsSync(join(scratch.dir, 'escape.txt'))).toBe(false);
      const trace = h.tracer.getTrace(traceIdOf(error) ?? '');
      expect(trace?.events[0]).toMatchObject({ type: 'guardrail', data: { outcome: 'blocked' } });
    });
  });

  describe('ASK waits for a person; nothing runs before the answer', () => {
    it('deny: nothing runs', async () => {
      await withFixture();
      h.approver.answer = 'deny';
      await expect(h.harness.executeTool('append', { line: 'x' }, call())).rejects.toMatchObject({ answer: 'deny' });
      expect(h.approver.requests).toHaveLength(1);
      expect(h.approver.requests[0]).toMatchObject({ toolName: 'append', serverId: 'fx', args: { line: 'x' } });
      expect(readLines(counter)).toEqual([]);
    });

    it('allow once: runs exactly once, and asks again next time', async () => {
      await withFixture();
      h.approver.answer = 'allow-once';
      const done = await h.harness.executeTool('append', { line: 'approved' }, call());
      expect(done.result.structuredContent).toEqual({ appended: 'approved' });
      expect(readLines(counter)).toEqual(['approved']);
      const trace = h.tracer.getTrace(done.traceId);
      expect(trace?.events.map((e) => e.type)).toEqual([
        'decision',
        'approval_requested',
        'approval_answered',
        'claim',
        'attempt_started',
        'attempt_finished',
        'completed',
      ]);
      h.approver.answer = 'deny';
      await expect(h.harness.executeTool('append', { line: 'second' }, call())).rejects.toBeInstanceOf(
        PermissionDeniedError,
      );
      expect(readLines(counter)).toEqual(['approved']);
    });

    it('a retry of a recorded key is answered before anyone is asked: the stored result, or the refusal', async () => {
      await withFixture();
      h.approver.answer = 'allow-once';
      const ids = call();
      const first = await h.harness.executeTool('append', { line: 'once' }, ids);
      expect(h.approver.requests).toHaveLength(1);
      // Whatever the person would answer now, nothing would run: they are not asked.
      h.approver.answer = 'deny';
      const again = await h.harness.executeTool('append', { line: 'once' }, ids);
      expect(again).toMatchObject({ replayed: true, attempts: 0, result: first.result });
      expect(h.tracer.getTrace(again.traceId)?.events.map((e) => e.type)).toEqual(['decision', 'claim', 'replay']);
      // The same key with other arguments is refused, also without asking.
      const refused = await h.harness.executeTool('append', { line: 'other' }, ids).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CheckpointArgumentsMismatchError);
      // Refused by the lookup, it is the call's error (as from the claim), not a denial.
      expect(h.tracer.getTrace(traceIdOf(refused) ?? '')?.trace.status).toBe('error');
      expect(h.approver.requests).toHaveLength(1);
      expect(readLines(counter)).toEqual(['once']);
    });

    it('a DENY rule refuses even a recorded key: no replay, nobody asked', async () => {
      await withFixture();
      h.approver.answer = 'allow-once';
      const ids = call();
      await h.harness.executeTool('append', { line: 'kept' }, ids);
      await h.engine.addRule({ level: 'DENY', match: { serverId: 'fx', toolName: 'append' }, note: 'no more appends' });
      // Nothing runs now, but the earlier call with this key did: the denial says so.
      await expect(h.harness.executeTool('append', { line: 'kept' }, ids)).rejects.toMatchObject({
        level: 'DENY',
        decidedBy: { by: 'rule' },
        denial: { by: 'rule', keyRecorded: 'completed' },
      });
      expect(h.approver.requests).toHaveLength(1);
      expect(readLines(counter)).toEqual(['kept']);
    });

    it('no answer within the timeout is a deny', async () => {
      await withFixture({ approvalTimeoutMs: 300 });
      h.approver.answer = 'never';
      // The refusal names the configured wait (not a wall-clock measurement, which a loaded machine skews).
      await expect(h.harness.executeTool('append', { line: 'late' }, call())).rejects.toMatchObject({
        answer: 'timeout',
        timeoutMs: 300,
      });
      expect(readLines(counter)).toEqual([]);
    });
  });

  it('a completed call replays its result without running again', async () => {
    await withFixture({ rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    const ids = call();
    const first = await h.harness.executeTool('append', { line: 'once' }, ids);
    const again = await h.harness.executeTool('append', { line: 'once' }, ids);
    expect(again.replayed).toBe(true);
    expect(again.result).toEqual(first.result);
    expect(again.attempts).toBe(0);
    expect(readLines(counter)).toEqual(['once']);
    expect(h.tracer.getTrace(again.traceId)?.trace.status).toBe('replayed');
    // Same callId, other arguments: an error, never a replay.
    await expect(h.harness.executeTool('append', { line: 'different' }, ids)).rejects.toBeInstanceOf(
      CheckpointArgumentsMismatchError,
    );
    expect(readLines(counter)).toEqual(['once']);
  });

  it('1,000 concurrent calls with one callId execute exactly once', async () => {
    await withFixture({ rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    const ids = call();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1000 }, () => h.harness.executeTool('append', { line: 'the-one' }, ids)),
    );
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const rejected = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(fulfilled.filter((r) => !r.replayed)).toHaveLength(1);
    expect(fulfilled.length + rejected.length).toBe(1000);
    for (const reason of rejected) expect(reason).toBeInstanceOf(CheckpointInProgressError);
    expect(readLines(counter)).toEqual(['the-one']);
    expect(countEvents(events, 'tools/call')).toBe(1);
  });

  it('knows which calls it is running now (a started record it does not run has an unknown result)', async () => {
    await withFixture({ rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    const ids = call();
    expect(h.harness.isRunning(ids.sessionId, ids.callId)).toBe(false);
    const pending = h.harness.executeTool('slow', { ms: 400 }, ids);
    await waitFor(() => h.harness.isRunning(ids.sessionId, ids.callId));
    expect(h.checkpoints.get(ids.sessionId, ids.callId)?.status).toBe('started');
    await pending;
    expect(h.harness.isRunning(ids.sessionId, ids.callId)).toBe(false);
  });

  it("an owner's failure keeps the record started; a later call is told the result is unknown", async () => {
    await withFixture({ rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
    const ids = call();
    await expect(h.harness.executeTool('slow', { ms: 5_000 }, { ...ids, timeoutMs: 200 })).rejects.toBeInstanceOf(
      MCPRequestTimeout,
    );
    expect(h.checkpoints.get(ids.sessionId, ids.callId)).toMatchObject({
      status: 'started',
      lastError: { code: 'timeout' },
    });
    const error = await h.harness.executeTool('slow', { ms: 5_000 }, ids).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointInProgressError);
    expect((error as Error).message).toMatch(/in progress or (its )?result (is )?unknown/i);
    // A timeout of a tool not known to be idempotent is never retried.
    const trace = h.tracer.getTrace(h.checkpoints.get(ids.sessionId, ids.callId)?.traceId ?? '');
    expect(trace?.events.filter((e) => e.type === 'attempt_started')).toHaveLength(1);
    // Denied now by a rule, the key's earlier call may have acted: the denial says so, while a
    // fresh key's denial says nothing is recorded for it.
    await h.engine.addRule({ level: 'DENY', match: { serverId: 'fx', toolName: 'slow' }, note: 'no more slow calls' });
    await expect(h.harness.executeTool('slow', { ms: 5_000 }, ids)).rejects.toMatchObject({
      denial: { by: 'rule', keyRecorded: 'started' },
    });
    const fresh = await h.harness.executeTool('slow', { ms: 5_000 }, call()).catch((e: unknown) => e);
    expect(fresh).toBeInstanceOf(PermissionDeniedError);
    expect((fresh as PermissionDeniedError).denial.keyRecorded).toBeUndefined();
  });

  describe('retries', () => {
    async function withHttp(failTimes: number): Promise<void> {
      http = await startHttpFixture({ failCalls: { status: 503, times: failTimes } });
      h = await buildHarness({
        dir: scratch.dir,
        rules: [{ level: 'ALLOW', match: { serverId: 'web' } }],
        retry: { maxAttempts: 3 },
      });
      h.registry.addServer({ id: 'web', name: 'Web', transport: 'http', url: http.url });
      await h.registry.discover();
    }

    it('a recoverable failure (HTTP 503) is retried within one trace until it succeeds', async () => {
      await withHttp(2);
      const done = await h.harness.executeTool('append', { line: 'after-retries' }, call());
      expect(done.attempts).toBe(3);
      expect(http?.sideEffects).toEqual(['after-retries']);
      const trace = h.tracer.getTrace(done.traceId);
      expect(trace?.events.map((e) => e.type)).toEqual([
        'decision',
        'claim',
        'attempt_started',
        'attempt_finished',
        'retry_scheduled',
        'attempt_started',
        'attempt_finished',
        'retry_scheduled',
        'attempt_started',
        'attempt_finished',
        'completed',
      ]);
      const delays = trace?.events.flatMap((e) => (e.type === 'retry_scheduled' ? [e.data.delayMs] : []));
      expect(delays?.every((d) => d >= 5 && d <= 50)).toBe(true);
      expect(new Set(trace?.events.map((e) => e.traceId))).toEqual(new Set([done.traceId]));
    });

    it("a proxy's 502 is not retried for a tool not known to be idempotent: the server behind it may have acted", async () => {
      http = await startHttpFixture({ failCalls: { status: 502, times: 1 } });
      h = await buildHarness({
        dir: scratch.dir,
        rules: [{ level: 'ALLOW', match: { serverId: 'web' } }],
        retry: { maxAttempts: 3 },
      });
      h.registry.addServer({ id: 'web', name: 'Web', transport: 'http', url: http.url });
      await h.registry.discover();
      const ids = call();
      const error = await h.harness.executeTool('append', { line: 'maybe' }, ids).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPTransportError);
      expect(http.failedCalls).toBe(1);
      const trace = h.tracer.getTrace(traceIdOf(error) ?? '');
      expect(trace?.events.filter((e) => e.type === 'attempt_started')).toHaveLength(1);
      expect(trace?.events.find((e) => e.type === 'attempt_finished')?.data).toMatchObject({ recoverable: false });
      expect(h.checkpoints.get(ids.sessionId, ids.callId)).toMatchObject({ status: 'started', attempts: 1 });
    });

    it('stops at the cap and keeps the record started', async () => {
      await withHttp(10);
      const ids = call();
      const error = await h.harness.executeTool('append', { line: 'never' }, ids).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPTransportError);
      expect(http?.failedCalls).toBe(3);
      expect(http?.sideEffects).toEqual([]);
      const trace = h.tracer.getTrace(traceIdOf(error) ?? '');
      expect(trace?.events.filter((e) => e.type === 'attempt_started')).toHaveLength(3);
      expect(trace?.events.filter((e) => e.type === 'retry_scheduled')).toHaveLength(2);
      expect(trace?.trace.status).toBe('error');
      expect(h.checkpoints.get(ids.sessionId, ids.callId)).toMatchObject({ status: 'started', attempts: 3 });
    });
  });

  it('MCP and local tools pass through the same executor, each with a trace', async () => {
    await withFixture({
      rules: [
        { level: 'ALLOW', match: { serverId: 'fx' } },
        { level: 'ALLOW', match: { serverId: 'local' } },
      ],
    });
    const mcp = await h.harness.executeTool('echo', { text: 'remote' }, call());
    const local = await h.harness.executeTool('write_file', { path: 'note.txt', content: 'local' }, call());
    expect(h.security.authorized).toEqual(['fx/echo', 'local/write_file']);
    expect(readLines(join(h.root, 'note.txt'))).toEqual(['local']);
    const steps = (traceId: string) => h.tracer.getTrace(traceId)?.events.map((e) => e.type);
    expect(steps(mcp.traceId)).toEqual(['decision', 'claim', 'attempt_started', 'attempt_finished', 'completed']);
    // Local tools add their own guardrail check (paths inside the roots) before the decision.
    expect(steps(local.traceId)).toEqual([
      'guardrail',
      'decision',
      'claim',
      'attempt_started',
      'attempt_finished',
      'completed',
    ]);
    expect(
      h.checkpoints
        .history({ limit: 10 })
        .records.map((r) => `${r.serverId}/${r.toolName}/${r.status}`)
        .sort(),
    ).toEqual(['fx/echo/completed', 'local/write_file/completed']);
  });

  it('a local tool and an MCP tool with one name: by name the local one runs, the MCP one by its server', async () => {
    h = await buildHarness({
      dir: scratch.dir,
      rules: [
        { level: 'ALLOW', match: { serverId: 'local' } },
        { level: 'ALLOW', match: { serverId: 'shadow' } },
      ],
    });
    // A server whose echo tool is named like the local read_file.
    h.registry.addServer(
      stdioFixtureConfig(
        'shadow',
        { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo', FIXTURE_ECHO_NAME: 'read_file' },
        { priority: 100 },
      ),
    );
    await h.registry.discover();
    const infos = h.harness.listTools().filter((t) => t.name === 'read_file');
    expect(infos.map((t) => ({ source: t.source, serverId: t.serverId, shadowedBy: t.shadowedBy }))).toEqual([
      { source: 'local', serverId: 'local', shadowedBy: undefined },
      { source: 'mcp', serverId: 'shadow', shadowedBy: 'local' },
    ]);

    writeFileSync(join(h.root, 'a.txt'), 'local content');
    const byName = await h.harness.executeTool('read_file', { path: 'a.txt' }, call());
    expect(byName.serverId).toBe('local');
    expect(JSON.stringify(byName.result.content)).toContain('local content');
    expect(countEvents(events, 'tools/call')).toBe(0);

    const byServer = await h.harness.executeTool('read_file', { text: 'remote' }, { ...call(), serverId: 'shadow' });
    expect(byServer.result.content).toEqual([{ type: 'text', text: 'remote' }]);
    expect(countEvents(events, 'tools/call')).toBe(1);
  });
});
