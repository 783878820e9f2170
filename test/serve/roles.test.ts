/**
 * The role → channel table (electron/serve/roles.ts), exhaustively against the contract's channel
 * list, and enforced by a running `miniharness serve` on every channel: a role's request for a
 * channel it may not use is refused before anything runs, whatever its payload.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES, EVENT_NAMES } from '../../shared/channelNames.js';
import type { Role } from '../../electron/serve/roles.js';
import { CHANNEL_ROLES, EVENT_ROLES, ROLES, roleAllows, roleGetsEvent } from '../../electron/serve/roles.js';
import { AuditLog } from '../../electron/serve/audit.js';
import { People } from '../../electron/serve/people.js';
import { FilePeopleStore } from '../../electron/serve/peopleStore.js';
import { serveAccess } from '../../electron/serve/serveAccess.js';
import type { Session } from '../../electron/serve/sessions.js';
import { MemorySessions, RateLimit } from '../../electron/serve/sessions.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const tokenOf = (role: Role): string => `api-token-for-the-${role}-0123456789`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What a viewer may do: read History, Traces and what the page needs to show them. Changing it is deliberate. */
const VIEWER = [
  'app.info',
  'servers.list',
  'servers.get',
  'tools.list',
  'approvals.list',
  'permissions.get',
  'settings.get',
  'agents.list',
  'traces.list',
  'traces.get',
  'traces.export',
  'history.sessions',
  'history.page',
  'history.get',
  'serverRequests.list',
  'resources.list',
  'prompts.list',
  'runs.list',
  'runs.get',
  'sandbox.hostRules',
  'observability.traceLink',
  // The page asks who it is (serve mode, the role) to show "People" to an admin only.
  'people.me',
];
/** What an approver adds: decisions and resolving unknown calls. */
const APPROVER_ADDS = [
  'servers.log',
  'approvals.answer',
  'history.replay',
  'history.askTask',
  'history.resolve',
  'serverRequests.answer',
];

describe('roles: the table', () => {
  it('names a role for every channel of the contract, and no other name', () => {
    expect(Object.keys(CHANNEL_ROLES).sort()).toEqual([...CHANNEL_NAMES].sort());
  });

  it('names a role for every event; a viewer gets all but servers’ logs and sign-in pages', () => {
    expect(Object.keys(EVENT_ROLES).sort()).toEqual([...EVENT_NAMES].sort());
    expect(EVENT_NAMES.filter((event) => !roleGetsEvent('viewer', event))).toEqual(['server.log', 'oauth.authorize']);
    expect(EVENT_NAMES.filter((event) => !roleGetsEvent('approver', event))).toEqual(['oauth.authorize']);
  });

  it('a viewer reads, an approver also decides, an admin may do everything', () => {
    const allowed = (role: Role) => CHANNEL_NAMES.filter((channel) => roleAllows(role, channel));
    expect(allowed('viewer').sort()).toEqual([...VIEWER].sort());
    expect(allowed('approver').sort()).toEqual([...VIEWER, ...APPROVER_ADDS].sort());
    expect(allowed('admin')).toEqual([...CHANNEL_NAMES]);
    expect(ROLES.some((role) => roleAllows(role, 'no.such.channel'))).toBe(false);
  });
});

describe('roles: enforced on every request by a running instance', () => {
  const scratch = scratchDir();
  let serve: TestServe;
  const clients = new Map<Role, BridgeClient>();

  beforeAll(async () => {
    serve = await startTestServe(scratch.dir, undefined, {
      apiTokens: ROLES.map((role) => ({ name: role, role, sha256: sha256(tokenOf(role)) })),
    });
    for (const role of ROLES) clients.set(role, await BridgeClient.connect(serve.port, { token: tokenOf(role) }));
  });
  afterAll(async () => {
    for (const client of clients.values()) client.close();
    await serve.serving.shutdown();
    scratch.cleanup();
  });

  it.each(ROLES.filter((role) => role !== 'admin'))(
    '%s: every channel it may not use is refused as role_forbidden',
    async (role) => {
      const refused = CHANNEL_NAMES.filter((channel) => !roleAllows(role, channel));
      expect(refused.length).toBeGreaterThan(40);
      const client = clients.get(role) as BridgeClient;
      for (const channel of refused) {
        const reply = await client.call(channel, {});
        expect([channel, reply.ok ? 'ran' : reply.error.code]).toEqual([channel, 'role_forbidden']);
      }
    },
  );

  it.each(ROLES)('%s: every read a viewer may do is answered (not refused by role)', async (role) => {
    const client = clients.get(role) as BridgeClient;
    for (const channel of VIEWER) {
      const reply = await client.call(channel, {});
      expect([channel, reply.ok ? 'answered' : reply.error.code]).not.toEqual([channel, 'role_forbidden']);
    }
  });

  it('an unknown token gets no bridge at all', async () => {
    await expect(BridgeClient.connect(serve.port, { token: 'not-a-configured-token-0123456789' })).rejects.toThrow(
      /401/,
    );
  });
});

describe('roles: which pages get which events', () => {
  const scratch = scratchDir();
  let serve: TestServe;
  afterAll(async () => {
    await serve.serving.shutdown();
    scratch.cleanup();
  });

  it('a viewer’s page gets no server log; a server’s sign-in page opens only for the person who asked', async () => {
    serve = await startTestServe(scratch.dir, undefined, {
      apiTokens: ROLES.map((role) => ({ name: role, role, sha256: sha256(tokenOf(role)) })),
    });
    const admin = await BridgeClient.connect(serve.port, { token: tokenOf('admin') });
    const otherAdmin = await BridgeClient.connect(serve.port, { token: tokenOf('admin') });
    const viewer = await BridgeClient.connect(serve.port, { token: tokenOf('viewer') });
    try {
      // A stdio "server" that only writes to stderr: its lines are server.log events.
      const saved = await admin.call('servers.save', {
        mode: 'create',
        config: {
          id: 'noisy',
          name: 'Noisy',
          transport: 'stdio',
          command: process.execPath,
          args: ['-e', 'console.error("noisy line"); setTimeout(() => {}, 60000)'],
          sandbox: { enabled: false },
        },
      });
      expect(saved.ok, JSON.stringify(saved)).toBe(true);
      await waitFor(() => admin.events.some((e) => e.event === 'server.log'), 15_000);
      expect(viewer.events.filter((e) => e.event === 'server.log')).toEqual([]);
      expect(viewer.events.some((e) => e.event === 'servers.changed')).toBe(true);
      expect(otherAdmin.events.some((e) => e.event === 'server.log')).toBe(true);
    } finally {
      for (const c of [admin, otherAdmin, viewer]) c.close();
    }
    // The sign-in page (oauth.authorize, which a page opens in a tab): only the asker's pages.
    const sessions = new MemorySessions(false);
    const access = serveAccess({
      publicUrl: undefined,
      trustedProxies: [],
      sessions,
      // Roles now come from People on every check (a change applies at once): these three are configured.
      people: new People(new FilePeopleStore(serve.dataDir), { Ann: 'admin', Bob: 'admin', Cy: 'viewer' }),
      oidc: undefined,
      audit: new AuditLog(serve.dataDir),
      signInLimit: new RateLimit(1),
      health: () => ({ ready: true }),
    });
    const as = async (name: string, role: Role): Promise<Session> =>
      (await sessions.create({ issuer: 'idp', subject: name, name }, role)).session;
    const [ann, bob, cy] = [await as('Ann', 'admin'), await as('Bob', 'admin'), await as('Cy', 'viewer')];
    expect(access.eventAllowed?.(ann, 'oauth.authorize', 'Ann')).toBe(true);
    expect(access.eventAllowed?.(bob, 'oauth.authorize', 'Ann')).toBe(false);
    expect(access.eventAllowed?.(bob, 'oauth.authorize', undefined)).toBe(false);
    expect(access.eventAllowed?.(cy, 'approval.requested', 'Ann')).toBe(true);
    // A session ended (here, or told from another instance) gets no more events, before its bridge is closed.
    await sessions.end(cy);
    expect(access.eventAllowed?.(cy, 'approval.requested', 'Ann')).toBe(false);
  });
});
