/**
 * A result over the size limit (16 MiB) from a real server: the call fails with the typed
 * result_too_large error (not "exited"), the checkpoint keeps that cause, and the server comes
 * back by itself with its tools — over stdio (the SDK's line reader) and over Streamable HTTP
 * (the response body counter).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MESSAGE_BYTES, MCPResultTooLargeError } from '../../electron/mcp/errors.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { countEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import type { TestHarness } from '../harness/harness.js';
import { buildHarness } from '../harness/harness.js';
import { nextStatus, recordStatuses } from './statusEvents.js';

const USER = { userId: 'tester', sessionId: 'big-session' };

describe('a result larger than the limit', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let h: TestHarness;
  let http: HttpFixture | undefined;

  beforeEach(async () => {
    scratch = scratchDir();
    h = await buildHarness({
      dir: scratch.dir,
      registry: { reconnect: { baseDelayMs: 50, maxDelayMs: 200, random: () => 1 } },
    });
    h.approver.answer = 'allow-once';
  });
  afterEach(async () => {
    await h.close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  async function expectTooLargeThenBack(config: ServerConfig): Promise<void> {
    h.registry.addServer(config);
    await h.registry.discover();
    expect(h.registry.status(config.id)).toEqual({ state: 'ready' });
    const statuses = recordStatuses(h.registry, config.id);
    const back = nextStatus(h.registry, config.id, (s) => s.state === 'ready');

    const error: unknown = await h.harness
      .executeTool('big', { mb: 20 }, { ...USER, callId: `${config.id}-big-1` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPResultTooLargeError);
    const tooLarge = error as MCPResultTooLargeError;
    expect(tooLarge.code).toBe('result_too_large');
    expect(tooLarge.details).toEqual({ serverId: config.id, limitBytes: DEFAULT_MAX_MESSAGE_BYTES, retryable: false });
    expect(tooLarge.message).toContain('result too large (limit 16 MiB)');
    expect(tooLarge.message).not.toMatch(/exited/);

    // The record keeps the cause; the call ran once (a result_too_large is never retried).
    const record = h.checkpoints.get(USER.sessionId, `${config.id}-big-1`);
    expect(record?.status).toBe('started');
    expect(record?.lastError?.code).toBe('result_too_large');
    expect(record?.attempts).toBe(1);

    // The connection was reset and came back by itself, with its tools.
    await back;
    expect(statuses.map((s) => s.state)).toEqual(expect.arrayContaining(['reconnecting', 'connecting', 'ready']));
    expect(statuses.find((s) => s.state === 'reconnecting')).toMatchObject({ attempt: 1, code: 'result_too_large' });
    expect(
      h.registry
        .allTools()
        .filter((t) => t.serverId === config.id)
        .map((t) => t.name),
    ).toEqual(expect.arrayContaining(['big', 'echo']));
    const after = await h.harness.executeTool(
      'echo',
      { text: 'still here' },
      { ...USER, callId: `${config.id}-echo-1` },
    );
    expect(after.result.content).toEqual([{ type: 'text', text: 'still here' }]);

    // A result under the limit passes whole.
    const fits = await h.harness.executeTool('big', { mb: 12 }, { ...USER, callId: `${config.id}-big-2` });
    expect((fits.result.content[0] as { text: string }).text).toHaveLength(12 * 1024 * 1024);
  }

  it('over stdio: result_too_large, recorded, and the server is reconnected', async () => {
    const events = join(scratch.dir, 'events.jsonl');
    await expectTooLargeThenBack(stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo,big' }));
    // A second process answered after the reset.
    expect(countEvents(events, 'initialize')).toBe(2);
  });

  it('over Streamable HTTP: result_too_large, recorded, and the session is renewed', async () => {
    http = await startHttpFixture({ tools: ['echo', 'big'] });
    await expectTooLargeThenBack(
      ServerConfigSchema.parse({ id: 'remote', name: 'Remote', transport: 'http', url: http.url, timeoutMs: 10_000 }),
    );
    expect(http.methodCounts.get('initialize')).toBe(2);
  });
});
