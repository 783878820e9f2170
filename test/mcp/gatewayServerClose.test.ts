/**
 * GatewayServer's close (mcp/sdkAdapter.ts, 5): with nothing waiting, the SDK's teardown (and the
 * unused `ConnectionClosed` error it builds) runs under a stack limit of 0, and the app's `onclose`
 * runs once, after it, under the usual limit; with a request still being answered or a question to the
 * client still waiting, the SDK's own close runs as before — each is settled with the SDK's error,
 * its stack captured. Over the SDK's in-memory transport, the SDK's own Client on the other end; and a
 * 2026-07-28 request's own server under the SDK's `createMcpHandler`, which closes it right after the answer
 * while the SDK still lists the request (answered: nothing waits on it).
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { GatewayServer } from '../../electron/mcp/sdkAdapter.js';

const info = { name: 'test', version: '1.0.0' };

async function pair(): Promise<{ server: GatewayServer; client: Client; clientSide: InMemoryTransport }> {
  const server = new GatewayServer(info, { capabilities: { tools: {} } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(info);
  await client.connect(clientSide);
  return { server, client, clientSide };
}

describe('GatewayServer’s close', () => {
  it('of a 2026-07-28 request’s own server, right after its answer (the SDK still lists the request): the error built without a stack', async () => {
    const signals: AbortSignal[] = [];
    const handler = createMcpHandler(
      () => {
        const server = new GatewayServer(info, { capabilities: { tools: {} } });
        server.serveToolCalls((_params, ctx) => {
          signals.push(ctx.mcpReq.signal);
          return Promise.resolve({ content: [{ type: 'text', text: 'done' }] });
        });
        return server;
      },
      { legacy: 'reject' },
    );
    const client = new Client(info, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    const result = await client.callTool({ name: 'anything', arguments: {} });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    // The request's server closed once its answer was out; the SDK's teardown aborted the answered request's
    // controller with its ConnectionClosed error — built here without a stack (the SDK's own close captures one).
    expect(signals).toHaveLength(1);
    const signal = signals[0]!;
    await new Promise((resolve) =>
      signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve, { once: true }),
    );
    const reason = signal.reason as Error;
    expect(reason.message).toContain('Connection closed');
    expect(reason.stack).not.toMatch(/\n\s+at /);
    await client.close();
    await handler.close();
  });

  it('with nothing waiting: the teardown under a stack limit of 0, then onclose once under the usual limit', async () => {
    const { server, client } = await pair();
    const limit = Error.stackTraceLimit;
    // Every value the close gives Error.stackTraceLimit, seen through an accessor put in its place for the close.
    const original = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')!;
    let current = limit;
    const set: number[] = [];
    Object.defineProperty(Error, 'stackTraceLimit', {
      configurable: true,
      enumerable: original.enumerable,
      get: () => current,
      set: (value: number) => {
        set.push(value);
        current = value;
      },
    });
    const seen: Array<{ limit: number; transport: unknown }> = [];
    server.onclose = () => seen.push({ limit: Error.stackTraceLimit, transport: server.transport });
    try {
      await client.close();
    } finally {
      Object.defineProperty(Error, 'stackTraceLimit', { ...original, value: current });
    }
    // The SDK's unused error was built under 0 (the SDK's own close sets nothing), and the limit put back.
    expect(set).toEqual([0, limit]);
    expect(seen).toEqual([{ limit, transport: undefined }]);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('a question to the client still waiting is settled with the SDK’s ConnectionClosed error, its stack captured', async () => {
    const { server, clientSide } = await pair();
    // The client side stops answering: the server's ping stays waiting until the close.
    clientSide.onmessage = () => undefined;
    let closes = 0;
    server.onclose = () => closes++;
    const ping = server.ping().then(
      () => undefined,
      (error: unknown) => error,
    );
    await server.close();
    const error = (await ping) as Error & { code?: unknown };
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('Connection closed');
    expect(error.stack).toMatch(/\n\s+at /);
    expect(closes).toBe(1);
  });

  it('a request still being answered sees its signal aborted with that error, its stack captured', async () => {
    const { server, client } = await pair();
    let aborted: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    server.serveToolCalls(
      (_params, ctx) =>
        new Promise((resolve) => {
          ctx.mcpReq.signal.addEventListener('abort', () => {
            aborted = ctx.mcpReq.signal.reason;
            resolve({ content: [] });
          });
          started();
        }),
    );
    let closes = 0;
    server.onclose = () => closes++;
    const call = client.callTool({ name: 'slow', arguments: {} }).catch((error: unknown) => error);
    await running;
    await server.close();
    await call;
    expect((aborted as Error).message).toContain('Connection closed');
    expect((aborted as Error).stack).toMatch(/\n\s+at /);
    expect(closes).toBe(1);
  });
});
