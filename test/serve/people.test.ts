/**
 * The People page's channels on a running `miniharness serve` (electron/serve/peopleChannels.ts),
 * with people signed in through the team's test provider: an admin lists who signed in (with a
 * role or none), gives and changes roles (applied to open pages at once), removes a person (their
 * session ends), makes and revokes API tokens; a viewer or approver gets `role_forbidden`; the
 * configuration's people are a floor; the last admin stays; every change is in the audit with who
 * made it. Then two instances on one PostgreSQL: a role, a token and a revocation made on A hold on B.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonView } from '../../shared/contract.js';
import { peopleHandlers } from '../../electron/core/handlers/people.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';
import { SignInRefused, signInAs } from './signInDriver.js';

const PEOPLE = {
  alice: { email: 'alice@team.example', name: 'Alice Admin' },
  bob: { email: 'bob@team.example', name: 'Bob Approver' },
  carol: { email: 'carol@team.example', name: 'Carol Viewer' },
  dave: { email: 'dave@team.example', name: 'Dave New' },
};
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const OPS = 'people-test-ops-token-0123456789';

type List = { people: PersonView[]; tokens: Array<{ id: string | null; name: string; revokedAt: number | null }> };

describe('the People page’s channels on one serve', () => {
  const scratch = scratchDir('mh-people-serve-');
  let idp: TeamIdp;
  let serve: TestServe;
  const open: BridgeClient[] = [];
  const as = async (user: keyof typeof PEOPLE, bootstrap?: string): Promise<BridgeClient> => {
    const who = await signInAs(serve.url, user, bootstrap);
    const client = await BridgeClient.connect(serve.port, { token: who.token, cookie: who.cookie });
    open.push(client);
    return client;
  };
  const audit = (): Array<Record<string, unknown>> =>
    readFileSync(join(serve.dataDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const list = async (client: BridgeClient): Promise<List> => {
    const reply = await client.call('people.list', {});
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result as List;
  };
  const key = (l: List, label: string): { issuer: string; subject: string } => {
    const p = l.people.find((x) => x.label === label);
    if (!p) throw new Error(`${label} not listed`);
    return { issuer: p.issuer, subject: p.subject };
  };

  beforeAll(async () => {
    idp = await startTeamIdp(PEOPLE);
    serve = await startTestServe(scratch.dir, idp, {
      people: { 'bob@team.example': 'approver', 'carol@team.example': 'viewer' },
      apiTokens: [{ name: 'ops', role: 'admin', sha256: sha256(OPS) }],
    });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await serve.serving.shutdown();
    await idp.close();
    scratch.cleanup();
  });

  it('a viewer and an approver are refused every change of people with role_forbidden; people.me says who asks', async () => {
    const admin = await as('alice', serve.bootstrap);
    const [approver, viewer] = [await as('bob'), await as('carol')];
    expect(await admin.call('people.me', {})).toMatchObject({
      ok: true,
      result: { team: true, name: 'Alice Admin', role: 'admin' },
    });
    expect(await viewer.call('people.me', {})).toMatchObject({ ok: true, result: { role: 'viewer' } });
    const alice = key(await list(admin), 'Alice Admin');
    for (const client of [approver, viewer])
      for (const [channel, payload] of [
        ['people.list', {}],
        ['people.setRole', { ...alice, role: 'viewer' }],
        ['people.remove', alice],
        ['people.createToken', { name: 'sneaky', role: 'admin' }],
        ['people.revokeToken', { id: 'x' }],
      ] as const)
        expect([channel, await client.call(channel, payload)]).toMatchObject([
          channel,
          { ok: false, error: { code: 'role_forbidden' } },
        ]);
  });

  it('someone without a role is listed after their refused sign-in; a role given opens the door; a change ends their sessions', async () => {
    await expect(signInAs(serve.url, 'dave')).rejects.toBeInstanceOf(SignInRefused);
    const admin = await as('alice');
    const before = await list(admin);
    expect(before.people.find((p) => p.label === 'Dave New')).toMatchObject({ role: null, configuredRole: null });
    expect(before.people.find((p) => p.label === 'Alice Admin')).toMatchObject({ role: 'admin', you: true });
    const dave = key(before, 'Dave New');
    expect(await admin.call('people.setRole', { ...dave, role: 'viewer' })).toMatchObject({
      ok: true,
      result: { label: 'Dave New', role: 'viewer' },
    });
    const viewerPage = await as('dave');
    expect(await viewerPage.call('people.list', {})).toMatchObject({ ok: false, error: { code: 'role_forbidden' } });
    // Raised to admin while signed in: the session made as a viewer ends (its bridge closes); signed in again, an admin.
    const ended = new Promise<number>((resolve) => viewerPage.ws.once('close', (code) => resolve(code)));
    await admin.call('people.setRole', { ...dave, role: 'admin' });
    expect(await ended).toBe(1008);
    const davePage = await as('dave');
    expect(await davePage.call('people.list', {})).toMatchObject({ ok: true });
    // Removed: the open page's session ends, and its bridge is closed.
    const closed = new Promise<number>((resolve) => davePage.ws.once('close', (code) => resolve(code)));
    expect(await admin.call('people.remove', dave)).toMatchObject({ ok: true, result: { removed: true } });
    expect(await closed).toBe(1008);
    await expect(BridgeClient.connect(serve.port, { token: 'x', cookie: 'miniharness=x' })).rejects.toThrow(/401/);
    const entries = audit().map((e) => [e.action, e.person, e.target, e.role]);
    expect(entries).toEqual(
      expect.arrayContaining([
        ['role changed', 'Alice Admin', 'Dave New', 'viewer'],
        ['role changed', 'Alice Admin', 'Dave New', 'admin'],
        ['person removed', 'Alice Admin', 'Dave New', undefined],
      ]),
    );
  });

  it('the configuration’s people are a floor; the last admin stays', async () => {
    const admin = await as('alice');
    const l = await list(admin);
    const bob = key(l, 'Bob Approver');
    expect(l.people.find((p) => p.label === 'Bob Approver')).toMatchObject({ configuredRole: 'approver' });
    expect(await admin.call('people.setRole', { ...bob, role: 'viewer' })).toMatchObject({
      ok: false,
      error: { code: 'person_configured' },
    });
    expect(await admin.call('people.remove', bob)).toMatchObject({ ok: false, error: { code: 'person_configured' } });
    // Raised above the floor is allowed.
    expect(await admin.call('people.setRole', { ...bob, role: 'admin' })).toMatchObject({
      ok: true,
      result: { role: 'admin' },
    });
    await admin.call('people.setRole', { ...bob, role: 'approver' });
    expect(await admin.call('people.setRole', { ...key(l, 'Alice Admin'), role: 'viewer' })).toMatchObject({
      ok: false,
      error: { code: 'last_admin' },
    });
  });

  it('an admin makes an API token (shown once), the command line uses it, and a revocation stops it at once', async () => {
    const admin = await as('alice');
    const made = await admin.call('people.createToken', { name: 'nightly', role: 'viewer' });
    expect(made).toMatchObject({
      ok: true,
      result: { token: { name: 'nightly', role: 'viewer', createdBy: 'Alice Admin' } },
    });
    const { secret, token } = (made as { result: { secret: string; token: { id: string } } }).result;
    expect(await admin.call('people.createToken', { name: 'NIGHTLY', role: 'admin' })).toMatchObject({
      ok: false,
      error: { code: 'token_name_taken' },
    });
    expect(await admin.call('people.createToken', { name: 'ops', role: 'admin' })).toMatchObject({
      ok: false,
      error: { code: 'token_name_taken' },
    });
    const cli = await BridgeClient.connect(serve.port, { token: secret });
    open.push(cli);
    expect(await cli.call('history.page', {})).toMatchObject({ ok: true });
    expect(await cli.call('servers.save', {})).toMatchObject({ ok: false, error: { code: 'role_forbidden' } });
    const listed = await list(admin);
    expect(listed.tokens.map((t) => [t.name, t.id === null])).toEqual([
      ['ops', true],
      ['nightly', false],
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(await admin.call('people.revokeToken', { id: token.id })).toMatchObject({ ok: true });
    expect(await cli.call('history.page', {})).toMatchObject({ ok: false, error: { code: 'role_forbidden' } });
    await expect(BridgeClient.connect(serve.port, { token: secret })).rejects.toThrow(/401/);
    // The configured token still works.
    const ops = await BridgeClient.connect(serve.port, { token: OPS });
    open.push(ops);
    expect(await ops.call('people.list', {})).toMatchObject({ ok: true });
    expect(audit().map((e) => [e.action, e.person, e.target])).toEqual(
      expect.arrayContaining([
        ['api token created', 'Alice Admin', 'nightly'],
        ['api token revoked', 'Alice Admin', 'nightly'],
      ]),
    );
    expect(readFileSync(join(serve.dataDir, 'audit.jsonl'), 'utf8')).not.toContain(secret);
  });
});

describe('the People channels in the desktop app (one person)', () => {
  it('people.me says single-person; the others are unavailable', async () => {
    const handlers = peopleHandlers();
    expect(await handlers['people.me']({})).toEqual({ team: false });
    expect(() => handlers['people.list']({})).toThrow(/only by `miniharness serve`/);
  });
});

describePostgres('People on two serve instances on one PostgreSQL', () => {
  const scratch = scratchDir('mh-people-pg-');
  let database: TestDatabase;
  let idp: TeamIdp;
  let a: TestServe;
  let b: TestServe;
  beforeAll(async () => {
    database = await createTestDatabase('people_serve');
    idp = await startTeamIdp(PEOPLE);
    a = await startTestServe(join(scratch.dir, 'a'), idp, { databaseUrl: database.url });
    b = await startTestServe(join(scratch.dir, 'b'), idp, { databaseUrl: database.url });
  }, 120_000);
  afterAll(async () => {
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await idp?.close();
    await database?.drop();
    scratch.cleanup();
  });

  it('one bootstrap per database; a role given on A lets the person in on B; a token made on A works on B until revoked on A', async () => {
    // B started last: its printed link is the one that works; A's was replaced.
    await expect(signInAs(a.url, 'alice', a.bootstrap)).rejects.toBeInstanceOf(SignInRefused);
    const alice = await signInAs(a.url, 'alice', b.bootstrap);
    const adminA = await BridgeClient.connect(a.port, { token: alice.token, cookie: alice.cookie });
    try {
      await expect(signInAs(b.url, 'carol')).rejects.toBeInstanceOf(SignInRefused);
      // Refused on B, listed on A once A has read B's notice.
      let carol: PersonView | undefined;
      await waitFor(async () => {
        const l = (await adminA.call('people.list', {})) as { ok: true; result: List };
        carol = l.result.people.find((p) => p.label === 'Carol Viewer');
        return carol !== undefined;
      }, 10_000);
      await adminA.call('people.setRole', { issuer: carol?.issuer, subject: carol?.subject, role: 'viewer' });
      // B hears of it through the database's notice.
      await waitFor(async () => {
        try {
          await signInAs(b.url, 'carol');
          return true;
        } catch {
          return false;
        }
      }, 10_000);

      const made = (await adminA.call('people.createToken', { name: 'shared', role: 'viewer' })) as {
        ok: true;
        result: { secret: string; token: { id: string } };
      };
      const { secret, token } = made.result;
      let onB: BridgeClient | undefined;
      await waitFor(async () => {
        onB = await BridgeClient.connect(b.port, { token: secret }).catch(() => undefined);
        return onB !== undefined;
      }, 10_000);
      expect(await onB?.call('history.page', {})).toMatchObject({ ok: true });
      await adminA.call('people.revokeToken', { id: token.id });
      await waitFor(async () => {
        const reply = await onB?.call('history.page', {});
        return reply?.ok === false && reply.error.code === 'role_forbidden';
      }, 10_000);
      await expect(BridgeClient.connect(b.port, { token: secret })).rejects.toThrow(/401/);
      onB?.close();
    } finally {
      adminA.close();
    }
  });
});
