/**
 * Egress asked like a call (issue 29), in plain Node with the real parts: a stdio server (the
 * egress double) sandboxed by sandbox-runtime through the real client, a loopback upstream on
 * the host, and the app's approval broker, answered the way the GUI answers it. The server's
 * attempt to reach a host its profile does not list fails at once and opens an approval naming
 * the server, the host and port; the answer decides its next attempts.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, EventName } from '../../shared/contract.js';
import { SANDBOX_CALLER } from '../../shared/contract.js';
import type { StdioServerConfig } from '../../shared/serverConfig.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { ApprovalBroker } from '../../electron/core/approvalBroker.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { EgressAsks, MAX_OPEN_ASKS_PER_SERVER, entryOf, undecidedHostOf } from '../../electron/sandbox/egressAsk.js';
import { ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { bundledOnce } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

const SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'egress-server.ts');
const BUILT = join(PROJECT_ROOT, '.cache', 'fixtures', 'egress-server.mjs');
const build = bundledOnce(SOURCE, BUILT);

type Reached = { status: string; greeting: string };

describe('the library’s denial line names the host and port', () => {
  it('reads a host no rule decided, and nothing else', () => {
    expect(undecidedHostOf('deny network-outbound 127.0.0.1:4567 (host is not on the allow list)')).toEqual({
      host: '127.0.0.1',
      port: 4567,
    });
    expect(undecidedHostOf('deny network-outbound ::1:80 (host is not on the allow list)')).toEqual({
      host: '::1',
      port: 80,
    });
    // Denied by a rule, or by the resolved-address guard: the person is not asked.
    expect(undecidedHostOf('deny network-outbound evil.test:443 (host is on the deny list)')).toBeUndefined();
    expect(undecidedHostOf('deny file-read /home/me/.ssh/id_rsa')).toBeUndefined();
    expect(entryOf('::1', 80)).toBe('[::1]:80');
    expect(entryOf('Example.org', 443)).toBe('Example.org:443');
  });
});

describe('asks of one server', () => {
  it('are at most MAX_OPEN_ASKS_PER_SERVER at once; more attempts are refused without an ask', () => {
    const asked: string[] = [];
    const notes: string[] = [];
    const egress = new EgressAsks({
      ask: (request) => {
        asked.push(`${request.serverId} ${request.ask.entry ?? ''}`);
        return new Promise(() => undefined);
      },
      timeoutMs: () => 60_000,
      callInFlight: () => undefined,
      addToProfile: () => Promise.resolve(),
      note: (_serverId, text) => notes.push(text),
      register: () => undefined,
    });
    const flood = egress.attach('flood', 'a'.repeat(22), []);
    const other = egress.attach('other', 'b'.repeat(22), []);
    const line = (p: number) => `deny network-outbound 10.0.0.1:${p} (host is not on the allow list)`;
    for (let p = 1; p <= MAX_OPEN_ASKS_PER_SERVER + 2; p++) flood(line(p));
    flood(line(1)); // the same host again: already asked
    other(line(1));
    expect(asked).toEqual([
      ...Array.from({ length: MAX_OPEN_ASKS_PER_SERVER }, (_, i) => `flood 10.0.0.1:${i + 1}`),
      'other 10.0.0.1:1',
    ]);
    expect(notes).toHaveLength(2);
  });
});

describe.runIf(process.platform === 'linux')('a sandboxed server reaching an unlisted host', () => {
  const scratch = scratchDir('mh-egress-');
  const home = join(scratch.dir, 'home');
  const dataDir = join(scratch.dir, 'data');
  let upstream: Server;
  let port: number;
  let connections = 0;
  /** The approvals the broker showed, in order; `answer` answers the newest. */
  const shown: ApprovalView[] = [];
  const closed: { requestId: string; outcome: string }[] = [];
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const check of waiters.splice(0)) check();
  };
  const broker = new ApprovalBroker(
    (event: EventName, payload: unknown) => {
      if (event === 'approval.requested') shown.push(payload as ApprovalView);
      if (event === 'approval.closed') closed.push(payload as { requestId: string; outcome: string });
      wake();
    },
    (value) => value,
  );
  let timeoutMs = 60_000;
  const profileAdds: { serverId: string; entry: string }[] = [];
  const egress = new EgressAsks({
    ask: broker.requestEgress,
    timeoutMs: () => timeoutMs,
    callInFlight: (serverId) => ({ sessionId: 's1', callId: `call-on-${serverId}`, toolName: 'reach', userId: 'gui' }),
    addToProfile: (serverId, entry) => {
      profileAdds.push({ serverId, entry });
      wake();
      return Promise.resolve();
    },
  });
  const sandboxes = new ServerSandboxes({ dataDir, home, egress });
  const clients: MCPClient[] = [];

  function until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => (ready() ? resolve() : void waiters.push(check));
      waiters.push(check);
    });
  }

  function config(id: string, hosts: string[] = []): StdioServerConfig {
    return StdioServerConfigSchema.parse({
      id,
      name: id,
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT],
      timeoutMs: 20_000,
      sandbox: { enabled: true, hosts },
    });
  }

  async function started(server: StdioServerConfig): Promise<MCPClient> {
    const client = new MCPClient(server, { secrets: new DefaultSecretResolver(), sandboxes });
    clients.push(client);
    await client.initialize();
    return client;
  }

  async function reach(client: MCPClient): Promise<Reached> {
    const result = await client.callTool('reach', { host: '127.0.0.1', port });
    return result.structuredContent as Reached;
  }

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    await build();
    upstream = createServer((socket) => {
      connections += 1;
      socket.end('hello from upstream\n');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    timeoutMs = 60_000;
  });
  afterAll(() => {
    upstream.close();
    scratch.cleanup();
  });

  it('fails fast and asks; "allow once" lets the next attempt through, then it asks again', async () => {
    const client = await started(config('once'));
    const before = shown.length;
    // Refused at once: the call returns while the approval is still waiting.
    expect(await reach(client)).toEqual({ status: '403', greeting: '' });
    expect(connections).toBe(0);
    const asked = shown[before];
    expect(broker.list().map((v) => v.requestId)).toEqual([asked?.requestId]);
    expect(asked).toMatchObject({
      serverId: 'once',
      userId: SANDBOX_CALLER,
      toolName: `127.0.0.1:${port}`,
      egress: {
        host: '127.0.0.1',
        port,
        entry: `127.0.0.1:${port}`,
        call: { callId: 'call-on-once', toolName: 'reach', userId: 'gui' },
      },
    });
    broker.answer(asked?.requestId ?? '', 'allow-once');

    expect(await reach(client)).toEqual({ status: '200', greeting: 'hello from upstream' });
    expect(connections).toBe(1);
    expect(shown.length).toBe(before + 1);

    // The call the grant was for ended: the next attempt is refused and asked about again.
    egress.callEnded('once');
    expect(await reach(client)).toEqual({ status: '403', greeting: '' });
    expect(connections).toBe(1);
    expect(shown.length).toBe(before + 2);
    broker.answer(shown[before + 1]?.requestId ?? '', 'deny');
  });

  it('"always" adds the host to the profile: the server started with it is not asked', async () => {
    const client = await started(config('always'));
    const before = shown.length;
    expect((await reach(client)).status).toBe('403');
    broker.answer(shown[before]?.requestId ?? '', 'allow-always');
    await until(() => profileAdds.length > 0);
    expect(profileAdds).toEqual([{ serverId: 'always', entry: `127.0.0.1:${port}` }]);
    // This run may reach it at once…
    expect((await reach(client)).status).toBe('200');
    await client.close();
    // …and the server, started again with its profile as saved, reaches it without an ask.
    const again = await started(config('always', [`127.0.0.1:${port}`]));
    const reachedBefore = connections;
    expect(await reach(again)).toEqual({ status: '200', greeting: 'hello from upstream' });
    egress.callEnded('always');
    expect((await reach(again)).status).toBe('200');
    expect(connections).toBe(reachedBefore + 2);
    expect(shown.length).toBe(before + 1);
  });

  it('"for this session" reaches the host in every run of the server until revoked', async () => {
    const client = await started(config('session'));
    const before = shown.length;
    expect((await reach(client)).status).toBe('403');
    broker.answer(shown[before]?.requestId ?? '', 'allow-session');
    expect((await reach(client)).status).toBe('200');
    egress.callEnded('session');
    expect((await reach(client)).status).toBe('200');
    expect(egress.sessionGrants()).toEqual([{ serverId: 'session', host: `127.0.0.1:${port}` }]);
    await client.close();
    const again = await started(config('session'));
    expect((await reach(again)).status).toBe('200');
    expect(egress.revokeSession('session', `127.0.0.1:${port}`)).toBe(true);
    expect((await reach(again)).status).toBe('403');
    expect(shown.length).toBe(before + 2);
    broker.answer(shown[before + 1]?.requestId ?? '', 'deny');
  });

  it('"deny" keeps the host refused without asking again while the server runs', async () => {
    const client = await started(config('deny'));
    const before = shown.length;
    const reachedBefore = connections;
    expect((await reach(client)).status).toBe('403');
    broker.answer(shown[before]?.requestId ?? '', 'deny');
    expect((await reach(client)).status).toBe('403');
    expect(shown.length).toBe(before + 1);
    expect(connections).toBe(reachedBefore);
  });

  it('an unanswered ask ends as a deny when the approval timeout passes', async () => {
    timeoutMs = 200;
    const client = await started(config('timeout'));
    const before = shown.length;
    expect((await reach(client)).status).toBe('403');
    const asked = shown[before];
    await until(() => closed.some((c) => c.requestId === asked?.requestId));
    // Closed by the timer (not by an answer): the dialog goes away.
    expect(closed.find((c) => c.requestId === asked?.requestId)?.outcome).not.toBe('answered');
    expect(broker.list()).toEqual([]);
    // Denied: the next attempt is refused, not asked about.
    expect((await reach(client)).status).toBe('403');
    expect(shown.length).toBe(before + 1);
  });
});
