/** The HTTP response counter: one message over the limit fails, a long stream of small events does not. */
import { describe, expect, it } from 'vitest';
import { boundResponse } from '../../electron/mcp/transports.js';

class TooLarge extends Error {}

function streamOf(chunks: string[], contentType: string): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': contentType } });
}

const event = (data: string, eol = '\n'): string => `event: message${eol}data: ${data}${eol}${eol}`;

describe('boundResponse', () => {
  const limit = 100;
  let reported = 0;
  const tooLarge = (): Error => {
    reported++;
    return new TooLarge('too large');
  };

  it('passes an event stream whose events are each under the limit, however long the stream', async () => {
    reported = 0;
    const events = Array.from({ length: 50 }, (_, i) => event(`{"n":${i}}`));
    // Each blank line arrives as a chunk of its own, so an event ends across two chunks (if
    // that were missed, the count would run on into the next events and pass the limit).
    const text = events.join('');
    const split = events.flatMap((e) => [e.slice(0, -1), e.slice(-1)]);
    const body = await boundResponse(streamOf(split, 'text/event-stream'), limit, tooLarge).text();
    expect(body).toBe(text);
    expect(reported).toBe(0);
    // CRLF line ends count as event ends too.
    const crlfEvents = Array.from({ length: 20 }, (_, i) => event(`{"n":${i}}`, '\r\n'));
    const crlf = crlfEvents.flatMap((e) => [e.slice(0, -2), e.slice(-2)]);
    expect(await boundResponse(streamOf(crlf, 'text/event-stream'), limit, tooLarge).text()).toBe(crlfEvents.join(''));
    expect(reported).toBe(0);
  });

  it('fails one event over the limit, even in small chunks', async () => {
    reported = 0;
    const big = event('x'.repeat(150));
    const chunks = [event('{"n":1}'), ...big.match(/.{1,10}/gs)!];
    await expect(boundResponse(streamOf(chunks, 'text/event-stream'), limit, tooLarge).text()).rejects.toBeInstanceOf(
      TooLarge,
    );
    expect(reported).toBe(1);
  });

  it('counts a JSON body whole', async () => {
    reported = 0;
    const ok = JSON.stringify({ a: 'y'.repeat(80) });
    expect(await boundResponse(streamOf([ok], 'application/json'), limit, tooLarge).json()).toEqual({
      a: 'y'.repeat(80),
    });
    const big = JSON.stringify({ a: 'y'.repeat(200) });
    await expect(
      boundResponse(streamOf([big.slice(0, 60), big.slice(60)], 'application/json'), limit, tooLarge).json(),
    ).rejects.toBeInstanceOf(TooLarge);
    expect(reported).toBe(1);
  });
});
