/** Starts a real browser-mode host (core + HTTP + WebSocket) over a scratch data folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BRIDGE_PROTOCOL } from '../../shared/bridge.js';
import type { DispatchResult } from '../../shared/bridge.js';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type { WebHost, WebHostOptions } from '../../electron/web/host.js';
import { startWebHost } from '../../electron/web/host.js';

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export interface RunningHost {
  host: WebHost;
  core: Core;
  dataDir: string;
  workspaceDir: string;
  close(): Promise<void>;
}

export async function startTestHost(
  dir: string,
  hostOptions: Partial<Omit<WebHostOptions, 'core' | 'staticDir' | 'token'>> = {},
): Promise<RunningHost> {
  const dataDir = join(dir, 'data');
  // Beside the data folder, never in the real home folder.
  const workspaceDir = join(dir, 'workspace');
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>MiniHarness</title>');
  const core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir,
    secrets: new FileSecretStore(join(dataDir, 'secrets.json'), 'Test'),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
    gateway: { port: 0 },
  });
  await core.start();
  const host = await startWebHost({ ...hostOptions, core, staticDir, token: TEST_TOKEN });
  return {
    host,
    core,
    dataDir,
    workspaceDir,
    async close() {
      await host.close();
      await core.close();
    },
  };
}

/** A bridge client as the renderer would be: Origin of the page, token in the URL. */
export class BridgeClient {
  private nextId = 1;
  private readonly pending = new Map<number, (result: DispatchResult) => void>();
  readonly events: Array<{ event: string; payload: unknown }> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as {
        t: string;
        id?: number;
        event?: string;
        payload?: unknown;
        ok?: boolean;
        result?: unknown;
        error?: unknown;
      };
      if (frame.t === 'event') this.events.push({ event: frame.event ?? '', payload: frame.payload });
      else if (frame.t === 'result' && frame.id !== undefined) {
        this.pending.get(frame.id)?.(frame as DispatchResult);
        this.pending.delete(frame.id);
      }
    });
  }

  static connect(
    port: number,
    /** `bearer`: the token goes in an Authorization header instead of the URL (as the CLI sends it). */
    options: { token?: string; origin?: string; host?: string; cookie?: string; bearer?: boolean } = {},
  ): Promise<BridgeClient> {
    const token = options.token ?? TEST_TOKEN;
    const query = options.bearer ? '' : `?token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge${query}`, [BRIDGE_PROTOCOL], {
      headers: {
        ...(options.bearer ? { Authorization: `Bearer ${token}` } : {}),
        ...(options.host ? { Host: options.host } : {}),
        ...(options.cookie ? { Cookie: options.cookie } : {}),
      },
      ...(options.origin === '' ? {} : { origin: options.origin ?? `http://127.0.0.1:${port}` }),
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new BridgeClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  call(channel: string, payload: unknown): Promise<DispatchResult> {
    const id = this.nextId++;
    return this.send({ t: 'call', id, channel, payload }, id);
  }

  /** Sends any text (a malformed frame); resolves with the reply for `id` if one is expected. */
  send(frame: unknown, id: number, raw = false): Promise<DispatchResult> {
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(raw ? (frame as string) : JSON.stringify(frame));
    });
  }

  close(): void {
    this.ws.close();
  }
}
