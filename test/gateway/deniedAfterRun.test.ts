/**
 * A denial never tells an agent "nothing ran" when an earlier call with its key did (issue 19):
 * an agent's keyed call runs, the person then sets the tool to DENY, and the agent sends the same
 * key again — through the real gateway, in both eras. The DENY refuses it (no replay), nothing
 * runs a second time, and the sentence says the earlier call ran and its result is recorded.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, connectModernAgent, startGatewayApp } from './support.js';

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  _meta?: Record<string, unknown>;
}

describe('a DENY after a keyed call ran', () => {
  const scratch = scratchDir('mh-gateway-denied-after-run-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;
  let token: string;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter });
    ({ token } = await app.createAgent('denied-after-run'));
  });
  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      scratch.cleanup();
    }
  });

  it.each(['legacy', 'modern'] as const)(
    '%s agent: refused, nothing runs again, and the sentence says the earlier call ran (a fresh key’s denial still says nothing ran)',
    async (era) => {
      const agent = era === 'modern' ? await connectModernAgent(app.url, token) : await connectAgent(app.url, token);
      try {
        const call = {
          name: 'fx__append',
          arguments: { line: `${era}-kept` },
          _meta: { [META_CALL_ID]: `${era}-key` },
        };
        await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
        const first = (await agent.callTool(call)) as ToolResult;
        expect(first.isError).toBeFalsy();

        await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'DENY' });
        const again = (await agent.callTool(call)) as ToolResult;
        expect(again.isError).toBe(true);
        expect(again._meta?.[META_REPLAYED]).toBeUndefined();
        const sentence = again.content.map((block) => block.text ?? '').join(' ');
        expect(sentence).toMatch(
          /so this call did not run again \(an earlier call with the same callId ran; its result is recorded in MiniHarness\)/,
        );
        expect(sentence).not.toMatch(/nothing ran/);
        expect(readLines(counter).filter((line) => line === `${era}-kept`)).toHaveLength(1);

        // A key nothing is recorded for: its denial is the plain one.
        const fresh = (await agent.callTool({ ...call, _meta: { [META_CALL_ID]: `${era}-fresh` } })) as ToolResult;
        expect(fresh.isError).toBe(true);
        const plain = fresh.content.map((block) => block.text ?? '').join(' ');
        expect(plain).toMatch(/, so nothing ran\./);
        expect(plain).not.toMatch(/did not run again/);
      } finally {
        await agent.close();
      }
    },
  );
});
