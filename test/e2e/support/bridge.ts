/** A bridge client as the page is one: the host's token, the page's Origin, one WebSocket. */
import WebSocket from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL } from '../../../shared/bridge.js';
import type { DispatchResult } from '../../../shared/bridge.js';
import type { WebHostProcess } from './webHost.js';

export class Bridge {
  private nextId = 1;
  private readonly pending = new Map<number, (result: DispatchResult) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { t: string; id?: number } & DispatchResult;
      if (frame.t !== 'result' || frame.id === undefined) return;
      this.pending.get(frame.id)?.(frame);
      this.pending.delete(frame.id);
    });
  }

  static connect(running: WebHostProcess): Promise<Bridge> {
    const url = `${running.origin.replace(/^http/, 'ws')}${BRIDGE_PATH}?token=${encodeURIComponent(running.token)}`;
    const ws = new WebSocket(url, [BRIDGE_PROTOCOL], { origin: running.origin });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Bridge(ws)));
      ws.once('error', reject);
    });
  }

  call(channel: string, payload: unknown): Promise<DispatchResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ t: 'call', id, channel, payload }));
    });
  }

  async ok<T>(channel: string, payload: unknown): Promise<T> {
    const reply = await this.call(channel, payload);
    if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
    return reply.result as T;
  }

  close(): void {
    this.ws.close();
  }
}
