/**
 * The command line's link to a running instance: the same WebSocket bridge and typed contract the
 * browser page uses, with a token (`npm run web`'s, or a `miniharness serve` API token) and the
 * header that makes its tool calls the CLI's in History.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL } from '../../shared/bridge.js';
import type { DispatchResult } from '../../shared/bridge.js';
import { CLI_CLIENT_HEADER } from '../web/access.js';

export class BridgeConnection {
  private nextId = 1;
  private readonly pending = new Map<number, (result: DispatchResult) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { t: string; id?: number } & DispatchResult;
      if (frame.t !== 'result' || frame.id === undefined) return;
      this.pending.get(frame.id)?.(frame);
      this.pending.delete(frame.id);
    });
    ws.on('close', () => {
      for (const resolve of this.pending.values())
        resolve({ ok: false, error: { code: 'disconnected', message: 'The instance closed the connection.' } });
      this.pending.clear();
    });
  }

  /** Opens the bridge; rejects with a sentence. */
  static open(base: URL, token: string): Promise<BridgeConnection> {
    const url = new URL(BRIDGE_PATH, base);
    url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    // The token goes only in the header: a query string ends up in proxies' access logs.
    const ws = new WebSocket(url, [BRIDGE_PROTOCOL], {
      origin: base.origin,
      headers: { Authorization: `Bearer ${token}`, [CLI_CLIENT_HEADER]: 'cli' },
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new BridgeConnection(ws)));
      ws.once('unexpected-response', (_req, res) =>
        reject(
          new Error(
            res.statusCode === 401
              ? `The instance at ${base.origin} refused the token (HTTP 401); check MINIHARNESS_TOKEN.`
              : `The instance at ${base.origin} refused the connection (HTTP ${res.statusCode}).`,
          ),
        ),
      );
      ws.once('error', (error) => reject(new Error(`Cannot reach MiniHarness at ${base.origin}: ${error.message}.`)));
    });
  }

  call(channel: string, payload: unknown): Promise<DispatchResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ t: 'call', id, channel, payload }));
    });
  }

  close(): void {
    this.ws.close();
  }
}

export const newCallId = (): string => `cli-${randomUUID()}`;
