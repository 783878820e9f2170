/**
 * Who is connected, without a network: the idle rule (seen within the window, or a request
 * open), what a modern request's `_meta` envelope says of its client, and the registry of
 * 2026-07-28 clients per agent — listed while seen lately or listening, forgotten once idle. The
 * clock is a number the test moves; a response is an EventEmitter the test closes.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { envelopeOf, holdWhileOpen, isIdle, ModernClients } from '../../electron/gateway/clientPresence.js';

const IDLE = 1000;

function modernRequest(
  method: string,
  name: string | undefined,
  version = '1.2.3',
  protocolVersion = '2026-07-28',
): unknown {
  const info = name === undefined ? {} : { [CLIENT_INFO_META_KEY]: { name, version } };
  return {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { _meta: { [PROTOCOL_VERSION_META_KEY]: protocolVersion, ...info } },
  };
}

/** A response that stays open until the test closes it. */
function response(): EventEmitter & { end(): void } {
  return Object.assign(new EventEmitter(), {
    end(this: EventEmitter) {
      this.emit('close');
    },
  });
}

describe('the idle rule', () => {
  it('idle only past the window and with no request open', () => {
    expect(isIdle({ lastSeenAt: 0, openRequests: 0 }, IDLE, IDLE)).toBe(false);
    expect(isIdle({ lastSeenAt: 0, openRequests: 0 }, IDLE + 1, IDLE)).toBe(true);
    expect(isIdle({ lastSeenAt: 0, openRequests: 1 }, IDLE * 100, IDLE)).toBe(false);
  });

  it('a request held open counts while open, and is seen again when it ends', () => {
    let now = 10;
    const presence = { lastSeenAt: 0, openRequests: 0 };
    const res = response();
    holdWhileOpen(presence, res, () => now);
    expect(presence).toEqual({ lastSeenAt: 10, openRequests: 1 });
    now = 10 + IDLE * 5;
    expect(isIdle(presence, now, IDLE)).toBe(false);
    res.end();
    expect(presence).toEqual({ lastSeenAt: now, openRequests: 0 });
    expect(isIdle(presence, now + IDLE + 1, IDLE)).toBe(true);
  });
});

describe('a modern request’s envelope', () => {
  it('says who the client is, the revision and whether it is a listen stream', () => {
    expect(envelopeOf(modernRequest('tools/list', 'claude-code', '2.1.0'))).toEqual({
      name: 'claude-code',
      version: '2.1.0',
      protocolVersion: '2026-07-28',
      listen: false,
    });
    expect(envelopeOf(modernRequest('subscriptions/listen', 'claude-code'))).toMatchObject({ listen: true });
    // A batch: its first message with an envelope.
    expect(
      envelopeOf([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }, modernRequest('tools/list', 'b')]),
    ).toMatchObject({ name: 'b' });
  });

  it('no identity when the client gives none; nothing at all without an envelope (a 2025 request)', () => {
    expect(envelopeOf(modernRequest('tools/list', undefined))).toEqual({
      protocolVersion: '2026-07-28',
      listen: false,
    });
    expect(
      envelopeOf({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', clientInfo: { name: 'x', version: '1' } },
      }),
    ).toBeUndefined();
    expect(envelopeOf(undefined)).toBeUndefined();
    expect(envelopeOf('text')).toBeUndefined();
  });

  it('keeps what the client says bounded and of the right type', () => {
    const long = 'n'.repeat(1000);
    expect(envelopeOf(modernRequest('tools/list', long))?.name).toHaveLength(200);
    const odd = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_INFO_META_KEY]: { name: 42, version: null } },
      },
    };
    expect(envelopeOf(odd)).toEqual({ protocolVersion: '2026-07-28', listen: false });
  });
});

describe('the modern clients of each agent', () => {
  function setup() {
    const clock = { now: 1000 };
    return { clock, clients: new ModernClients(() => clock.now, IDLE) };
  }

  it('lists a client by what it says, once however many requests, and says when it is new', () => {
    const { clock, clients } = setup();
    const first = response();
    expect(clients.request('a1', modernRequest('tools/list', 'cli', '1.0.0'), first)).toBe(true);
    first.end();
    clock.now += 10;
    const second = response();
    expect(clients.request('a1', modernRequest('tools/call', 'cli', '1.0.0'), second)).toBe(false);
    second.end();
    expect(clients.list('a1')).toEqual([
      {
        clientName: 'cli',
        clientVersion: '1.0.0',
        protocolVersion: '2026-07-28',
        firstSeenAt: 1000,
        lastSeenAt: 1010,
        listening: false,
      },
    ]);
    // Another version is another client (the most recently seen first); another agent sees none of them.
    clock.now += 5;
    clients.request('a1', modernRequest('tools/list', 'cli', '1.1.0'), response());
    expect(clients.list('a1').map((c) => c.clientVersion)).toEqual(['1.1.0', '1.0.0']);
    expect(clients.list('a2')).toEqual([]);
  });

  it('a request without an envelope is nobody’s', () => {
    const { clients } = setup();
    expect(clients.request('a1', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, response())).toBe(false);
    expect(clients.list('a1')).toEqual([]);
  });

  it('unseen past the idle window it is no longer listed, and forgetting it says the view changed', () => {
    const { clock, clients } = setup();
    const res = response();
    clients.request('a1', modernRequest('tools/list', 'gone'), res);
    res.end();
    clock.now += IDLE;
    expect(clients.list('a1')).toHaveLength(1);
    expect(clients.forgetIdle()).toBe(false);
    clock.now += 1;
    expect(clients.list('a1')).toEqual([]);
    expect(clients.forgetIdle()).toBe(true);
    expect(clients.forgetIdle()).toBe(false);
    // Seen again: listed anew, as new.
    expect(clients.request('a1', modernRequest('tools/list', 'gone'), response())).toBe(true);
  });

  it('an open subscriptions/listen stream keeps it listed (as listening) however long; when the stream ends, the window starts', () => {
    const { clock, clients } = setup();
    const call = response();
    clients.request('a1', modernRequest('tools/list', 'watcher'), call);
    call.end();
    const stream = response();
    clients.request('a1', modernRequest('subscriptions/listen', 'watcher'), stream);
    clock.now += IDLE * 60;
    expect(clients.forgetIdle()).toBe(false);
    expect(clients.list('a1')).toMatchObject([{ clientName: 'watcher', listening: true }]);
    stream.end();
    expect(clients.list('a1')).toMatchObject([{ listening: false, lastSeenAt: clock.now }]);
    clock.now += IDLE + 1;
    expect(clients.list('a1')).toEqual([]);
  });

  it('a revoked agent’s clients are forgotten at once, and everyone’s when the gateway stops', () => {
    const { clients } = setup();
    clients.request('a1', modernRequest('tools/list', 'cli'), response());
    clients.request('a2', modernRequest('tools/list', 'cli'), response());
    clients.forgetAgent('a1');
    expect(clients.list('a1')).toEqual([]);
    expect(clients.list('a2')).toHaveLength(1);
    clients.forgetAll();
    expect(clients.list('a2')).toEqual([]);
  });
});
