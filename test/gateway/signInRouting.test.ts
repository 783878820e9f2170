/**
 * What the gateway asks the sign-in of every request (issue 33: asked without allocating, and a
 * static token answered without the SDK's AuthInfo): which paths are the sign-in's, and who a
 * bearer token belongs to — the same answers as before, held over the edge cases.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_PATH } from '../../shared/agents.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { OAuthStore } from '../../electron/gateway/oauth/oauthStore.js';
import { CONSENT_PATH, OAUTH_ROUTES } from '../../electron/gateway/oauth/provider.js';
import { GatewaySignIn, REFUSED_TOKEN_SENTENCE } from '../../electron/gateway/oauth/signIn.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

describe('the sign-in, asked of every request', () => {
  const scratch = scratchDir('mh-sign-in-routing-');
  afterEach(() => scratch.cleanup());

  function setUp(): { signIn: GatewaySignIn; agents: AgentStore } {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    const signIn = new GatewaySignIn({
      agents,
      store: new OAuthStore(undefined),
      servers: () => [],
      onAgentCreated: () => undefined,
    });
    return { signIn, agents };
  }

  it('takes its metadata, consent and OAuth routes (and what is under a route), and nothing else', () => {
    const { signIn } = setUp();
    const mine = [
      '/.well-known/oauth-protected-resource',
      `/.well-known/oauth-protected-resource${GATEWAY_PATH}`,
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      CONSENT_PATH,
      `${CONSENT_PATH}abc`,
      ...Object.values(OAUTH_ROUTES),
      ...Object.values(OAUTH_ROUTES).map((route) => `${route}/x`),
      '/authorize/abc/def',
    ];
    for (const path of mine) expect(signIn.handles(path), path).toBe(true);
    const notMine = [
      GATEWAY_PATH,
      `${GATEWAY_PATH}/`,
      '/',
      '',
      '/tokens',
      '/token2',
      '/authorizeX',
      '/registerme',
      '/consent',
      '/.well-known/oauth-protected-resource/other',
      '/.well-known/other',
      '/TOKEN',
      '/x/token',
    ];
    for (const path of notMine) expect(signIn.handles(path), path).toBe(false);
  });

  it('knows an agent by its static token, any spelling of Bearer; refuses a revoked one, a wrong one or none', async () => {
    const { signIn, agents } = setUp();
    const visibility = { allServers: true, serverIds: [], localTools: false };
    const { agent, token } = agents.create('Claude Code', visibility);
    const other = agents.create('Cursor', visibility);
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token} `]) {
      const answer = await signIn.authenticate(header);
      expect('agent' in answer && answer.agent.id, header).toBe(agent.id);
    }
    const second = await signIn.authenticate(`Bearer ${other.token}`);
    expect('agent' in second && second.agent.id).toBe(other.agent.id);

    for (const header of [`Bearer ${token}x`, `Bearer ${agent.tokenHash}`, `Basic ${token}`, token, 'Bearer ']) {
      const answer = await signIn.authenticate(header);
      expect(answer, header).toMatchObject({ status: 401, sentence: REFUSED_TOKEN_SENTENCE });
    }
    expect(await signIn.authenticate(undefined)).toMatchObject({ status: 401 });

    agents.revoke(agent.id);
    expect(await signIn.authenticate(`Bearer ${token}`)).toMatchObject({
      status: 401,
      sentence: REFUSED_TOKEN_SENTENCE,
    });
    const still = await signIn.authenticate(`Bearer ${other.token}`);
    expect('agent' in still && still.agent.id).toBe(other.agent.id);
  });
});
