/**
 * No agent can read as the person (issue 19, attack finding 7): an agent calls as its name, and
 * `gui` is the person's caller id. The name is refused when an agent is created (any case, any
 * surrounding spaces), and an agent stored under it before this rule cannot connect — its token
 * is refused at the gateway over real HTTP — so no call, notice, trace or count can carry the
 * person's caller id for an agent.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GUI_USER } from '../../electron/core/callService.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { RESERVED_AGENT_NAMES } from '../../shared/agents.js';
import { scratchDir } from '../helpers/fixtures.js';
import { connectAgent, startGatewayApp } from './support.js';

describe('the person’s caller id is not an agent name', () => {
  const scratch = scratchDir('mh-reserved-names-');
  afterAll(() => scratch.cleanup());

  it('the reserved names hold the person’s caller id', () => {
    expect(RESERVED_AGENT_NAMES.has(GUI_USER)).toBe(true);
  });

  it('creating an agent named gui, GUI or " gui " is refused with a field error; another name is created', async () => {
    const app = await startGatewayApp(join(scratch.dir, 'create'));
    try {
      for (const name of ['gui', 'GUI', ' gui ']) {
        const reply = await app.core.dispatch('agents.create', {
          name,
          visibility: { allServers: true, serverIds: [], localTools: false },
        });
        expect(reply.ok).toBe(false);
        if (reply.ok) continue;
        expect(reply.error.details?.fieldErrors?.name?.[0]).toMatch(/reserved/);
      }
      await expect(app.createAgent('gui helper')).resolves.toMatchObject({ token: expect.any(String) });
    } finally {
      await app.close();
    }
  });

  it('an agent stored as "gui" before the rule cannot connect: its token is refused (401)', async () => {
    const dir = join(scratch.dir, 'stored');
    const first = await startGatewayApp(dir);
    const { token } = await first.createAgent('Helper');
    // As if saved by a version without the rule: the agent is renamed on disk.
    const config = openConfConfigStore(first.dataDir);
    const stored = config.get('gateway.agents') as Array<Record<string, unknown>>;
    await first.close();
    config.set(
      'gateway.agents',
      stored.map((a) => ({ ...a, name: 'gui' })),
    );

    const app = await startGatewayApp(dir);
    try {
      await expect(connectAgent(app.url, token)).rejects.toThrow(/MiniHarness refused this agent's token/);
      const view = await app.call<{ agents: Array<{ name: string }> }>('agents.list');
      expect(view.agents.map((a) => a.name)).not.toContain('gui');
    } finally {
      await app.close();
    }
  });
});
