/**
 * A WebSocket client written against the wire (RFC 6455), for tests that must send what no
 * well-behaved client sends: reserved bits, unmasked frames, unknown opcodes, invalid UTF-8,
 * lengths over the host's limit. It does the upgrade by hand over a TCP socket and parses the
 * host's frames (unmasked, per the RFC) so a test can read the close code.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { BRIDGE_PATH, BRIDGE_PROTOCOL } from '../../shared/bridge.js';

export interface FrameSpec {
  opcode: number;
  payload?: Buffer;
  fin?: boolean;
  /** Reserved bits as a 3-bit number (RSV1 = 4, RSV2 = 2, RSV3 = 1). */
  rsv?: number;
  /** Clients must mask; false sends a frame the server has to refuse. */
  mask?: boolean;
  /** The length to declare, when it should differ from the payload's (a frame "too big"). */
  declaredLength?: number;
}

export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const length = spec.declaredLength ?? payload.length;
  const mask = spec.mask ?? true;
  const first = ((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | (spec.opcode & 0x0f);
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([first, (mask ? 0x80 : 0) | length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!mask) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] = masked[i]! ^ key[i % 4]!;
  return Buffer.concat([header, key, masked]);
}

export interface HostFrame {
  opcode: number;
  payload: Buffer;
}

export class RawBridgeSocket {
  private buffer = Buffer.alloc(0);
  readonly frames: HostFrame[] = [];
  private readonly waiters = new Set<() => void>();
  /** Resolves when the TCP connection is closed (by either side). */
  readonly ended: Promise<void>;

  private constructor(
    readonly socket: Socket,
    rest: Buffer,
  ) {
    this.ended = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.feed(chunk));
    socket.on('close', () => this.wake());
    if (rest.length > 0) this.feed(rest);
  }

  /** Opens the bridge the way a page would (Host, Origin, token, sub-protocol), by hand. */
  static connect(port: number, token: string): Promise<RawBridgeSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.write(
          [
            `GET ${BRIDGE_PATH}?token=${encodeURIComponent(token)} HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            `Origin: http://127.0.0.1:${port}`,
            'Upgrade: websocket',
            'Connection: Upgrade',
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
            'Sec-WebSocket-Version: 13',
            `Sec-WebSocket-Protocol: ${BRIDGE_PROTOCOL}`,
            '',
            '',
          ].join('\r\n'),
        );
      });
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.off('error', reject);
        const status = head.subarray(0, end).toString('latin1').split('\r\n')[0] ?? '';
        if (!status.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          reject(new Error(`upgrade refused: ${status}`));
          return;
        }
        resolve(new RawBridgeSocket(socket, head.subarray(end + 4)));
      };
      socket.on('data', onData);
    });
  }

  send(spec: FrameSpec): void {
    this.socket.write(encodeFrame(spec));
  }

  sendText(text: string): void {
    this.send({ opcode: 0x1, payload: Buffer.from(text, 'utf8') });
  }

  /** Waits for the host's close frame; `code` is undefined when the connection ended without one. */
  async closeFrame(): Promise<{ code: number | undefined; reason: string }> {
    const frame = await this.waitFor((f) => f.opcode === 0x8);
    if (!frame) return { code: undefined, reason: '' };
    return {
      code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : undefined,
      reason: frame.payload.subarray(2).toString('utf8'),
    };
  }

  /** The next text frame parsed as JSON that matches, or undefined if the connection ends first. */
  async json<T>(match: (value: T) => boolean): Promise<T | undefined> {
    const frame = await this.waitFor((f) => f.opcode === 0x1 && match(JSON.parse(f.payload.toString('utf8')) as T));
    return frame ? (JSON.parse(frame.payload.toString('utf8')) as T) : undefined;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private waitFor(match: (frame: HostFrame) => boolean): Promise<HostFrame | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.frames.find(match);
        if (found || this.socket.destroyed) {
          this.waiters.delete(check);
          resolve(found);
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private feed(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) break;
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) break;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) break;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) break;
      this.frames.push({ opcode, payload: this.buffer.subarray(offset, offset + length) });
      this.buffer = this.buffer.subarray(offset + length);
    }
    this.wake();
  }
}
