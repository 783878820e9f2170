/**
 * The request broker between servers and the person, over the real registry and the stdio fixture
 * server: each request is an event naming its server, answered once by its one-time id; answers are
 * checked in main (the action must fit, form values must fit the server's schema — else the request
 * stays open); a request nobody answers expires (elicitation → cancel, sampling → rejected), one the
 * server withdraws closes, and so does one whose tool call ended (`call_ended`; a late answer is
 * refused); a request no dialog can show is refused to the server. Roots edited
 * through the registry reach the live connection without a reconnect.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerRequestBroker } from '../../electron/core/serverRequests/broker.js';
import type { AppError } from '../../electron/core/errors.js';
import { ValidationFailedError } from '../../electron/core/errors.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerRequestView } from '../../shared/serverRequests.js';
import type { EventName } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';
import { countEvents, readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

type Recorded = { event: EventName; payload: unknown };

/** The broker's events, checked against the contract, with a way to wait for the next of a kind. */
class EventLog {
  readonly all: Recorded[] = [];
  private waiters: Array<{ event: EventName; resolve: (payload: unknown) => void; seen: number }> = [];

  readonly emit = (event: EventName, payload: unknown): void => {
    expect(eventSchemas[event].safeParse(payload).success).toBe(true);
    this.all.push({ event, payload });
    for (const waiter of [...this.waiters]) {
      if (waiter.event === event && this.of(event).length > waiter.seen) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(payload);
      }
    }
  };

  of(event: EventName): unknown[] {
    return this.all.filter((r) => r.event === event).map((r) => r.payload);
  }

  /** The next `event` after the ones seen so far. */
  next<T>(event: EventName): Promise<T> {
    return new Promise((resolve) =>
      this.waiters.push({ event, resolve: resolve as (payload: unknown) => void, seen: this.of(event).length }),
    );
  }
}

describe('ServerRequestBroker with the registry and a real server', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let fixtureEvents: string;
  let log: EventLog;
  let broker: ServerRequestBroker;
  let registry: MCPToolRegistry;

  async function start(timeoutMs?: number, roots?: string[]): Promise<void> {
    broker = new ServerRequestBroker(log.emit, {
      serverName: (id) => registry.server(id)?.name ?? id,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    registry = new MCPToolRegistry({
      secrets: new DefaultSecretResolver(),
      sandboxes: testSandboxes(),
      serverRequests: broker,
    });
    registry.addServer(
      stdioFixtureConfig(
        'fx',
        { FIXTURE_EVENTS: fixtureEvents, FIXTURE_TOOLS: 'ask_form,ask_url,sample,roots' },
        { name: 'Fixture Server', ...(roots ? { roots } : {}) },
      ),
    );
    await registry.connect('fx');
  }

  const form = {
    type: 'object',
    properties: { email: { type: 'string', format: 'email' }, count: { type: 'integer', minimum: 1, default: 2 } },
    required: ['email'],
  };

  beforeEach(() => {
    scratch = scratchDir();
    fixtureEvents = join(scratch.dir, 'events.jsonl');
    log = new EventLog();
  });
  afterEach(async () => {
    await registry.close();
    scratch.cleanup();
  });

  it('shows a form ask naming the server, refuses values that do not fit, and sends the corrected answer once', async () => {
    await start();
    const requested = log.next<ServerRequestView>('serverRequest.opened');
    const call = registry.callServerTool('fx', 'ask_form', { message: 'Your email?', requestedSchema: form });
    const view = await requested;
    expect(view).toMatchObject({
      kind: 'elicitation-form',
      serverId: 'fx',
      serverName: 'Fixture Server',
      message: 'Your email?',
      requestedSchema: form,
    });
    expect(broker.list()).toEqual([view]);

    // A sampling answer does not answer a form; values outside the schema are refused by field. The request stays open.
    expect(() => broker.answer(view.requestId, { action: 'respond', text: 'x', model: 'm' })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as Error,
    );
    let refused: unknown;
    try {
      broker.answer(view.requestId, { action: 'accept', content: { email: 'not an address', count: 0, extra: 'x' } });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ValidationFailedError);
    expect((refused as ValidationFailedError).fieldErrors).toEqual({ extra: ['is not a field of this form'] });
    try {
      broker.answer(view.requestId, { action: 'accept', content: { email: 'not an address', count: 0 } });
    } catch (error) {
      refused = error;
    }
    expect(Object.keys((refused as ValidationFailedError).fieldErrors).sort()).toEqual(['count', 'email']);
    expect(broker.list()).toHaveLength(1);
    expect(countEvents(fixtureEvents, 'tools/call')).toBe(1);

    broker.answer(view.requestId, { action: 'accept', content: { email: 'ada@example.com' } });
    expect((await call).structuredContent).toEqual({
      answer: { action: 'accept', content: { email: 'ada@example.com', count: 2 } },
    });
    expect(log.of('serverRequest.closed')).toEqual([{ requestId: view.requestId, outcome: 'answered' }]);
    expect(broker.list()).toEqual([]);
    // Answered once: the same id again is stale, and so is one that never existed.
    expect(() => broker.answer(view.requestId, { action: 'decline' })).toThrow(
      expect.objectContaining({ code: 'stale_ask' }) as AppError,
    );
    expect(() => broker.answer('never-issued', { action: 'decline' })).toThrow(
      expect.objectContaining({ code: 'stale_ask' }) as AppError,
    );
  });

  it('shows a sampling ask with what the server sent; an ask nobody answers expires as a rejection', async () => {
    await start(300);
    const requested = log.next<ServerRequestView>('serverRequest.opened');
    const call = registry.callServerTool('fx', 'sample', { prompt: 'Summarize', maxTokens: 64 });
    const view = await requested;
    expect(view).toMatchObject({
      kind: 'sampling',
      serverName: 'Fixture Server',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarize' }] }],
      systemPrompt: 'You are a fixture.',
      maxTokens: 64,
      modelPreferences: { hints: [{ name: 'fixture-model' }], intelligencePriority: 0.5 },
    });
    const result = await call;
    expect(result.structuredContent).toMatchObject({
      error: { code: -1, message: expect.stringContaining('in time') as string },
    });
    expect(log.of('serverRequest.closed')).toEqual([{ requestId: view.requestId, outcome: 'expired' }]);
    expect(() => broker.answer(view.requestId, { action: 'respond', text: 'late', model: 'human' })).toThrow(
      expect.objectContaining({ code: 'stale_ask' }) as AppError,
    );
  });

  it('an elicitation nobody answers is cancelled; one whose server goes away closes as cancelled', async () => {
    await start(300);
    const first = log.next<ServerRequestView>('serverRequest.opened');
    const expired = registry.callServerTool('fx', 'ask_url', { message: 'Open it', url: 'https://example.com/flow' });
    const view = await first;
    expect(view).toMatchObject({
      kind: 'elicitation-url',
      url: 'https://example.com/flow',
      serverName: 'Fixture Server',
    });
    expect((await expired).structuredContent).toEqual({ answer: { action: 'cancel' } });

    await registry.close();
    await start(); // default timeout: only the disconnect can close it
    const second = log.next<ServerRequestView>('serverRequest.opened');
    const withdrawn = registry.callServerTool('fx', 'ask_form', { message: 'Email?', requestedSchema: form });
    const open = await second;
    const closed = log.next<{ requestId: string; outcome: string }>('serverRequest.closed');
    await registry.disconnect('fx');
    expect(await closed).toEqual({ requestId: open.requestId, outcome: 'cancelled' });
    await withdrawn.catch(() => undefined);
    expect(broker.list()).toEqual([]);
  });

  it("a call that ends while its ask is open closes the ask as 'call_ended'; a late answer is refused", async () => {
    await start();
    const requested = log.next<ServerRequestView>('serverRequest.opened');
    const controller = new AbortController();
    const call = registry.callServerTool(
      'fx',
      'ask_form',
      { message: 'Email?', requestedSchema: form },
      { signal: controller.signal },
    );
    const view = await requested;
    const closed = log.next<{ requestId: string; outcome: string }>('serverRequest.closed');
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    expect(await closed).toEqual({ requestId: view.requestId, outcome: 'call_ended' });
    expect(broker.list()).toEqual([]);
    expect(() => broker.answer(view.requestId, { action: 'accept', content: { email: 'late@example.com' } })).toThrow(
      expect.objectContaining({ code: 'stale_ask' }) as AppError,
    );
  });

  it('refuses to the server a request no dialog can show, and shows nothing', async () => {
    await start();
    const properties = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: 'string' }]));
    const result = await registry.callServerTool('fx', 'ask_form', {
      message: 'Too many fields',
      requestedSchema: { type: 'object', properties },
    });
    expect(result.structuredContent).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('at most 100 fields') as string },
    });
    expect(log.of('serverRequest.opened')).toEqual([]);
  });

  it('tells the live connection about edited roots, without reconnecting', async () => {
    const project = join(scratch.dir, 'project');
    await start(undefined, [project]);
    const config = registry.server('fx')!;
    await registry.updateServer({ ...config, roots: [project, scratch.dir] });
    await waitFor(() => readEvents(fixtureEvents).some((e) => e.event === 'roots'));
    expect((readEvents(fixtureEvents).find((e) => e.event === 'roots') as { roots?: string[] }).roots).toEqual([
      pathToFileURL(project).href,
      pathToFileURL(scratch.dir).href,
    ]);
    expect(countEvents(fixtureEvents, 'initialize')).toBe(1);
    expect(registry.status('fx')).toEqual({ state: 'ready' });
  });
});
