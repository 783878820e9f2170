/**
 * Automatic reconnection against real servers: a stdio server that kills itself, an HTTP server
 * stopped and started again on the same port. Tests wait for status events, never for time.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPServerExitedError } from '../../electron/mcp/errors.js';
import type { ServerStatus } from '../../electron/mcp/registry.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { countEvents, readEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import type { TestHarness } from '../harness/harness.js';
import { buildHarness } from '../harness/harness.js';
import { nextStatus, recordStatuses } from './statusEvents.js';

const USER = { userId: 'tester', sessionId: 'reconnect-session' };

describe('automatic reconnection', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let h: TestHarness;
  let http: HttpFixture | undefined;
  let nextCall = 0;
  const call = () => ({ ...USER, callId: `call-${++nextCall}` });
  const eventsOf = (id: string): string => join(scratch.dir, `${id}.jsonl`);

  async function withServers(ids: string[], baseDelayMs = 100): Promise<void> {
    // random 1: every delay is exactly the capped exponential, so equal attempts fire in order.
    h = await buildHarness({
      dir: scratch.dir,
      registry: { reconnect: { baseDelayMs, maxDelayMs: Math.max(1_000, baseDelayMs), random: () => 1 } },
    });
    h.approver.answer = 'allow-once';
    for (const id of ids)
      h.registry.addServer(stdioFixtureConfig(id, { FIXTURE_EVENTS: eventsOf(id) }, { timeoutMs: 10_000 }));
    await h.registry.discover();
  }

  /** Kills the server mid-call (its `crash` tool) and returns once the call has failed. */
  async function crash(id: string): Promise<void> {
    const error = await h.harness.executeTool('crash', {}, { ...call(), serverId: id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPServerExitedError);
  }

  beforeEach(() => {
    scratch = scratchDir();
  });
  afterEach(async () => {
    await h?.close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  it('a killed stdio server comes back by itself, and the next call succeeds', async () => {
    await withServers(['fx']);
    const statuses = recordStatuses(h.registry, 'fx');
    const back = nextStatus(h.registry, 'fx', (s) => s.state === 'ready');
    await crash('fx');
    await back;
    expect(statuses[0]).toMatchObject({ state: 'reconnecting', attempt: 1, code: 'server_exited' });
    const reconnecting = statuses[0] as Extract<ServerStatus, { state: 'reconnecting' }>;
    expect(reconnecting.nextRetryAt).toBeGreaterThan(0);
    expect(statuses.map((s) => s.state)).toEqual(['reconnecting', 'connecting', 'ready']);

    const outcome = await h.harness.executeTool('echo', { text: 'again' }, call());
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(outcome.attempts).toBe(1);
    // Two processes: the one that died and the one that answered.
    const pids = new Set(
      readEvents(eventsOf('fx'))
        .filter((e) => e.event === 'initialize')
        .map((e) => e.instance),
    );
    expect(pids.size).toBe(2);
  });

  it('a call issued while the server reconnects waits for it and succeeds', async () => {
    await withServers(['fx'], 300);
    const reconnecting = nextStatus(h.registry, 'fx', (s) => s.state === 'reconnecting');
    await crash('fx');
    await reconnecting;
    // Issued now, while the server is down: the first attempt is refused ("not connected"),
    // the retry waits for the registry's ready instead of sleeping, and the second attempt runs.
    expect(h.registry.status('fx')?.state).toBe('reconnecting');
    const outcome = await h.harness.executeTool('echo', { text: 'waited' }, call());
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'waited' }]);
    expect(outcome.attempts).toBe(2);
    const trace = h.tracer.getTrace(outcome.traceId);
    const retry = trace?.events.find((e) => e.type === 'retry_scheduled');
    expect(retry?.data).toMatchObject({ nextAttempt: 2, waitForServerMs: 10_000 });
    expect(
      trace?.events.filter((e) => e.type === 'attempt_finished').map((e) => (e.data as { outcome: string }).outcome),
    ).toEqual(['error', 'ok']);
    expect(countEvents(eventsOf('fx'), 'tools/call')).toBe(2); // the crash, then the echo: the refused attempt never reached a server
  });

  it('a disabled, removed or disconnected server does not reconnect', async () => {
    // A first attempt 2 s after each crash: time enough, on a loaded machine, to disable, remove
    // and disconnect the three servers before any of them could start one.
    await withServers(['off', 'gone', 'cut', 'clock'], 2_000);
    const waits = ['off', 'gone', 'cut'].map((id) => nextStatus(h.registry, id, (s) => s.state === 'reconnecting'));
    await Promise.all(['off', 'gone', 'cut'].map((id) => crash(id)));
    await Promise.all(waits);
    const config = h.registry.server('off');
    if (!config) throw new Error('no config');
    await h.registry.updateServer({ ...config, enabled: false });
    await h.registry.removeServer('gone');
    await h.registry.disconnect('cut');
    const after = {
      off: recordStatuses(h.registry, 'off'),
      gone: recordStatuses(h.registry, 'gone'),
      cut: recordStatuses(h.registry, 'cut'),
    };
    await expect(h.registry.whenReady('off', { timeoutMs: 10_000 })).rejects.toThrow(/disabled/);
    await expect(h.registry.whenReady('cut', { timeoutMs: 10_000 })).rejects.toThrow(/not connected/);

    // The clock: a server crashed later, with the same delay, reconnects after the others'
    // first attempts would have started. By then none of them may have moved.
    const clockBack = nextStatus(h.registry, 'clock', (s) => s.state === 'ready');
    await crash('clock');
    await clockBack;
    expect(after).toEqual({ off: [], gone: [], cut: [] });
    expect(h.registry.status('off')).toEqual({ state: 'disabled' });
    expect(h.registry.status('cut')).toEqual({ state: 'closed' });
    expect(h.registry.status('gone')).toBeUndefined();
    for (const id of ['off', 'gone', 'cut']) expect(countEvents(eventsOf(id), 'initialize'), id).toBe(1);
    expect(countEvents(eventsOf('clock'), 'initialize')).toBe(2);
  });

  it('an HTTP server that went away and came back on the same port: a call meanwhile waits and succeeds', async () => {
    http = await startHttpFixture();
    h = await buildHarness({
      dir: scratch.dir,
      registry: { reconnect: { baseDelayMs: 100, maxDelayMs: 400, random: () => 1 } },
    });
    h.approver.answer = 'allow-once';
    h.registry.addServer(
      ServerConfigSchema.parse({ id: 'remote', name: 'Remote', transport: 'http', url: http.url, timeoutMs: 20_000 }),
    );
    await h.registry.discover();
    expect(h.registry.status('remote')).toEqual({ state: 'ready' });
    const reconnecting = nextStatus(h.registry, 'remote', (s) => s.state === 'reconnecting');
    await http.stop();
    // The client notices by itself (its event stream drops and cannot be reopened): the registry
    // starts reconnecting, and fails each attempt while the server is away.
    expect(await reconnecting).toMatchObject({ state: 'reconnecting', attempt: 1 });
    const secondAttemptFailed = nextStatus(h.registry, 'remote', (s) => s.state === 'reconnecting' && s.attempt === 2);

    // A call issued now is refused ("not connected", nothing sent) and waits for the reconnect.
    const pending = h.harness.executeTool('append', { line: 'after restart' }, call());
    expect(await secondAttemptFailed).toMatchObject({ code: 'unreachable', cause: { kind: 'connection_refused' } });
    expect(http.sideEffects).toEqual([]);
    await http.start();
    const outcome = await pending;
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'appended after restart' }]);
    expect(outcome.attempts).toBe(2);
    expect(http.sideEffects).toEqual(['after restart']);
    expect(http.methodCounts.get('initialize')).toBe(2);
    expect(h.registry.status('remote')).toEqual({ state: 'ready' });
  });
});
