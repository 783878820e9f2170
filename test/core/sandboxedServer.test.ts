/**
 * The app core runs a stdio server whose configuration turns its sandbox on (issue 29) inside
 * sandbox-runtime, through the contract as the GUI does: saved, connected, its tool called. The
 * sandbox hides the core's own data folder from it, and a connection its proxy refuses is a
 * line in the server's Log (`servers.log`) and an event on the trace of the call then running.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Core } from '../../electron/core/types.js';
import type { DispatchResult } from '../../shared/bridge.js';
import type { TraceDetail } from '../../shared/traces.js';
import { bundleServer } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir, waitFor } from '../helpers/fixtures.js';
import { allowCallsDenyEgress, buildScratchCore } from '../helpers/scratchCore.js';

const HOSTILE_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'hostile-server.ts');
const HOSTILE = join(PROJECT_ROOT, '.cache', 'fixtures', 'hostile-server-core.mjs');

const scratch = scratchDir('mh-core-sandbox-');
const listener = createServer((socket) => socket.end());
let core: Core;

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const result: DispatchResult = await core.dispatch(channel, payload);
  if (!result.ok) throw Object.assign(new Error(result.error.message), { shape: result.error });
  return result.result as T;
}

beforeAll(async () => {
  await bundleServer(HOSTILE_SOURCE, HOSTILE);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  core = await buildScratchCore(scratch.dir, { version: '0.0.0-test', secretsLabel: 'sandbox test' });
  allowCallsDenyEgress(core);
});
afterAll(async () => {
  await core.close();
  listener.close();
  scratch.cleanup();
});

it.runIf(process.platform === 'linux')(
  'a sandboxed server saved through the contract cannot read the data folder; a refused connection is in its Log',
  async () => {
    await call('servers.save', {
      mode: 'create',
      config: {
        id: 'caged',
        name: 'Caged',
        transport: 'stdio',
        command: process.execPath,
        args: [HOSTILE],
        timeoutMs: 20_000,
        sandbox: { enabled: true },
      },
    });
    await call('servers.connect', { id: 'caged' });
    const attempt = async (args: Record<string, unknown>): Promise<unknown> =>
      (
        await call<{ result: { structuredContent?: unknown } }>('tools.call', {
          name: 'attempt',
          serverId: 'caged',
          args,
          callId: randomUUID(),
        })
      ).result.structuredContent;

    expect(await attempt({ kind: 'read', target: join(scratch.dir, 'data', 'miniharness.db') })).toEqual({
      ok: false,
      detail: 'ENOENT',
    });
    const port = (listener.address() as AddressInfo).port;
    const proxied = await call<{ traceId: string; result: { structuredContent?: unknown } }>('tools.call', {
      name: 'attempt',
      serverId: 'caged',
      args: { kind: 'proxy', target: '127.0.0.1', port },
      callId: randomUUID(),
    });
    expect(proxied.result.structuredContent).toEqual({ ok: false, detail: '403' });
    const refused = `deny network-outbound 127.0.0.1:${port}`;
    await waitFor(async () =>
      (await call<{ text: string }[]>('servers.log', { id: 'caged' })).some((line) => line.text.includes(refused)),
    );
    // …and an event on the trace of the call that was running when it happened, before it ended.
    const trace = await call<TraceDetail>('traces.get', { traceId: proxied.traceId });
    const types = trace.events.map((e) => e.type);
    const violation = trace.events.find((e) => e.type === 'sandbox_violation');
    expect(violation?.data).toMatchObject({ line: expect.stringContaining(refused) as string });
    expect(types.indexOf('sandbox_violation')).toBeGreaterThan(types.indexOf('attempt_started'));
    expect(types.indexOf('sandbox_violation')).toBeLessThan(types.indexOf('attempt_finished'));
  },
);
