/**
 * Revoking a signed-in agent whose grant the store cannot revoke (PostgreSQL down or refusing):
 * the failure is said — `revokeAgent` answers false and a warning names the agent — instead of
 * being swallowed while the grant's refresh tokens stay valid. The agent itself is still revoked.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { OAuthStore } from '../../electron/gateway/oauth/oauthStore.js';
import { GatewaySignIn } from '../../electron/gateway/oauth/signIn.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

/** A store whose revocation fails as a pool's query does when the database is gone. */
class FailingRevokeStore extends OAuthStore {
  override revokeGrant(): Promise<void> {
    return Promise.reject(Object.assign(new Error('connection terminated'), { code: '57P01' }));
  }
}

describe('revoking an agent’s sign-in when the store fails', () => {
  const scratch = scratchDir('mh-grant-revoke-');
  afterEach(() => scratch.cleanup());

  function setUp(store: OAuthStore): { signIn: GatewaySignIn; agents: AgentStore; warnings: string[] } {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    const warnings: string[] = [];
    const signIn = new GatewaySignIn({
      agents,
      store,
      servers: () => [],
      onAgentCreated: () => undefined,
      warn: (message) => warnings.push(message),
    });
    return { signIn, agents, warnings };
  }
  const visibility = { allServers: true, serverIds: [], localTools: false };

  it('says so (false and a warning naming the agent); the agent is still revoked', async () => {
    const { signIn, agents, warnings } = setUp(new FailingRevokeStore(undefined));
    const agent = agents.createSignedIn('Claude Code', visibility, {
      clientId: 'client-1',
      redirectTarget: 'http://127.0.0.1:9/cb',
      grantId: 'grant-1',
    });
    agents.revoke(agent.id);
    expect(await signIn.revokeAgent(agent.id)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('“Claude Code” could not be revoked');
    expect(warnings[0]).toContain('57P01');
    expect(agents.get(agent.id).revokedAt).toEqual(expect.any(Number));
  });

  it('a revocation that works says nothing and ends the grant', async () => {
    const store = new OAuthStore(undefined);
    await store.adapterFor('Grant').upsert('grant-2', { jti: 'grant-2', accountId: 'p' } as never, 600);
    const { signIn, agents, warnings } = setUp(store);
    const agent = agents.createSignedIn('Cursor', visibility, {
      clientId: 'client-2',
      redirectTarget: 'http://127.0.0.1:9/cb',
      grantId: 'grant-2',
    });
    expect(await signIn.revokeAgent(agent.id)).toBe(true);
    expect(warnings).toEqual([]);
    expect(await store.adapterFor('Grant').find('grant-2')).toBeUndefined();
  });
});
