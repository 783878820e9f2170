/**
 * People's sessions in PostgreSQL (electron/serve/postgresSessions.ts): two `miniharness serve`
 * instances on one database behind nginx with plain round robin — no `ip_hash`, no affinity.
 * A person signs in through the balancer with the team's OpenID Connect provider (the sign-in's
 * two requests land on different instances), their requests land on both and are accepted, a
 * sign-out on one is refused on both (and both instances close the person's open bridge), and a
 * restarted instance still knows a person signed in before — unless the restart changed the person's
 * role, which ends the session (it would otherwise keep the old role for up to 12 h). Before: the callback on the other
 * instance was refused ("not started in this browser"), and each instance knew only its own sessions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';
import { freePort } from '../gateway/ports.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { Nginx } from './nginx.js';
import { describeBalanced, startNginx, webBalancerConf } from './nginx.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';
import type { SignedIn } from './signInDriver.js';
import { signInAs } from './signInDriver.js';

const PEOPLE = {
  alice: { email: 'alice@team.example', name: 'Alice Admin' },
  bob: { email: 'bob@team.example', name: 'Bob Approver' },
};

/** The code and reason the host closes `client`'s bridge with. */
const closeOf = (client: BridgeClient): Promise<[number, string]> =>
  new Promise((resolve) => client.ws.once('close', (code, reason) => resolve([code, reason.toString()])));

describeBalanced('people’s sessions in PostgreSQL: two instances behind nginx without affinity', () => {
  const scratch = scratchDir('mh-sessions-lb-');
  let database: TestDatabase;
  let idp: TeamIdp;
  let nginx: Nginx;
  let balancer: URL;
  const serves: TestServe[] = [];
  const open: BridgeClient[] = [];
  let shared: Parameters<typeof startTestServe>[2];

  const startInstance = (
    name: string,
    port: number,
    people: Record<string, 'viewer' | 'approver' | 'admin'> = {},
  ): Promise<TestServe> =>
    startTestServe(join(scratch.dir, name), idp, {
      ...shared,
      ...(Object.keys(people).length > 0 ? { people } : {}),
      listen: { host: '127.0.0.1', port },
    });

  /** A bridge straight to one instance, as the balancer would open it (its Host and Origin). */
  async function bridgeTo(serve: TestServe, who: SignedIn): Promise<BridgeClient> {
    const client = await BridgeClient.connect(serve.port, { ...who, host: balancer.host, origin: balancer.origin });
    open.push(client);
    return client;
  }

  /** Which instance answered each request to `path` (nginx's access log: `$upstream_addr $status $request_uri`). */
  const answered = (path: string): Array<{ upstream: string; status: number }> =>
    readFileSync(join(scratch.dir, 'nginx', 'access.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, , uri]) => uri?.split('?')[0] === path)
      .map(([upstream, status]) => ({ upstream: upstream ?? '', status: Number(status) }));

  const me = (who: SignedIn): Promise<number> =>
    fetch(new URL('/auth/me', balancer), {
      headers: { cookie: who.cookie, authorization: `Bearer ${who.token}` },
    }).then((r) => r.status);

  beforeAll(async () => {
    database = await createTestDatabase('sessionslb');
    idp = await startTeamIdp(PEOPLE);
    balancer = new URL(`http://127.0.0.1:${await freePort()}`);
    idp.allowRedirect(new URL('/auth/callback', balancer).href);
    shared = {
      databaseUrl: database.url,
      publicUrl: balancer.origin,
      trustedProxies: ['127.0.0.1'],
      people: { 'alice@team.example': 'admin', 'bob@team.example': 'approver' },
    };
    serves.push(await startInstance('a', await freePort()), await startInstance('b', await freePort()));
    const dir = join(scratch.dir, 'nginx');
    nginx = startNginx(
      dir,
      webBalancerConf(
        dir,
        Number(balancer.port),
        serves.map((s) => s.port),
      ),
    );
    await waitFor(async () => (await fetch(new URL('/healthz', balancer)).catch(() => undefined))?.ok === true, 15_000);
  }, 90_000);
  afterAll(async () => {
    for (const client of open) client.close();
    nginx?.stop();
    for (const serve of serves) await serve.serving.shutdown();
    await idp?.close();
    await database?.drop();
    scratch.cleanup();
  });

  it('signs in through the balancer (the callback on the other instance), is accepted on both, signed out on both', async () => {
    const [a, b] = serves as [TestServe, TestServe];
    const alice = await signInAs(balancer.origin, 'alice');
    // Round robin: the sign-in's start and its callback were answered by different instances.
    await waitFor(() => answered('/auth/callback').length === 1);
    const [login] = answered('/auth/login');
    const [callback] = answered('/auth/callback');
    expect(login?.upstream).not.toBe(callback?.upstream);
    expect(callback?.status).toBe(303);

    // Requests land on both instances, and both accept the session.
    for (let i = 0; i < 4; i++) expect(await me(alice)).toBe(200);
    await waitFor(() => answered('/auth/me').length === 4);
    expect(new Set(answered('/auth/me').map((r) => r.upstream)).size).toBe(2);
    const onA = await bridgeTo(a, alice);
    const onB = await bridgeTo(b, alice);
    expect((await onA.call('servers.list', {})).ok).toBe(true);
    expect((await onB.call('servers.list', {})).ok).toBe(true);

    // Signed out through the balancer (on one of them): refused on both, and both close the person's bridge.
    const closedA = closeOf(onA);
    const closedB = closeOf(onB);
    const out = await fetch(new URL('/auth/logout', balancer), {
      method: 'POST',
      headers: { cookie: alice.cookie, authorization: `Bearer ${alice.token}`, origin: balancer.origin },
    });
    expect(out.status).toBe(204);
    expect(await closedA).toEqual([1008, 'Your session has ended; sign in again.']);
    expect(await closedB).toEqual([1008, 'Your session has ended; sign in again.']);
    for (const serve of [a, b]) await expect(bridgeTo(serve, alice)).rejects.toThrow(/401/);
    expect([await me(alice), await me(alice)]).toEqual([401, 401]);
  });

  it('a restarted instance still knows a person signed in before', async () => {
    const bob = await signInAs(balancer.origin, 'bob');
    const b = serves[1] as TestServe;
    await b.serving.shutdown();
    const again = await startInstance('b', b.port);
    serves[1] = again;
    const bridge = await bridgeTo(again, bob);
    expect((await bridge.call('servers.list', {})).ok).toBe(true);
    await waitFor(async () => (await fetch(new URL('/healthz', balancer))).ok);
    for (let i = 0; i < 2; i++) expect(await me(bob)).toBe(200);
  });

  it('a session signed in before a role changed in the configuration ends at the restart that changes it, on both', async () => {
    const bob = await signInAs(balancer.origin, 'bob');
    const b = serves[1] as TestServe;
    await b.serving.shutdown();
    // B starts again with Bob a viewer (A still says approver: the session ends all the same, it is one row).
    serves[1] = await startInstance('b', b.port, { 'alice@team.example': 'admin', 'bob@team.example': 'viewer' });
    await expect(bridgeTo(serves[1], bob)).rejects.toThrow(/401/);
    await expect(bridgeTo(serves[0] as TestServe, bob)).rejects.toThrow(/401/);
  });
});
