/**
 * A request body read whole, up to a limit: the agents' JSON-RPC bodies (gateway.ts) and the
 * consent form (oauth/signIn.ts). Beyond the limit nothing more is kept, but the rest is drained
 * (not the socket destroyed) so the caller's 413 still reaches the client before the connection
 * ends.
 */
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
