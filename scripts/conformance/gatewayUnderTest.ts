/**
 * The product's agent gateway as the conformance suite's server leg meets it: the app core
 * (electron/core/core.ts, as both hosts build it) over a scratch data folder, its gateway on a free
 * loopback port, one server behind it (our conformance double over stdio,
 * test/doubles/servers/conformance-server.ts, bundled once: it offers what the suite's server
 * scenarios call, so the same scenarios run against it directly and through the gateway), one
 * agent created through the core's contract (its token is what an agent would paste) that keeps
 * its tools' own names (the agent's setting; CONFORMANCE_OWN_NAMES=0 leaves it off), and the
 * test-only token forwarder in front (tokenForwarder.ts: the suite sends no token).
 *
 * The suite plays the person, as it does on the client leg: each approval the gateway asks for
 * is allowed once, from the contract, as the dialog would, and asks the server behind for all its
 * log messages (Servers → log level: debug). Nothing else is configured: the permission defaults
 * are the product's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildScratchCore } from '../../test/helpers/scratchCore.js';
import type { AgentsView } from '../../shared/agents.js';
import type { ApprovalView, ChannelName, ServerStatusView } from '../../shared/contract.js';
import { ROOT } from './suite.js';
import { startTokenForwarder } from './tokenForwarder.js';

/** The server behind the gateway, as the person would add it. */
export const BEHIND_SERVER_ID = 'double';
const DOUBLE_SOURCE = join(ROOT, 'test', 'doubles', 'servers', 'conformance-server.ts');
const DOUBLE = join(ROOT, '.cache', 'conformance', 'conformance-server.mjs');
const READY_TIMEOUT_MS = 30_000;

export interface GatewayUnderTest {
  /** The forwarder's URL: what the suite tests. */
  url: string;
  /** The gateway's own URL (the forwarder's target). */
  gatewayUrl: string;
  /** Approvals given on the suite's behalf so far. */
  approvals(): number;
  close(): Promise<void>;
}

export async function startGatewayUnderTest(version: string): Promise<GatewayUnderTest> {
  await build({
    entryPoints: [DOUBLE_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: DOUBLE,
    logLevel: 'warning',
  });
  const scratch = mkdtempSync(join(tmpdir(), 'miniharness-conformance-gateway-'));
  const core = await buildScratchCore(scratch, { version, secretsLabel: 'Conformance' });
  const call = async <T>(channel: ChannelName, payload: unknown = {}): Promise<T> => {
    const result = await core.dispatch(channel, payload);
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.result as T;
  };
  let approvals = 0;
  let resolveReady: (() => void) | undefined;
  let rejectReady: ((error: Error) => void) | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  core.onEvent((event, payload) => {
    if (event === 'approval.requested') {
      approvals += 1;
      void call('approvals.answer', { requestId: (payload as ApprovalView).requestId, answer: 'allow-once' }).catch(
        () => undefined,
      );
    }
    if (event === 'server.status') {
      const { serverId, status } = payload as { serverId: string; status: ServerStatusView };
      if (serverId !== BEHIND_SERVER_ID) return;
      if (status.state === 'ready') resolveReady?.();
      if (status.state === 'error')
        rejectReady?.(new Error(`${BEHIND_SERVER_ID} failed to start: ${status.code}: ${status.reason}`));
    }
  });
  const cleanup = async (): Promise<void> => {
    await core.close();
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    await core.start();
    const view = await call<AgentsView>('agents.list');
    if (view.gateway.state !== 'listening') throw new Error(`the gateway did not start: ${view.gateway.state}`);
    await call('servers.save', {
      mode: 'create',
      config: {
        id: BEHIND_SERVER_ID,
        name: 'Conformance double',
        transport: 'stdio',
        command: process.execPath,
        args: [DOUBLE],
        cwd: ROOT,
        timeoutMs: 15_000,
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ready,
      new Promise(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`${BEHIND_SERVER_ID} was not ready within ${READY_TIMEOUT_MS} ms`)),
            READY_TIMEOUT_MS,
          )),
      ),
    ]).finally(() => clearTimeout(timer));
    // The person asks the server for all its log messages (Servers → log level), so its logs reach the agents' calls.
    await call('servers.setLogLevel', { id: BEHIND_SERVER_ID, level: 'debug' });
    const created = await call<{ token: string }>('agents.create', {
      name: 'Conformance suite',
      visibility: {
        allServers: true,
        serverIds: [],
        localTools: false,
        ...(process.env.CONFORMANCE_OWN_NAMES === '0' ? {} : { ownNames: true }),
      },
    });
    const forwarder = await startTokenForwarder(new URL(view.gateway.url), created.token);
    return {
      url: forwarder.url.href,
      gatewayUrl: view.gateway.url,
      approvals: () => approvals,
      close: async () => {
        await forwarder.close();
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
