/**
 * Egress asked like a call (issue 29), in plain Node with the real parts: a stdio server (the
 * egress double) sandboxed by sandbox-runtime through the real client, a loopback upstream on
 * the host, the egress gate in front of the library's proxy, and the app's approval broker,
 * answered the way the GUI answers it. The server's attempt to reach a host its profile does not
 * list WAITS while an approval names the server, the host and port; the answer decides it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, EventName } from '../../shared/contract.js';
import { SANDBOX_CALLER } from '../../shared/contract.js';
import type { StdioServerConfig } from '../../shared/serverConfig.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { ApprovalBroker } from '../../electron/core/approvalBroker.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { EgressAsks, MAX_OPEN_ASKS_PER_SERVER, entryOf, listedIn } from '../../electron/sandbox/egressAsk.js';
import { commandIdOf, parseHead, startEgressGate } from '../../electron/sandbox/egressGate.js';
import { gatedProxyLine, ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { bundledOnce } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

const SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'egress-server.ts');
const BUILT = join(PROJECT_ROOT, '.cache', 'fixtures', 'egress-server.mjs');
const build = bundledOnce(SOURCE, BUILT);

type Reached = { status: string; greeting: string };

describe('the gate reads the wrap from the request', () => {
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:token`).toString('base64')}`;
  const id = 'QkJCQkJCQkJCQkJCQkJCQkJCQkI';
  const user = `srt.${Buffer.from(id).toString('base64')}`;

  it('takes the wrap id from the library’s proxy user name, and nothing else', () => {
    expect(commandIdOf(basic(user))).toBe(id);
    expect(commandIdOf(basic('srt'))).toBeUndefined();
    expect(commandIdOf(basic('someone'))).toBeUndefined();
    expect(commandIdOf('Bearer abc')).toBeUndefined();
    expect(commandIdOf(undefined)).toBeUndefined();
  });

  it('parses CONNECT and absolute-form requests; refuses the rest', () => {
    const auth = `Proxy-Authorization: ${basic(user)}`;
    expect(parseHead(`CONNECT 127.0.0.1:4567 HTTP/1.1\r\nHost: x\r\n${auth}`)).toEqual({
      host: '127.0.0.1',
      port: 4567,
      commandId: id,
    });
    expect(parseHead('CONNECT [::1]:80 HTTP/1.1')).toEqual({ host: '::1', port: 80 });
    expect(parseHead('GET http://example.org/a?b HTTP/1.1')).toEqual({ host: 'example.org', port: 80 });
    expect(parseHead('GET /a HTTP/1.1')).toBeUndefined();
    expect(parseHead('CONNECT example.org:0 HTTP/1.1')).toBeUndefined();
    expect(parseHead('CONNECT example.org:99999 HTTP/1.1')).toBeUndefined();
  });

  it('matches allow-list entries as the library spells them', () => {
    expect(listedIn(['example.org:443'], 'Example.org', 443)).toBe(true);
    expect(listedIn(['example.org:443'], 'example.org', 80)).toBe(false);
    expect(listedIn(['*.example.org'], 'api.example.org', 1)).toBe(true);
    expect(listedIn(['*.example.org'], 'example.org', 1)).toBe(false);
    expect(listedIn(['*.example.org'], 'evilexample.org', 1)).toBe(false);
    expect(listedIn(['[::1]:80'], '::1', 80)).toBe(true);
    expect(entryOf('::1', 80)).toBe('[::1]:80');
    expect(entryOf('Example.org', 443)).toBe('Example.org:443');
  });
});

describe('the gate by itself, on loopback', () => {
  /** Sends `bytes` to the gate and says what came back before it closed. */
  function exchange(gatePort: number, bytes: Buffer | string): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: gatePort });
      let answer = '';
      socket.once('connect', () => socket.write(bytes));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.once('close', () => resolve(answer));
      socket.once('error', () => resolve(answer));
    });
  }

  it('refuses at once what names no wrap, what is not a proxy request and a SOCKS greeting; forwards what is allowed', async () => {
    const decided: (string | undefined)[] = [];
    const upstream = createServer((socket) =>
      socket.once('data', (head) => socket.end(`upstream got ${head.toString('latin1').split('\r\n')[0]}`)),
    );
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const gate = await startEgressGate({
      upstreamPort: () => (upstream.address() as AddressInfo).port,
      decide: (commandId, host) => {
        decided.push(commandId);
        return Promise.resolve(
          commandId === 'known-wrap-id-0123456789' && host === 'allowed.test'
            ? { allow: true }
            : { allow: false, reason: 'no' },
        );
      },
    });
    try {
      const auth = `Proxy-Authorization: Basic ${Buffer.from(`srt.${Buffer.from('known-wrap-id-0123456789').toString('base64')}:t`).toString('base64')}`;
      expect(await exchange(gate.port, 'CONNECT elsewhere.test:443 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
      expect(await exchange(gate.port, `CONNECT elsewhere.test:443 HTTP/1.1\r\n${auth}\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 403/,
      );
      expect(await exchange(gate.port, 'GET /local HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
      expect(await exchange(gate.port, Buffer.from([5, 1, 0]))).toBe('');
      expect(await exchange(gate.port, `CONNECT allowed.test:443 HTTP/1.1\r\n${auth}\r\n\r\n`)).toBe(
        'upstream got CONNECT allowed.test:443 HTTP/1.1',
      );
      expect(decided).toEqual([undefined, 'known-wrap-id-0123456789', 'known-wrap-id-0123456789']);
    } finally {
      await gate.close();
      upstream.close();
    }
  });
});

describe('the proxy variables a sandboxed server gets point at the gate', () => {
  /** What `sh` makes of the line, given the variables as the library sets them. */
  function after(line: string, proxy: string | undefined): string {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    if (proxy !== undefined) for (const name of ['HTTP_PROXY', 'https_proxy', 'ALL_PROXY']) env[name] = proxy;
    const run = spawnSync(
      '/bin/sh',
      ['-c', `${line}echo "$HTTP_PROXY|$https_proxy|$ALL_PROXY|\${HTTPS_PROXY-unset}"`],
      {
        env,
        encoding: 'utf8',
      },
    );
    return run.stdout.trim();
  }

  it('Linux: the same user and token, the library’s SOCKS bridge port (1080) inside the sandbox', () => {
    const proxy = 'http://srt.QUJD:0123abcd@localhost:3128';
    const gated = 'http://srt.QUJD:0123abcd@localhost:1080';
    expect(after(gatedProxyLine('linux', 40000), proxy)).toBe(`${gated}|${gated}|${gated}|unset`);
  });

  it('macOS: the gate’s own port (Seatbelt lets the sandbox reach it)', () => {
    const proxy = 'http://srt.QUJD:0123abcd@localhost:51000';
    const gated = 'http://srt.QUJD:0123abcd@localhost:40000';
    expect(after(gatedProxyLine('darwin', 40000), proxy)).toBe(`${gated}|${gated}|${gated}|unset`);
  });

  it('sets nothing that was not set', () => {
    expect(after(gatedProxyLine('linux', 40000), undefined)).toBe('|||unset');
  });
});

describe('asks of one server', () => {
  function asks(asked: string[], notes: string[]): EgressAsks {
    return new EgressAsks({
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
  }

  it('are at most MAX_OPEN_ASKS_PER_SERVER at once; more attempts are refused without an ask', async () => {
    const asked: string[] = [];
    const notes: string[] = [];
    const egress = asks(asked, notes);
    egress.attach('flood', 'a'.repeat(22), []);
    egress.attach('other', 'b'.repeat(22), []);
    for (let p = 1; p <= MAX_OPEN_ASKS_PER_SERVER; p++) void egress.decide('a'.repeat(22), '10.0.0.1', p);
    const refused = [
      await egress.decide('a'.repeat(22), '10.0.0.1', 100),
      await egress.decide('a'.repeat(22), '10.0.0.1', 101),
    ];
    void egress.decide('a'.repeat(22), '10.0.0.1', 1); // the same host again: waits on the same ask
    void egress.decide('b'.repeat(22), '10.0.0.1', 1);
    expect(refused).toEqual([
      { allow: false, reason: 'too many asks wait' },
      { allow: false, reason: 'too many asks wait' },
    ]);
    expect(asked).toEqual([
      ...Array.from({ length: MAX_OPEN_ASKS_PER_SERVER }, (_, i) => `flood 10.0.0.1:${i + 1}`),
      'other 10.0.0.1:1',
    ]);
    expect(notes).toHaveLength(2);
  });

  it('refuses an attempt naming no live wrap, without asking anyone', async () => {
    const asked: string[] = [];
    const egress = asks(asked, []);
    egress.attach('a', 'a'.repeat(22), []);
    expect(await egress.decide(undefined, '10.0.0.1', 1)).toEqual({
      allow: false,
      reason: 'no sandboxed server named',
    });
    expect(await egress.decide('c'.repeat(22), '10.0.0.1', 1)).toMatchObject({ allow: false });
    egress.detach('a'.repeat(22));
    expect(await egress.decide('a'.repeat(22), '10.0.0.1', 1)).toMatchObject({ allow: false });
    expect(asked).toEqual([]);
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
  const violations: string[] = [];
  const sandboxes = new ServerSandboxes({
    dataDir,
    home,
    egress,
    onViolation: (serverId, line) => violations.push(`${serverId}: ${line}`),
  });
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

  async function reach(client: MCPClient, proxyPort?: number): Promise<Reached> {
    const args = proxyPort === undefined ? { host: '127.0.0.1', port } : { host: '127.0.0.1', port, proxyPort };
    const result = await client.callTool('reach', args);
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

  /** The approval shown after `before` ones, once it is. */
  async function askedAfter(before: number): Promise<ApprovalView> {
    await until(() => shown.length > before);
    return shown[before] as ApprovalView;
  }

  /** An attempt still waiting: it has not settled while its approval is open. */
  function attempt(client: MCPClient): { result: Promise<Reached>; settled: () => boolean } {
    let done = false;
    const result = reach(client).finally(() => {
      done = true;
    });
    return { result, settled: () => done };
  }

  it('waits for the person; "allow once" lets that attempt through, and the next one is asked again', async () => {
    const client = await started(config('once'));
    const before = shown.length;
    const first = attempt(client);
    const asked = await askedAfter(before);
    expect(first.settled()).toBe(false);
    expect(connections).toBe(0);
    expect(broker.list().map((v) => v.requestId)).toEqual([asked.requestId]);
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
    broker.answer(asked.requestId, 'allow-once');
    // The attempt that waited is the one that goes through.
    expect(await first.result).toEqual({ status: '200', greeting: 'hello from upstream' });
    expect(connections).toBe(1);

    // Once was for that attempt: the next one waits for a new answer; denied, it fails at once.
    const second = attempt(client);
    const again = await askedAfter(before + 1);
    expect(second.settled()).toBe(false);
    broker.answer(again.requestId, 'deny');
    expect(await second.result).toEqual({ status: '403', greeting: '' });
    expect(connections).toBe(1);
  });

  it('"always" adds the host to the profile: the server started with it is not asked', async () => {
    const client = await started(config('always'));
    const before = shown.length;
    const first = attempt(client);
    broker.answer((await askedAfter(before)).requestId, 'allow-always');
    expect((await first.result).status).toBe('200');
    expect(profileAdds).toEqual([{ serverId: 'always', entry: `127.0.0.1:${port}` }]);
    // This run reaches it again without an ask…
    expect((await reach(client)).status).toBe('200');
    await client.close();
    // …and the server, started again with its profile as saved, too.
    const again = await started(config('always', [`127.0.0.1:${port}`]));
    const reachedBefore = connections;
    expect(await reach(again)).toEqual({ status: '200', greeting: 'hello from upstream' });
    expect(connections).toBe(reachedBefore + 1);
    expect(shown.length).toBe(before + 1);
  });

  it('"for this session" reaches the host in every run of that server, and no other server borrows it', async () => {
    const client = await started(config('session'));
    const other = await started(config('borrower'));
    const before = shown.length;
    const first = attempt(client);
    broker.answer((await askedAfter(before)).requestId, 'allow-session');
    expect((await first.result).status).toBe('200');
    expect((await reach(client)).status).toBe('200');
    expect(egress.sessionGrants()).toEqual([{ serverId: 'session', host: `127.0.0.1:${port}` }]);

    // Another server reaching the same host is asked about on its own; denied, it is refused.
    const reachedBefore = connections;
    const borrowing = attempt(other);
    const asked = await askedAfter(before + 1);
    expect(asked.serverId).toBe('borrower');
    broker.answer(asked.requestId, 'deny');
    expect(await borrowing.result).toEqual({ status: '403', greeting: '' });
    // Around the gate, straight to the library's proxy (3128 inside the sandbox): its allow list
    // for that server decides, at once and without an ask.
    expect(await reach(other, 3128)).toEqual({ status: '403', greeting: '' });
    expect(await reach(client, 3128)).toEqual({ status: '200', greeting: 'hello from upstream' });
    expect(connections).toBe(reachedBefore + 1);
    expect(shown.length).toBe(before + 2);

    await client.close();
    const again = await started(config('session'));
    expect((await reach(again)).status).toBe('200');
    expect(egress.revokeSession('session', `127.0.0.1:${port}`)).toBe(true);
    const revoked = attempt(again);
    broker.answer((await askedAfter(before + 2)).requestId, 'deny');
    expect((await revoked.result).status).toBe('403');
  });

  it('"deny" refuses that attempt at once, and the next without asking while the server runs', async () => {
    const client = await started(config('deny'));
    const before = shown.length;
    const reachedBefore = connections;
    const first = attempt(client);
    broker.answer((await askedAfter(before)).requestId, 'deny');
    expect((await first.result).status).toBe('403');
    expect((await reach(client)).status).toBe('403');
    expect(shown.length).toBe(before + 1);
    expect(connections).toBe(reachedBefore);
    // Each refusal is the server's violation (its Log tab, the trace of its call in flight).
    expect(violations.filter((v) => v.startsWith('deny: '))).toEqual([
      `deny: deny network-outbound 127.0.0.1:${port} (denied by you)`,
      `deny: deny network-outbound 127.0.0.1:${port} (denied by you)`,
    ]);
  });

  it('a server that stops while its connection waits withdraws the ask: the dialog closes', async () => {
    const client = await started(config('stops'));
    const before = shown.length;
    const first = attempt(client);
    const asked = await askedAfter(before);
    await client.close();
    await first.result.catch(() => undefined);
    await until(() => closed.some((c) => c.requestId === asked.requestId));
    expect(closed.find((c) => c.requestId === asked.requestId)?.outcome).not.toBe('answered');
    expect(broker.list()).toEqual([]);
  });

  it('a plain http:// request through the proxy waits and is asked about the same way', async () => {
    const web = createHttpServer((_request, response) => response.end('hello over http'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const webPort = (web.address() as AddressInfo).port;
    try {
      const client = await started(config('plain-http'));
      const before = shown.length;
      let done = false;
      const pending = client
        .callTool('reach', { host: '127.0.0.1', port: webPort, plainHttp: true })
        .then((r) => r.structuredContent as Reached)
        .finally(() => (done = true));
      const asked = await askedAfter(before);
      expect(asked.egress).toMatchObject({ host: '127.0.0.1', port: webPort });
      expect(done).toBe(false);
      broker.answer(asked.requestId, 'allow-once');
      expect(await pending).toEqual({ status: '200', greeting: 'hello over http' });
    } finally {
      web.close();
    }
  });

  it('an unanswered ask ends as a deny when the approval timeout passes', async () => {
    timeoutMs = 200;
    const client = await started(config('timeout'));
    const before = shown.length;
    const first = attempt(client);
    const asked = await askedAfter(before);
    expect((await first.result).status).toBe('403');
    await until(() => closed.some((c) => c.requestId === asked.requestId));
    // Closed by the timer (not by an answer): the dialog goes away.
    expect(closed.find((c) => c.requestId === asked.requestId)?.outcome).not.toBe('answered');
    expect(broker.list()).toEqual([]);
    // Denied: the next attempt is refused, not asked about.
    expect((await reach(client)).status).toBe('403');
    expect(shown.length).toBe(before + 1);
  });
});
