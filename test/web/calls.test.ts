import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApprovalView,
  CallOutcome,
  HistoryRecordView,
  PermissionsView,
  ServerView,
} from '../../shared/contract.js';
import {
  BUILT_STDIO_FIXTURE,
  PROJECT_ROOT,
  readLines,
  scratchDir,
  waitFor,
  sandboxWritingTo,
} from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, startTestHost } from './host.js';

const newCallId = () => `call-${randomUUID()}`;

describe('tool calls, approvals, permissions, traces, history and import over the contract', () => {
  const scratch = scratchDir();
  const counter = join(scratch.dir, 'counter.txt');
  let running: RunningHost;
  let client: BridgeClient;

  async function ok<T>(channel: string, payload: unknown): Promise<T> {
    const reply = await client.call(channel, payload);
    if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
    return reply.result as T;
  }
  async function nextApproval(after: number): Promise<ApprovalView> {
    await waitFor(() => client.events.slice(after).some((e) => e.event === 'approval.requested'));
    return client.events.slice(after).find((e) => e.event === 'approval.requested')?.payload as ApprovalView;
  }

  beforeAll(async () => {
    running = await startTestHost(scratch.dir);
    client = await BridgeClient.connect(running.host.port);
    await ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_COUNTER: counter },
        sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter }),
      },
    });
    await waitFor(async () => ((await ok<ServerView[]>('servers.list', {}))[0]?.toolCount ?? 0) > 0, 10_000);
  });
  afterAll(async () => {
    client.close();
    await running.close();
    scratch.cleanup();
  });

  it('an ASK call waits for the person: deny runs nothing, allow once runs it, replay repeats nothing', async () => {
    const perms = await ok<PermissionsView>('permissions.get', {});
    expect(perms.tools.find((t) => t.serverId === 'fx' && t.toolName === 'append')).toMatchObject({
      level: 'ASK',
      reason: { kind: 'untrusted-default' },
    });
    expect(perms.tools.find((t) => t.serverId === 'local' && t.toolName === 'read_file')).toMatchObject({
      level: 'ALLOW',
    });

    // Deny.
    let mark = client.events.length;
    const denied = client.call('tools.call', {
      name: 'append',
      serverId: 'fx',
      args: { line: 'one' },
      callId: newCallId(),
    });
    const first = await nextApproval(mark);
    expect(first).toMatchObject({ toolName: 'append', serverId: 'fx', args: { line: 'one' } });
    expect(readLines(counter)).toEqual([]);
    expect(await ok('approvals.answer', { requestId: first.requestId, answer: 'deny' })).toEqual({ accepted: true });
    const deniedReply = await denied;
    expect(deniedReply).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
    expect(readLines(counter)).toEqual([]);
    const deniedTraceId = !deniedReply.ok ? deniedReply.error.details?.traceId : undefined;
    const deniedTrace = await ok<{
      trace: { status: string };
      events: Array<{ type: string; data: Record<string, unknown> }>;
    }>('traces.get', { traceId: deniedTraceId });
    expect(deniedTrace.trace.status).toBe('denied');
    expect(deniedTrace.events.find((e) => e.type === 'approval_answered')?.data).toMatchObject({
      approved: false,
      answeredBy: 'deny',
    });

    // The same decision sent again (stale), or for an unknown id, is refused.
    expect(await client.call('approvals.answer', { requestId: first.requestId, answer: 'allow-once' })).toMatchObject({
      ok: false,
      error: { code: 'stale_approval' },
    });
    expect(await client.call('approvals.answer', { requestId: randomUUID(), answer: 'allow-always' })).toMatchObject({
      ok: false,
      error: { code: 'stale_approval' },
    });

    // Allow once.
    mark = client.events.length;
    const callId = newCallId();
    const allowed = ok<CallOutcome>('tools.call', { name: 'append', serverId: 'fx', args: { line: 'two' }, callId });
    const second = await nextApproval(mark);
    await ok('approvals.answer', { requestId: second.requestId, answer: 'allow-once' });
    const outcome = await allowed;
    expect(outcome).toMatchObject({
      replayed: false,
      attempts: 1,
      result: { isError: false, structuredContent: { appended: 'two' } },
    });
    expect(readLines(counter)).toEqual(['two']);

    // Replay from History: the stored result, nothing runs, no approval asked.
    mark = client.events.length;
    const replay = await ok<CallOutcome>('history.replay', { sessionId: outcome.sessionId, callId });
    expect(replay).toMatchObject({ replayed: true, attempts: 0, result: outcome.result });
    expect(readLines(counter)).toEqual(['two']);
    expect(client.events.slice(mark).some((e) => e.event === 'approval.requested')).toBe(false);
    const replayTrace = await ok<{ trace: { status: string } }>('traces.get', { traceId: replay.traceId });
    expect(replayTrace.trace.status).toBe('replayed');
  });

  it('cancelling a call closes its pending approval and runs nothing', async () => {
    const mark = client.events.length;
    const callId = newCallId();
    const pending = client.call('tools.call', { name: 'append', serverId: 'fx', args: { line: 'cancelled' }, callId });
    const request = await nextApproval(mark);
    expect(await ok<ApprovalView[]>('approvals.list', {})).toEqual([request]);
    expect(await ok('tools.cancel', { callId })).toEqual({ cancelled: true });
    expect(await pending).toMatchObject({ ok: false, error: { code: 'approval_cancelled' } });
    await waitFor(() =>
      client.events.some(
        (e) => e.event === 'approval.closed' && (e.payload as { requestId: string }).requestId === request.requestId,
      ),
    );
    expect(await ok<ApprovalView[]>('approvals.list', {})).toEqual([]);
    expect(readLines(counter)).toEqual(['two']);
  });

  it('"always allow" is stored, listed, and revocable; per-tool levels and server trust apply', async () => {
    const mark = client.events.length;
    const call = ok<CallOutcome>('tools.call', {
      name: 'append',
      serverId: 'fx',
      args: { line: 'three' },
      callId: newCallId(),
    });
    const request = await nextApproval(mark);
    await ok('approvals.answer', { requestId: request.requestId, answer: 'allow-always' });
    await call;
    let perms = await ok<PermissionsView>('permissions.get', {});
    const always = perms.rules.find((r) => r.fromApproval);
    expect(always).toMatchObject({ level: 'ALLOW', match: { serverId: 'fx', toolName: 'append' }, stale: false });
    expect(perms.tools.find((t) => t.toolName === 'append')).toMatchObject({
      level: 'ALLOW',
      reason: { kind: 'rule' },
    });
    // No dialog now.
    await ok<CallOutcome>('tools.call', {
      name: 'append',
      serverId: 'fx',
      args: { line: 'four' },
      callId: newCallId(),
    });
    expect(readLines(counter)).toEqual(['two', 'three', 'four']);

    perms = await ok<PermissionsView>('permissions.removeRule', { ruleId: always?.id });
    expect(perms.rules.some((r) => r.fromApproval)).toBe(false);

    perms = await ok<PermissionsView>('permissions.setToolLevel', {
      serverId: 'fx',
      toolName: 'append',
      level: 'DENY',
    });
    expect(perms.tools.find((t) => t.toolName === 'append')).toMatchObject({
      level: 'DENY',
      toolRuleId: expect.stringMatching(/^tool:fx:append@[0-9a-f-]{8}$/),
    });
    expect(
      await client.call('tools.call', { name: 'append', serverId: 'fx', args: { line: 'x' }, callId: newCallId() }),
    ).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
    await ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'default' });

    perms = await ok<PermissionsView>('permissions.setServerTrust', { serverId: 'fx', trusted: true });
    expect(perms.servers).toEqual([{ serverId: 'fx', name: 'Fixture', trusted: true }]);
    expect(perms.tools.find((t) => t.toolName === 'echo')).toMatchObject({
      level: 'ALLOW',
      reason: { kind: 'trusted-annotation-default' },
    });
    expect(perms.tools.find((t) => t.toolName === 'append')).toMatchObject({
      level: 'ASK',
      reason: { kind: 'trusted-annotation-default' },
    });
    expect(readLines(counter)).toEqual(['two', 'three', 'four']);
  });

  it('history pages records, resolves an unknown one by hand, and re-runs as a new call', async () => {
    await ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'ALLOW' });
    const stuck = newCallId();
    const failed = await client.call('tools.call', {
      name: 'slow',
      serverId: 'fx',
      args: { ms: 5_000 },
      callId: stuck,
      timeoutMs: 200,
    });
    expect(failed).toMatchObject({ ok: false, error: { code: 'timeout' } });
    const { current } = await ok<{ current: string }>('history.sessions', {});
    let page = await ok<{ records: HistoryRecordView[] }>('history.page', { sessionId: current, status: 'started' });
    expect(page.records.map((r) => r.callId)).toEqual([stuck]);
    // Started, and no live call owns it: its result is unknown.
    expect(page.records[0]?.status).toBe('unknown');
    expect(await client.call('history.replay', { sessionId: current, callId: stuck })).toMatchObject({
      ok: false,
      error: { code: 'not_replayable' },
    });
    const resolved = await ok<HistoryRecordView>('history.resolve', {
      sessionId: current,
      callId: stuck,
      resolution: { status: 'failed', note: 'checked: nothing happened' },
    });
    expect(resolved).toMatchObject({ status: 'failed', resolvedBy: 'manual' });

    page = await ok<{ records: HistoryRecordView[] }>('history.page', { sessionId: current, limit: 2 });
    expect(page.records).toHaveLength(2);
    const appended = (
      await ok<{ records: HistoryRecordView[] }>('history.page', { sessionId: current, toolName: 'echo' })
    ).records;
    expect(appended).toEqual([]);

    await ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
    const completed = (
      await ok<{ records: HistoryRecordView[] }>('history.page', {
        sessionId: current,
        status: 'completed',
        toolName: 'append',
      })
    ).records.at(-1);
    const rerun = await ok<CallOutcome>('history.rerun', {
      sessionId: current,
      callId: completed?.callId,
      newCallId: newCallId(),
    });
    expect(rerun.replayed).toBe(false);
    expect(readLines(counter)).toEqual(['two', 'three', 'four', 'two']);
  });

  it('traces are listed with filters and exported as JSON', async () => {
    const list = await ok<{ traces: Array<{ traceId: string; status: string; toolName: string }> }>('traces.list', {
      toolName: 'append',
      status: 'denied',
    });
    expect(list.traces.length).toBeGreaterThanOrEqual(2);
    expect(list.traces.every((t) => t.toolName === 'append' && t.status === 'denied')).toBe(true);
    const exported = await ok<{ format: string; events: unknown[] }>('traces.export', {
      traceId: list.traces[0]?.traceId,
    });
    expect(exported.format).toBe('miniharness-trace');
    expect(exported.events.length).toBeGreaterThan(0);
  });

  it('imports a Claude Desktop file: servers listed and connected, secrets only in the store', async () => {
    const secret = 'ghp_import_secret_value_123456';
    const content = JSON.stringify({
      mcpServers: {
        'Imported Fixture': {
          command: process.execPath,
          args: [BUILT_STDIO_FIXTURE],
          env: { GITHUB_TOKEN: secret, FIXTURE_NAME: 'imported' },
        },
        broken: { nothing: true },
      },
    });
    const preview = await ok<{
      format: string;
      servers: Array<{ name: string; secretSlots: string[]; problems: string[]; config?: Record<string, unknown> }>;
    }>('import.preview', { fileName: 'claude_desktop_config.json', content });
    expect(preview.format).toBe('claude');
    expect(preview.servers.find((s) => s.name === 'Imported Fixture')).toMatchObject({
      secretSlots: ['env.GITHUB_TOKEN'],
      problems: [],
    });
    expect(JSON.stringify(preview)).not.toContain(secret);
    expect(preview.servers.find((s) => s.name === 'broken')?.problems).toEqual(['it has neither a command nor a url']);

    // Choosing the broken one too imports nothing.
    expect(
      await client.call('import.apply', {
        content,
        fileName: 'claude_desktop_config.json',
        names: ['Imported Fixture', 'broken'],
      }),
    ).toMatchObject({ ok: false, error: { code: 'validation' } });
    expect((await ok<ServerView[]>('servers.list', {})).map((s) => s.config.id)).toEqual(['fx']);

    const applied = await ok<{ imported: ServerView[] }>('import.apply', {
      content,
      fileName: 'claude_desktop_config.json',
      names: ['Imported Fixture'],
    });
    expect(applied.imported.map((s) => [s.config.id, s.secrets])).toEqual([
      ['imported-fixture', { 'env.GITHUB_TOKEN': 'set' }],
    ]);
    await waitFor(
      async () =>
        (await ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'imported-fixture')?.status.state ===
        'ready',
      10_000,
    );
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(running.dataDir, 'config.json'), 'utf8')).not.toContain(secret);
    expect(readFileSync(join(running.dataDir, 'secrets.json'), 'utf8')).toContain(secret);
  });

  it('a malformed config file gives a clear error and imports nothing', async () => {
    const before = (await ok<ServerView[]>('servers.list', {})).length;
    const reply = await client.call('import.preview', {
      content: '{ "mcpServers": { "a": ',
      fileName: 'claude_desktop_config.json',
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'import_malformed' } });
    expect(await client.call('import.apply', { content: '{"other": 1}', names: ['a'] })).toMatchObject({
      ok: false,
      error: { code: 'import_unrecognized' },
    });
    expect((await ok<ServerView[]>('servers.list', {})).length).toBe(before);
  });
});
