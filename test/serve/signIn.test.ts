/**
 * `miniharness serve` with a real OpenID Connect provider (test/doubles/oidc/teamIdp.ts): the first
 * admin by the one-time token, roles from the configuration (and never from an unverified
 * e-mail), roles enforced on the bridge, every sign-in and change recorded with the person,
 * Host/Origin/cookie+token checks, the sign-in rate limit, health, and a graceful shutdown that
 * waits for the call in flight.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, HistoryRecordView } from '../../shared/contract.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';
import type { SignedIn } from './signInDriver.js';
import { SignInRefused, signInAs } from './signInDriver.js';

const PEOPLE = {
  alice: { email: 'alice@team.example', name: 'Alice Admin' },
  bob: { email: 'bob@team.example', name: 'Bob Approver' },
  carol: { email: 'carol@team.example', name: 'Carol Viewer' },
  mallory: { email: 'bob@team.example', name: 'Mallory', emailVerified: false },
  dave: { email: 'dave@team.example', name: 'Dave Nobody' },
};

describe('miniharness serve: people sign in through OpenID Connect, roles decide', () => {
  const scratch = scratchDir();
  let idp: TeamIdp;
  let serve: TestServe;
  const open: BridgeClient[] = [];

  async function bridge(who: SignedIn): Promise<BridgeClient> {
    const client = await BridgeClient.connect(serve.port, { token: who.token, cookie: who.cookie });
    open.push(client);
    return client;
  }
  const audit = (): Array<Record<string, unknown>> =>
    readFileSync(join(serve.dataDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    idp = await startTeamIdp(PEOPLE);
    serve = await startTestServe(scratch.dir, idp, {
      people: { 'bob@team.example': 'approver', carol: 'viewer' },
    });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await serve.serving.shutdown();
    await idp.close();
    scratch.cleanup();
  });

  it('prints a one-time link at first start; it makes the first person to use it the admin, once', async () => {
    expect(serve.bootstrap).toBeDefined();
    const alice = await signInAs(serve.url, 'alice', serve.bootstrap);
    const me = await fetch(`${serve.url}/auth/me`, {
      headers: { cookie: alice.cookie, authorization: `Bearer ${alice.token}` },
    });
    expect(await me.json()).toEqual({ name: 'Alice Admin', role: 'admin' });
    // Used up: the same link gives Dave nothing.
    await expect(signInAs(serve.url, 'dave', serve.bootstrap)).rejects.toMatchObject({ status: 403 });
    expect(audit().map((e) => [e.action, e.person])).toEqual(
      expect.arrayContaining([
        ['bootstrap admin', 'Alice Admin'],
        ['sign-in', 'Alice Admin'],
        ['sign-in refused', 'Dave Nobody'],
      ]),
    );
  });

  it('a role follows a verified e-mail only: the same address unverified gets no role', async () => {
    const bob = await signInAs(serve.url, 'bob');
    const me = await fetch(`${serve.url}/auth/me`, {
      headers: { cookie: bob.cookie, authorization: `Bearer ${bob.token}` },
    });
    expect(await me.json()).toEqual({ name: 'Bob Approver', role: 'approver' });
    const refused = await signInAs(serve.url, 'mallory').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SignInRefused);
    expect((refused as SignInRefused).body).toMatch(/Mallory has no role on this MiniHarness/);
  });

  it('enforces roles on the bridge: a viewer reads History but cannot change; an approver decides; the call is the person’s', async () => {
    const [alice, bob, carol] = [
      await signInAs(serve.url, 'alice'),
      await signInAs(serve.url, 'bob'),
      await signInAs(serve.url, 'carol'),
    ];
    const [admin, approver, viewer] = [await bridge(alice), await bridge(bob), await bridge(carol)];

    const save = await viewer.call('permissions.setToolLevel', {
      serverId: 'local',
      toolName: 'write_file',
      level: 'ALLOW',
    });
    expect(save).toMatchObject({
      ok: false,
      error: { code: 'role_forbidden', message: 'Your role (viewer) does not allow permissions.setToolLevel.' },
    });
    expect(await viewer.call('history.page', {})).toMatchObject({ ok: true });

    // Alice's call asks (write_file is destructive); Bob's page gets the approval, Carol's decision is refused.
    const mark = approver.events.length;
    const callId = `call-${randomUUID()}`;
    const call = admin.call('tools.call', {
      name: 'write_file',
      serverId: 'local',
      args: { path: 'team.txt', content: 'hi' },
      callId,
    });
    await waitFor(() => approver.events.slice(mark).some((e) => e.event === 'approval.requested'));
    const approval = approver.events.slice(mark).find((e) => e.event === 'approval.requested')?.payload as ApprovalView;
    expect(approval.userId).toBe('Alice Admin');
    expect(await viewer.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'role_forbidden' },
    });
    expect(
      await approver.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' }),
    ).toMatchObject({ ok: true });
    // The first decision wins: a second one is refused as stale.
    expect(await admin.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'stale_approval' },
    });
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: true, result: { callId, result: { isError: false } } });
    // Every other page learns who decided, and how.
    await waitFor(() => viewer.events.some((e) => e.event === 'approval.closed'));
    expect(viewer.events.find((e) => e.event === 'approval.closed')?.payload).toEqual({
      requestId: approval.requestId,
      outcome: 'answered',
      decidedBy: 'Bob Approver',
      answer: 'allow-once',
    });

    // History names the person who made the call.
    const page = await viewer.call('history.page', { userId: 'Alice Admin' });
    expect(page.ok && (page.result as { records: HistoryRecordView[] }).records.map((r) => r.callId)).toContain(callId);
    const decided = audit().filter((e) => e.channel === 'approvals.answer');
    expect(decided.map((e) => [e.person, e.role, e.ok])).toEqual([
      ['Carol Viewer', 'viewer', false],
      ['Bob Approver', 'approver', true],
      ['Alice Admin', 'admin', false],
    ]);
  });

  it('the bridge needs both the session cookie and its token, from this origin and host', async () => {
    const alice = await signInAs(serve.url, 'alice');
    await expect(BridgeClient.connect(serve.port, { token: alice.token })).rejects.toThrow(/401/);
    await expect(BridgeClient.connect(serve.port, { token: 'x'.repeat(43), cookie: alice.cookie })).rejects.toThrow(
      /401/,
    );
    await expect(BridgeClient.connect(serve.port, { ...alice, origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(BridgeClient.connect(serve.port, { ...alice, host: `rebound.example:${serve.port}` })).rejects.toThrow(
      /403/,
    );
    // The page itself sends someone without a session to sign in.
    const page = await fetch(`${serve.url}/`, { redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/auth/login']);
    // A live session gets the page.
    expect((await fetch(`${serve.url}/`, { redirect: 'manual', headers: { cookie: alice.cookie } })).status).toBe(200);
    // Signing out (a POST with the token) ends the session for the bridge too: the host closes it.
    const socket = await bridge(alice);
    const closed = new Promise<[number, string]>((resolve) =>
      socket.ws.once('close', (code, reason) => resolve([code, reason.toString()])),
    );
    const out = await fetch(`${serve.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: alice.cookie, authorization: `Bearer ${alice.token}` },
    });
    expect(out.status).toBe(204);
    // Reloading the page with the ended session's cookie sends the person to sign in again.
    const reload = await fetch(`${serve.url}/`, { redirect: 'manual', headers: { cookie: alice.cookie } });
    expect([reload.status, reload.headers.get('location')]).toEqual([303, '/auth/login']);
    expect(await closed).toEqual([1008, 'Your session has ended; sign in again.']);
    await expect(BridgeClient.connect(serve.port, alice)).rejects.toThrow(/401/);
  });

  it('answers /healthz and /readyz whatever the Host (a load balancer probes by address)', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await fetch(`${serve.url}${path}`, { headers: { host: `10.0.0.9:${serve.port}` } });
      expect([path, res.status, await res.text()]).toEqual([path, 200, 'ok\n']);
    }
  });
});

describe('miniharness serve: sign-in rate limit and graceful shutdown', () => {
  const scratch = scratchDir();
  let idp: TeamIdp;

  beforeAll(async () => {
    idp = await startTeamIdp(PEOPLE);
  });
  afterAll(async () => {
    await idp.close();
    scratch.cleanup();
  });

  it('limits sign-in attempts per address, with Retry-After', async () => {
    const serve = await startTestServe(join(scratch.dir, 'limit'), idp, { signInPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await fetch(`${serve.url}/auth/login`, { redirect: 'manual' })).status);
      expect(statuses).toEqual([303, 303, 303, 429]);
      const refused = await fetch(`${serve.url}/auth/callback?state=x`, { redirect: 'manual' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await serve.serving.shutdown();
    }
  });

  it('a provider that is down gets a sentence, never the library’s text, and 502 on /auth/login', async () => {
    const down = await startTeamIdp(PEOPLE);
    const started = await startTestServe(join(scratch.dir, 'down-started'), down);
    const fresh = await startTestServe(join(scratch.dir, 'down-fresh'), down);
    try {
      // Started while the provider was up (discovered, state and cookie issued), finished after it went down.
      const login = await fetch(`${started.url}/auth/login`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      await down.close();
      const callback = await fetch(`${started.url}/auth/callback?code=c&state=${state}`, {
        redirect: 'manual',
        headers: { cookie },
      });
      expect([callback.status, await callback.text()]).toEqual([
        403,
        'Sign-in failed: The identity provider could not complete the sign-in; try again, or tell your admin. Open /auth/login to try again.\n',
      ]);
      const unreachable = await fetch(`${fresh.url}/auth/login`, { redirect: 'manual' });
      expect([unreachable.status, await unreachable.text()]).toEqual([
        502,
        'The identity provider cannot be reached right now; try again later, or tell your admin.\n',
      ]);
      // Our own refusal is still its sentence.
      const foreign = await fetch(`${started.url}/auth/callback?code=c&state=other`, { redirect: 'manual' });
      expect(await foreign.text()).toMatch(/not started in this browser/);
    } finally {
      await started.serving.shutdown();
      await fresh.serving.shutdown();
    }
  });

  it('on shutdown it stops being ready and finishes the call in flight before closing', async () => {
    const serve = await startTestServe(join(scratch.dir, 'drain'), idp);
    const alice = await signInAs(serve.url, 'alice', serve.bootstrap);
    const admin = await BridgeClient.connect(serve.port, { token: alice.token, cookie: alice.cookie });
    const callId = `call-${randomUUID()}`;
    const call = admin.call('tools.call', {
      name: 'write_file',
      serverId: 'local',
      args: { path: 'drain.txt', content: 'x' },
      callId,
    });
    await waitFor(() => admin.events.some((e) => e.event === 'approval.requested'));
    let closed = false;
    const shutdown = serve.serving.shutdown().then(() => (closed = true));
    const ready = await fetch(`${serve.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([503, 'shutting down\n']);
    expect(closed).toBe(false);
    const approval = admin.events.find((e) => e.event === 'approval.requested')?.payload as ApprovalView;
    expect(await admin.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' })).toMatchObject(
      { ok: true },
    );
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: true, result: { callId, replayed: false } });
    await shutdown;
    expect(closed).toBe(true);
    admin.close();
  });
});
