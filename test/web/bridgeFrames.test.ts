/**
 * No frame ends the browser-mode host. The real host process (`electron/web/cli.ts`, what
 * `npm run web` runs) gets frames no page sends — over its limit, invalid UTF-8, reserved bits,
 * unmasked, unknown opcode — written byte by byte on a raw TCP socket. Each closes only its own
 * connection, with the close code RFC 6455 names; after each the process is still running and
 * a fresh connection answers a real call. The same process proves the request-level rules: one
 * id per request in flight, the contract's size limits, 400 for a malformed `%`-escape.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, MAX_BRIDGE_FRAME_BYTES } from '../../shared/bridge.js';
import type { DispatchResult } from '../../shared/bridge.js';
import { MAX_JSON_DEPTH } from '../../shared/jsonDepth.js';
import { MAX_JSON_VALUES } from '../../shared/jsonBounds.js';
import { MAX_TOOL_ARGS_BYTES } from '../../shared/limits.js';
import { Bridge } from '../e2e/support/bridge.js';
import type { WebHostProcess } from '../e2e/support/webHost.js';
import { startWebHost } from '../e2e/support/webHost.js';
import { scratchDir } from '../helpers/fixtures.js';
import { RawBridgeSocket } from './rawWebSocket.js';

type Result = DispatchResult & { t: 'result'; id: number };
type Event = { t: 'event'; event: string; payload: Record<string, unknown> };

describe('browser-mode host: bad frames close one connection, never the process', () => {
  const scratch = scratchDir('mh-frames-');
  let host: WebHostProcess;
  let port: number;

  beforeAll(async () => {
    host = await startWebHost({ dataDir: join(scratch.dir, 'data') });
    port = Number(new URL(host.origin).port);
  }, 60_000);
  afterAll(async () => {
    await host.stop();
    scratch.cleanup();
  });

  /** The process runs and a new connection gets a real answer. */
  async function expectHostServes(): Promise<void> {
    expect(host.alive(), host.output()).toBe(true);
    const bridge = await Bridge.connect(host);
    try {
      const info = await bridge.ok<{ mode: string }>('app.info', {});
      expect(info.mode).toBe('browser');
    } finally {
      bridge.close();
    }
  }

  const badFrames: Array<{ name: string; code: number; send: (raw: RawBridgeSocket) => void }> = [
    {
      name: 'a frame declaring one byte over the limit',
      code: 1009,
      send: (raw) =>
        raw.send({ opcode: 0x1, declaredLength: MAX_BRIDGE_FRAME_BYTES + 1, payload: Buffer.from('{"t":"call"') }),
    },
    {
      name: 'a message over the limit in fragments that are each small enough',
      code: 1009,
      send: (raw) => {
        const half = Buffer.alloc(MAX_BRIDGE_FRAME_BYTES / 2 + 1, 0x20);
        raw.send({ opcode: 0x1, fin: false, payload: half });
        raw.send({ opcode: 0x0, fin: true, payload: half });
      },
    },
    {
      name: 'a text frame with invalid UTF-8',
      code: 1007,
      send: (raw) => raw.send({ opcode: 0x1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }),
    },
    {
      name: 'a frame with RSV1 set (no extension was negotiated)',
      code: 1002,
      send: (raw) => raw.send({ opcode: 0x1, rsv: 4, payload: Buffer.from('{}') }),
    },
    {
      name: 'a frame with RSV2 and RSV3 set',
      code: 1002,
      send: (raw) => raw.send({ opcode: 0x1, rsv: 3, payload: Buffer.from('{}') }),
    },
    {
      name: 'an unmasked client frame',
      code: 1002,
      send: (raw) => raw.send({ opcode: 0x1, mask: false, payload: Buffer.from('{}') }),
    },
    {
      name: 'an unknown data opcode (0x3)',
      code: 1002,
      send: (raw) => raw.send({ opcode: 0x3, payload: Buffer.from('{}') }),
    },
    { name: 'an unknown control opcode (0xB)', code: 1002, send: (raw) => raw.send({ opcode: 0xb }) },
    { name: 'a fragmented control frame', code: 1002, send: (raw) => raw.send({ opcode: 0x9, fin: false }) },
  ];

  for (const bad of badFrames) {
    it(`${bad.name}: closes that socket with ${bad.code}; the host keeps serving`, async () => {
      const raw = await RawBridgeSocket.connect(port, host.token);
      // A call on the same socket first: the connection is live before the bad frame arrives.
      raw.sendText(JSON.stringify({ t: 'call', id: 1, channel: 'app.info', payload: {} }));
      expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 1)).toMatchObject({ ok: true });
      bad.send(raw);
      expect((await raw.closeFrame()).code).toBe(bad.code);
      raw.destroy();
      await expectHostServes();
    });
  }

  it('a real oversized message from a ws client gets 1009 and the host keeps serving', async () => {
    const ws = new WebSocket(
      `ws://127.0.0.1:${port}${BRIDGE_PATH}?token=${encodeURIComponent(host.token)}`,
      [BRIDGE_PROTOCOL],
      { origin: host.origin },
    );
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => undefined); // the host may reset while the rest is still being written
    ws.send(
      JSON.stringify({ t: 'call', id: 1, channel: 'app.info', payload: { pad: 'x'.repeat(MAX_BRIDGE_FRAME_BYTES) } }),
    );
    expect(await closed).toBe(1009);
    await expectHostServes();
  });

  it('a binary frame or a frame that is not a call is answered with invalid_frame, and the socket stays open', async () => {
    const raw = await RawBridgeSocket.connect(port, host.token);
    raw.send({ opcode: 0x2, payload: Buffer.from([1, 2, 3]) });
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === -1)).toMatchObject({
      ok: false,
      error: { code: 'invalid_frame' },
    });
    raw.sendText('{"t":"call","id":5,"channel":"app.info","payload":{},"extra":1}');
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 5)).toMatchObject({
      ok: false,
      error: { code: 'invalid_frame' },
    });
    raw.sendText(JSON.stringify({ t: 'call', id: 6, channel: 'app.info', payload: {} }));
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 6)).toMatchObject({ ok: true });
    raw.destroy();
  });

  it('a connection reset in the middle of the upgrade or of a frame does not end the host', async () => {
    const raw = await RawBridgeSocket.connect(port, host.token);
    raw.socket.write(Buffer.from([0x81, 0xfe, 0x10])); // half a frame header
    raw.socket.resetAndDestroy();
    await raw.ended;
    await new Promise<void>((resolve) => {
      const socket = request({
        host: '127.0.0.1',
        port,
        path: `${BRIDGE_PATH}?token=${host.token}`,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', Origin: host.origin },
      });
      socket.on('error', () => resolve());
      socket.on('socket', (s) => s.once('connect', () => s.resetAndDestroy()));
      socket.end();
    });
    await expectHostServes();
  });

  it('refuses a request id that is still in flight on the same socket; the first request is unaffected', async () => {
    const raw = await RawBridgeSocket.connect(port, host.token);
    const content = 'written once\n';
    // write_file asks for approval, so this call stays in flight until it is answered.
    raw.sendText(
      JSON.stringify({
        t: 'call',
        id: 7,
        channel: 'tools.call',
        payload: {
          name: 'write_file',
          serverId: 'local',
          args: { path: 'dup-id.txt', content },
          callId: 'dup-id-call-1',
        },
      }),
    );
    const asked = await raw.json<Event>((f) => f.t === 'event' && f.event === 'approval.requested');
    expect(asked?.payload.toolName).toBe('write_file');

    raw.sendText(JSON.stringify({ t: 'call', id: 7, channel: 'app.info', payload: {} }));
    const refused = await raw.json<Result>((f) => f.t === 'result' && f.id === 7);
    expect(refused).toMatchObject({ ok: false, error: { code: 'duplicate_request_id' } });

    raw.sendText(
      JSON.stringify({
        t: 'call',
        id: 8,
        channel: 'approvals.answer',
        payload: { requestId: asked?.payload.requestId, answer: 'allow-once' },
      }),
    );
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 8)).toMatchObject({ ok: true });
    const results = () =>
      raw.frames
        .map((f) => JSON.parse(f.payload.toString('utf8')) as Result)
        .filter((f) => f.t === 'result' && f.id === 7);
    await raw.json<Result>((f) => f.t === 'result' && f.id === 7 && f.ok);
    const [first, second] = results();
    expect(first).toMatchObject({ ok: false, error: { code: 'duplicate_request_id' } });
    expect(second).toMatchObject({
      ok: true,
      result: { callId: 'dup-id-call-1', toolName: 'write_file', result: { isError: false } },
    });
    const written = (second as { result: { result: { structuredContent: { path: string } } } }).result.result
      .structuredContent.path;
    expect(readFileSync(written, 'utf8')).toBe(content);

    // Once answered, the id is free again.
    raw.sendText(JSON.stringify({ t: 'call', id: 7, channel: 'app.info', payload: {} }));
    await raw.json<Result>(
      (f) => f.t === 'result' && f.id === 7 && f.ok && (f.result as { mode?: string }).mode === 'browser',
    );
    expect(results()).toHaveLength(3);
    raw.destroy();
  });

  it('accepts what the GUI sends at the contract limits: a 1.1 MB write_file and a 990 KB import of escaped characters', async () => {
    const bridge = await Bridge.connect(host);
    try {
      const raw = await RawBridgeSocket.connect(port, host.token);
      const content = `${'line with "quotes" and \\ backslashes\n'.repeat(30_000)}`;
      expect(content.length).toBeGreaterThan(1_100_000);
      raw.sendText(
        JSON.stringify({
          t: 'call',
          id: 1,
          channel: 'tools.call',
          payload: {
            name: 'write_file',
            serverId: 'local',
            args: { path: 'big.txt', content },
            callId: 'big-write-call-1',
          },
        }),
      );
      const asked = await raw.json<Event>(
        (f) =>
          f.t === 'event' &&
          f.event === 'approval.requested' &&
          (f.payload.args as { path?: string }).path === 'big.txt',
      );
      await bridge.ok('approvals.answer', { requestId: asked?.payload.requestId, answer: 'allow-once' });
      const done = await raw.json<Result>((f) => f.t === 'result' && f.id === 1);
      expect(done).toMatchObject({ ok: true, result: { result: { isError: false } } });
      expect(
        readFileSync(
          (done as { result: { result: { structuredContent: { path: string } } } }).result.result.structuredContent
            .path,
          'utf8',
        ),
      ).toBe(content);
      raw.destroy();

      // A 990 KB config whose characters all grow on the wire (€ is 3 bytes, \\ and \" are 2).
      const config = `{"mcpServers":{"a":{"command":"node","args":["${'€\\"'.repeat(330_000)}"]}}}`;
      expect(config.length).toBeGreaterThan(990_000);
      const preview = await bridge.ok<{ servers: Array<{ name: string }> }>('import.preview', {
        content: config,
        fileName: 'claude_desktop_config.json',
      });
      expect(preview.servers.map((s) => s.name)).toEqual(['a']);
      // The worst case: control characters travel as \u00XX, 6 bytes each (about 5.9 MB here).
      // Main answers (the file is not valid JSON); the bridge carried it.
      const worst = await bridge.call('import.preview', {
        content: `{"x":"${'\u0001'.repeat(990_000)}"}`,
        fileName: 'worst.json',
      });
      expect(worst).toMatchObject({ ok: false, error: { code: 'import_malformed' } });
      await expectHostServes();
    } finally {
      bridge.close();
    }
  });

  it('refuses tool arguments over the contract limit with a typed field error, over a frame that fits', async () => {
    const bridge = await Bridge.connect(host);
    try {
      const content = 'x'.repeat(MAX_TOOL_ARGS_BYTES);
      const reply = await bridge.call('tools.call', {
        name: 'write_file',
        serverId: 'local',
        args: { path: 'too-big.txt', content },
        callId: 'too-big-call-1',
      });
      expect(reply.ok).toBe(false);
      if (reply.ok) return;
      // Main alone validates requests: the size refusal is typed, with the limit and the size.
      expect(reply.error.code).toBe('request_too_large');
      expect(reply.error.details).toMatchObject({ limitBytes: MAX_TOOL_ARGS_BYTES, sizeBytes: expect.any(Number) });
      expect(reply.error.details?.fieldErrors?.args?.[0]).toMatch(/limit is 12 MiB/);
      await expectHostServes();
    } finally {
      bridge.close();
    }
  });

  it('answers a frame of 50,000 values with request_too_large under its id before parsing it, and the socket keeps serving', async () => {
    const raw = await RawBridgeSocket.connect(port, host.token);
    const args = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));
    raw.sendText(
      JSON.stringify({
        t: 'call',
        id: 21,
        channel: 'tools.call',
        payload: { name: 'write_file', serverId: 'local', args, callId: 'many-values-1' },
      }),
    );
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 21)).toMatchObject({
      ok: false,
      error: {
        code: 'request_too_large',
        message: expect.stringContaining(`more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values`),
      },
    });
    raw.sendText(JSON.stringify({ t: 'call', id: 22, channel: 'app.info', payload: {} }));
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 22)).toMatchObject({ ok: true });
    raw.destroy();
  });

  it('answers tool arguments nested 5,000 deep with request_too_deep at once, and the socket keeps serving', async () => {
    const raw = await RawBridgeSocket.connect(port, host.token);
    // Written as text: JSON.stringify itself overflows on such a value.
    const args = `${'{"a":'.repeat(5_000)}"bottom"${'}'.repeat(5_000)}`;
    raw.sendText(
      `{"t":"call","id":11,"channel":"tools.call","payload":{"name":"write_file","serverId":"local","args":${args},"callId":"deep-call-1"}}`,
    );
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 11)).toMatchObject({
      ok: false,
      error: { code: 'request_too_deep', details: { limitDepth: MAX_JSON_DEPTH } },
    });
    // Nested arrays too, in any channel.
    raw.sendText(`{"t":"call","id":12,"channel":"app.info","payload":{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}}`);
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 12)).toMatchObject({
      ok: false,
      error: { code: 'request_too_deep' },
    });
    raw.sendText(JSON.stringify({ t: 'call', id: 13, channel: 'app.info', payload: {} }));
    expect(await raw.json<Result>((f) => f.t === 'result' && f.id === 13)).toMatchObject({ ok: true });
    raw.destroy();
    expect(host.output()).not.toMatch(/Maximum call stack/);
    await expectHostServes();
  });

  /** node:http, so the path reaches the host exactly as written. */
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });

  it('answers 400 to a malformed %-escape in a static path, and keeps serving', async () => {
    expect(await get('/%E0%A4%A')).toBe(400);
    expect(await get('/assets/%zz.js')).toBe(400);
    expect(await get('/%')).toBe(400);
    expect(await get('/a%00b.js')).toBe(400);
    await expectHostServes();
  });
});
