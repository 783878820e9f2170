/** Loopback ports for gateway tests: one nobody listens on, and one held busy. */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 (port 0: any free one); resolves once bound. */
export function holdPort(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/** A port that was free a moment ago (bound, then released): for a process that must be given a fixed port. */
export async function freePort(): Promise<number> {
  const server = await holdPort();
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
