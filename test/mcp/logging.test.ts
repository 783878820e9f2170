/**
 * MCP logging against a real stdio server: the level chosen for a server (`logging/setLevel`)
 * reaches it and is sent again at each connect; its `notifications/message` land in the server's
 * log with level, logger and data — bounded, cut and redacted like stderr.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPNotSupportedError } from '../../electron/mcp/errors.js';
import type { LogLine } from '../../electron/mcp/logBuffer.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const CREDENTIAL = 'sk-live-4f9a8b7c6d5e-do-not-log';

/** Resolves with the next `count` MCP log messages of a buffer. */
function nextMessages(log: LogBuffer, count: number): Promise<LogLine[]> {
  return new Promise((resolve) => {
    const seen: LogLine[] = [];
    const unsubscribe = log.subscribe((line) => {
      if (line.stream !== 'message') return;
      seen.push(line);
      if (seen.length === count) {
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

describe('MCP logging', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let events: string;
  let registry: MCPToolRegistry;
  let http: HttpFixture | undefined;

  beforeEach(async () => {
    scratch = scratchDir();
    events = join(scratch.dir, 'events.jsonl');
    registry = new MCPToolRegistry({
      secrets: new DefaultSecretResolver(undefined, { MH_LEAKY: CREDENTIAL }),
      sandboxes: testSandboxes(),
    });
    registry.addServer(
      stdioFixtureConfig(
        'fx',
        {},
        {
          env: {
            FIXTURE_EVENTS: events,
            FIXTURE_TOOLS: 'log,echo',
            FIXTURE_ECHO_ENV: 'LEAKY',
            LEAKY: { secret: { source: 'env', name: 'MH_LEAKY' } },
          },
        },
      ),
    );
    await registry.discover();
  });
  afterEach(async () => {
    await registry.close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  it('the chosen level reaches the server; its messages show with level, logger and data, the credential redacted', async () => {
    await registry.setLogLevel('fx', 'warning');
    expect(readEvents(events).filter((e) => e.event === 'logging/setLevel')).toMatchObject([{ level: 'warning' }]);

    const log = registry.logOf('fx');
    const messages = nextMessages(log, 5);
    await registry.callServerTool('fx', 'log', { data: 'disk almost full' });
    const lines = await messages;
    // The server dropped debug, info and notice: the level took effect on its side.
    expect(lines.map((l) => l.level)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
    for (const line of lines) {
      expect(line.logger).toBe('fixture');
      expect(JSON.parse(line.text)).toMatchObject({
        level: line.level,
        data: 'disk almost full',
        credential: '[redacted]',
      });
    }
    const everything = JSON.stringify(log.all());
    expect(everything).not.toContain(CREDENTIAL);
    expect(log.all().filter((l) => l.stream === 'message')).toHaveLength(5);
  });

  it('the level is kept and sent again when the server connects anew', async () => {
    await registry.setLogLevel('fx', 'error');
    await registry.connect('fx');
    await waitFor(() => readEvents(events).filter((e) => e.event === 'logging/setLevel').length === 2);
    expect(readEvents(events).filter((e) => e.event === 'logging/setLevel')).toMatchObject([
      { level: 'error' },
      { level: 'error' },
    ]);
    expect(registry.logLevel('fx')).toBe('error');

    const messages = nextMessages(registry.logOf('fx'), 4);
    await registry.callServerTool('fx', 'log', { data: { nested: [1, 2] } });
    expect((await messages).map((l) => l.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
  });

  it('a server that declares no logging refuses the level as not_supported, and nothing is kept', async () => {
    http = await startHttpFixture();
    registry.addServer(ServerConfigSchema.parse({ id: 'remote', name: 'Remote', transport: 'http', url: http.url }));
    await registry.connect('remote');
    const error = await registry.setLogLevel('remote', 'debug').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPNotSupportedError);
    expect((error as MCPNotSupportedError).code).toBe('not_supported');
    expect(registry.logLevel('remote')).toBeUndefined();
    expect(http.methodCounts.get('logging/setLevel')).toBeUndefined();
  });
});

describe('LogBuffer messages', () => {
  it('are bounded, cut and redacted like stderr lines', () => {
    const log = new LogBuffer(3, 40);
    log.redact([new SecretValue('hunter2-secret')]);
    log.message({ level: 'info', logger: 'db', data: 'first' });
    log.appendChunk('a stderr line\n');
    log.message({
      level: 'error',
      logger: 'auth hunter2-secret',
      data: { password: 'hunter2-secret', note: 'x'.repeat(100) },
    });
    log.message({ level: 'debug', data: 42 });
    const lines = log.all();
    expect(lines).toHaveLength(3); // the oldest fell off
    expect(lines[0]).toMatchObject({ stream: 'stderr', text: 'a stderr line' });
    expect(lines[1]).toMatchObject({ stream: 'message', level: 'error', logger: 'auth [redacted]' });
    expect(lines[1]?.text).toMatch(/… \[cut\]$/);
    expect(JSON.stringify(lines)).not.toContain('hunter2-secret');
    expect(lines[2]).toEqual({ at: expect.any(Number) as number, stream: 'message', level: 'debug', text: '42' });
  });
});
