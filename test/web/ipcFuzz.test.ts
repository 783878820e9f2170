import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES, channels } from '../../shared/contract.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, startTestHost } from './host.js';

/** A small seeded PRNG, so a failure can be reproduced from the seed in its message. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '\u0000',
  '💥',
  'a'.repeat(70_000),
  '{"t":"call"}',
  'servers.save',
  'http://evil.example',
  'local',
];
const KEYS = [
  'id',
  'mode',
  'config',
  'secrets',
  'enabled',
  'refresh',
  'transport',
  'url',
  'command',
  'args',
  '__proto__',
  'constructor',
  'prototype',
  'x',
];

function randomValue(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 3 ? 6 : 9));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return [0, -1, 1.5, Number.MAX_SAFE_INTEGER, 1e308, -0][Math.floor(rand() * 6)];
    case 3:
    case 4:
      return NASTY_STRINGS[Math.floor(rand() * NASTY_STRINGS.length)];
    case 5:
      return undefined;
    case 6:
      return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 5); i > 0; i--)
        out[KEYS[Math.floor(rand() * KEYS.length)] ?? 'k'] = randomValue(rand, depth + 1);
      return out;
    }
  }
}

describe('IPC fuzz: every channel fed random and malformed payloads', () => {
  const scratch = scratchDir();
  let running: RunningHost;
  let client: BridgeClient;

  beforeAll(async () => {
    running = await startTestHost(scratch.dir);
    client = await BridgeClient.connect(running.host.port);
  });
  afterAll(async () => {
    client.close();
    await running.close();
    scratch.cleanup();
  });

  it.each(CHANNEL_NAMES)('%s rejects every invalid payload by validation and keeps serving', async (channel) => {
    const seed = [...channel].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
    const rand = mulberry32(seed);
    const payloads: unknown[] = [
      undefined,
      null,
      42,
      'text',
      [],
      [{}],
      { __proto__: { polluted: true } },
      JSON.parse('{"__proto__":{"polluted":true}}'),
    ];
    for (let i = 0; i < 60; i++) payloads.push(randomValue(rand));
    let rejected = 0;
    for (const payload of payloads) {
      // Judge what actually crosses the wire (JSON drops undefined and prototypes).
      const sent: unknown = payload === undefined ? undefined : JSON.parse(JSON.stringify(payload) ?? 'null');
      const valid = channels[channel].request.safeParse(sent).success;
      const reply = await client.call(channel, payload);
      if (valid) continue; // a random payload that happens to be valid is a normal call
      rejected++;
      expect(reply.ok, `seed ${seed}: ${channel} accepted ${JSON.stringify(payload)?.slice(0, 200)}`).toBe(false);
      if (!reply.ok) expect(reply.error.code).toBe('invalid_request');
    }
    expect(rejected).toBeGreaterThan(40);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const still = await client.call('app.info', {});
    expect(still.ok).toBe(true);
  });

  it('malformed frames get an error reply and the connection stays up', async () => {
    expect(await client.send('not json at all', -1, true)).toMatchObject({
      ok: false,
      error: { code: 'invalid_frame' },
    });
    expect(await client.send({ t: 'call', id: 5 }, 5)).toMatchObject({ ok: false, error: { code: 'invalid_frame' } });
    expect(await client.send({ t: 'call', id: 6, channel: 'servers.list', payload: {}, extra: 1 }, 6)).toMatchObject({
      ok: false,
      error: { code: 'invalid_frame' },
    });
    expect(await client.call('no.such.channel', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    expect(await client.call('constructor', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    expect(await client.call('__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    expect((await client.call('servers.list', {})).ok).toBe(true);
  });

  it('nothing the fuzzing sent was saved', async () => {
    expect(await client.call('servers.list', {})).toMatchObject({ ok: true, result: [] });
  });
});
