/**
 * A request body read whole, up to a limit: the agents' JSON-RPC bodies (gateway.ts) and the
 * consent form (oauth/signIn.ts). Beyond the limit nothing more is kept, but the rest is drained
 * (not the socket destroyed) so the caller's 413 still reaches the client before the connection
 * ends. A JSON body can also be counted as it arrives (shared/jsonBounds.ts): one that nests too
 * deep or holds too many values is refused the same way, before anything parses it.
 */
import type { IncomingMessage } from 'node:http';
import type { JsonBoundsBreach, JsonBoundsCounter } from '../../shared/jsonBounds.js';

export class BodyTooLarge extends Error {}

/** The body passed a limit of shared/jsonBounds.ts while it arrived. */
export class BodyOverBounds extends Error {
  constructor(readonly breach: JsonBoundsBreach) {
    super(`the body passed its ${breach.limit} limit`);
  }
}

export function readBody(req: IncomingMessage, limit: number, counter?: JsonBoundsCounter): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (error: Error): void => {
      chunks.length = 0;
      req.removeAllListeners('data');
      req.resume();
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return refuse(new BodyTooLarge());
      const breach = counter?.push(chunk);
      if (breach) return refuse(new BodyOverBounds(breach));
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
