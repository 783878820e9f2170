/** A raw TCP connection to a loopback server: what it received, and when it closed (connection-limit tests). */
import { connect } from 'node:net';
import type { Socket } from 'node:net';

export function rawSocket(
  host: string,
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect({ host, port });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}
