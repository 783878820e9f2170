/** The registered agents in the real configuration file: hashes only, revocation, damaged entries. */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { hashToken } from '../../electron/security/tokenHash.js';
import { AgentNameTakenError, AgentNotFoundError } from '../../electron/gateway/errors.js';
import type { ConfigStore } from '../../electron/storage/configFile.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type { AgentVisibility } from '../../shared/agents.js';
import { scratchDir } from '../helpers/fixtures.js';

const ALL: AgentVisibility = { allServers: true, serverIds: [], localTools: false };

describe('AgentStore', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let config: ConfigStore;
  let warnings: string[];

  const open = (): AgentStore =>
    new AgentStore(
      config,
      (m) => warnings.push(m),
      () => 1_700_000_000_000,
    );
  const fileText = (): string => readFileSync(config.path, 'utf8');
  const storedAgents = (): unknown[] => (JSON.parse(fileText()) as { gateway: { agents: unknown[] } }).gateway.agents;

  beforeEach(() => {
    scratch = scratchDir('mh-agents-');
    config = openConfConfigStore(join(scratch.dir, 'data'));
    warnings = [];
  });
  afterEach(() => scratch.cleanup());

  it('a signed-in client calling itself gui (any case) is not named as the person', () => {
    const store = open();
    const signIn = { clientId: 'c1', redirectTarget: 'http://127.0.0.1:1/cb', grantId: 'g1' };
    expect(store.createSignedIn('gui', ALL, signIn).name).toBe('gui 2');
    expect(store.createSignedIn(' GUI ', ALL, { ...signIn, grantId: 'g2' }).name).toBe('GUI 3');
  });

  it('shows the token once and stores only its SHA-256', () => {
    const { agent, token } = open().create('Claude Desktop', ALL);
    expect(token).toMatch(/^mhg_[A-Za-z0-9_-]{43}$/);
    expect(agent.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).toBe(agent.tokenHash);
    expect(fileText()).not.toContain(token);
    expect(fileText()).not.toContain(token.slice(4));
    expect(storedAgents()).toEqual([
      {
        id: agent.id,
        name: 'Claude Desktop',
        tokenHash: agent.tokenHash,
        createdAt: 1_700_000_000_000,
        visibility: ALL,
      },
    ]);
  });

  it('authenticates the token it made (also after a restart), and nothing else', () => {
    const store = open();
    const { agent, token } = store.create('Cursor', ALL);
    const other = store.create('VS Code', ALL);
    expect(store.authenticate(token)?.id).toBe(agent.id);
    expect(store.authenticate(other.token)?.id).toBe(other.agent.id);
    expect(open().authenticate(token)?.id).toBe(agent.id);
    expect(store.authenticate(undefined)).toBeUndefined();
    expect(store.authenticate('')).toBeUndefined();
    expect(store.authenticate(`${token}x`)).toBeUndefined();
    expect(store.authenticate(token.slice(4))).toBeUndefined();
    // The stored hash is not a token either.
    expect(store.authenticate(agent.tokenHash)).toBeUndefined();
    expect(store.authenticate(`mhg_${agent.tokenHash}`)).toBeUndefined();
  });

  it('a revoked token has no access, kept across a restart; revoking twice keeps the first time', () => {
    let now = 1000;
    const store = new AgentStore(
      config,
      (m) => warnings.push(m),
      () => now,
    );
    const { agent, token } = store.create('Claude Code', ALL);
    now = 2000;
    expect(store.revoke(agent.id).revokedAt).toBe(2000);
    expect(store.authenticate(token)).toBeUndefined();
    now = 3000;
    expect(store.revoke(agent.id).revokedAt).toBe(2000);
    const reopened = open();
    expect(reopened.authenticate(token)).toBeUndefined();
    expect(reopened.get(agent.id).revokedAt).toBe(2000);
  });

  it('refuses a name already used, whatever its case, with the field to mark', () => {
    const store = open();
    store.create('Claude Code', ALL);
    let caught: unknown;
    try {
      store.create('claude code', ALL);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AgentNameTakenError);
    expect(caught).toMatchObject({
      code: 'agent_name_taken',
      details: { fieldErrors: { name: [expect.any(String)] } },
    });
    expect(store.list()).toHaveLength(1);
    expect(storedAgents()).toHaveLength(1);
  });

  it('refuses a name the contract does not allow, and stores nothing', () => {
    const store = open();
    expect(() => store.create('-starts-with-dash', ALL)).toThrow();
    expect(() => store.create('x'.repeat(65), ALL)).toThrow();
    expect(store.list()).toEqual([]);
    expect(config.get('gateway.agents')).toBeUndefined();
  });

  it('changes what an agent sees, removes it, and names an unknown id', () => {
    const store = open();
    const { agent, token } = store.create('Agent', ALL);
    const narrowed = store.setVisibility(agent.id, { allServers: false, serverIds: ['fx'], localTools: true });
    expect(narrowed.visibility).toEqual({ allServers: false, serverIds: ['fx'], localTools: true });
    expect(open().get(agent.id).visibility).toEqual(narrowed.visibility);
    expect(store.remove(agent.id)).toBe(true);
    expect(store.remove(agent.id)).toBe(false);
    expect(store.authenticate(token)).toBeUndefined();
    expect(() => store.get(agent.id)).toThrow(AgentNotFoundError);
    expect(() => store.revoke('no-such-agent')).toThrow(AgentNotFoundError);
  });

  it('keeps unreadable entries in the file as they were, reports them, and gives them no access', () => {
    const first = open();
    const { agent, token } = first.create('Good', ALL);
    const hashOnly = {
      id: 'hand-edited-1',
      name: 'Hand edited',
      tokenHash: hashToken('mhg_forged'),
      createdAt: 1,
      visibility: { allServers: 'yes' },
    };
    const duplicateId = { ...(storedAgents()[0] as object), name: 'Same id' };
    const garbage = 'not an agent';
    const raw = JSON.parse(fileText()) as { gateway: { agents: unknown[] } };
    raw.gateway.agents.push(hashOnly, duplicateId, garbage);
    writeFileSync(config.path, JSON.stringify(raw));

    config = openConfConfigStore(join(scratch.dir, 'data'));
    const store = open();
    expect(warnings).toEqual([
      expect.stringMatching(/^3 agent entries in the settings file could not be read; they were kept/),
    ]);
    expect(store.list().map((a) => a.id)).toEqual([agent.id]);
    expect(store.authenticate(token)?.id).toBe(agent.id);
    expect(store.authenticate('mhg_forged')).toBeUndefined();

    // A change to the readable agents writes the unreadable ones back unchanged.
    const added = store.create('Another', ALL);
    expect(storedAgents()).toEqual([
      expect.objectContaining({ id: agent.id }),
      expect.objectContaining({ id: added.agent.id }),
      hashOnly,
      duplicateId,
      garbage,
    ]);
    store.revoke(agent.id);
    expect(storedAgents().slice(-3)).toEqual([hashOnly, duplicateId, garbage]);
  });

  it('a value that is not a list is reported, kept, and lets no agent in until fixed', () => {
    config.set('gateway.agents', { oops: true });
    const store = open();
    expect(warnings).toEqual([expect.stringMatching(/not a list; no agent can connect/)]);
    expect(store.list()).toEqual([]);
    const { agent } = store.create('Fresh', ALL);
    expect(storedAgents()).toEqual([expect.objectContaining({ id: agent.id }), { oops: true }]);
  });
});
