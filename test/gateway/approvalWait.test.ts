/**
 * A call waiting for the person's approval keeps its agent informed: an agent that sent a
 * progress token gets `notifications/progress` saying it waits for the person (here every 200 ms,
 * as the core is told; 10 s by default), so an SDK client that resets its timeout on progress
 * keeps waiting past its own timeout and gets the result once the person allows — in both eras.
 * An agent without a token is shown in the dialog as waiting about the MCP SDKs' default 60 s.
 * And the default approval timeout sits below that 60 s. Real app core + gateway, real SDK agents.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, connectModernAgent, startGatewayApp } from './support.js';

interface ToolResult {
  content: unknown[];
  isError?: boolean;
}
interface Progress {
  progress: number;
  message?: string | undefined;
}
type Call = (
  line: string,
  options: { timeout: number; resetTimeoutOnProgress?: boolean; onprogress?: (p: Progress) => void },
) => Promise<ToolResult>;

const PROGRESS_MS = 200;
/** The client's own timeout: shorter than the wait below, so only progress keeps it waiting. */
const CLIENT_TIMEOUT_MS = 1_500;

describe('waiting for a person without timing out the agent', () => {
  const scratch = scratchDir('mh-gateway-approval-wait-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir, { gateway: { waitingProgressMs: PROGRESS_MS } });
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  async function agentOf(
    era: 'legacy' | 'modern',
    name = `Patient ${era}`,
  ): Promise<{ call: Call; close(): Promise<void> }> {
    const agent = await app.createAgent(name);
    if (era === 'modern') {
      const client = await connectModernAgent(app.url, agent.token);
      return {
        call: async (line, options) =>
          (await client.callTool({ name: 'fx__append', arguments: { line } }, options)) as ToolResult,
        close: () => client.close(),
      };
    }
    const client = await connectAgent(app.url, agent.token);
    return {
      call: async (line, options) =>
        (await client.callTool({ name: 'fx__append', arguments: { line } }, undefined, options)) as ToolResult,
      close: () => client.close(),
    };
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: progress while it waits keeps a client that resets on progress waiting past its own timeout`, async () => {
      const agent = await agentOf(era);
      try {
        const line = `patient-${era}`;
        const asked = app.nextEvent<ApprovalView>(
          'approval.requested',
          (a) => (a.args as { line?: string }).line === line,
        );
        const messages: string[] = [];
        // Enough pings to outlast the client's own timeout several times over (counted, not timed).
        const wanted = Math.ceil((3 * CLIENT_TIMEOUT_MS) / PROGRESS_MS);
        let heard!: () => void;
        const enough = new Promise<void>((resolve) => (heard = resolve));
        const pending = agent.call(line, {
          timeout: CLIENT_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (p) => {
            messages.push(p.message ?? '');
            if (messages.length === wanted) heard();
          },
        });
        const approval = await asked;
        // It sent a progress token: how long its client waits is not known, so the dialog claims nothing.
        expect(approval.callerWait).toBeUndefined();
        // The client giving up first (its timeout) fails here, with its own error.
        await Promise.race([enough, pending.then(() => Promise.reject(new Error('answered before the person did')))]);
        await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
        const result = await pending;
        expect(result.isError).toBeFalsy();
        expect(readLines(counter)).toContain(line);
        expect(messages[0]).toMatch(
          /^Waiting for the person to approve fx__append in MiniHarness \(\d+ s left before it is denied\); nothing has run yet\.$/,
        );
      } finally {
        await agent.close();
      }
    });
  }

  it('the progress values only increase, and the waiting pings come before any progress of the server’s own', async () => {
    const agent = await app.createAgent('Progress order');
    const client = await connectModernAgent(app.url, agent.token);
    try {
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => a.toolName === 'slow' && a.userId === 'Progress order',
      );
      const seen: Progress[] = [];
      let heard!: () => void;
      const pinged = new Promise<void>((resolve) => (heard = resolve));
      const pending = client.callTool(
        { name: 'fx__slow', arguments: { ms: 1 } },
        {
          onprogress: (p) => {
            seen.push(p);
            if (seen.length === 3) heard();
          },
        },
      );
      const approval = await asked;
      await pinged;
      await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
      expect((await pending).isError).toBeFalsy();
      // Every value moved forward, and the server's own "started" (its progress 0), when it reached
      // the agent, came after the pings and was nudged past them. (It is sent just before the
      // result; a progress the agent's SDK receives after the result is dropped by the SDK, so its
      // arrival is not asserted.)
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
      const started = seen.findIndex((p) => p.message === 'started');
      const lastPing = seen.findLastIndex((p) => p.message?.startsWith('Waiting for the person') === true);
      expect(lastPing).toBeGreaterThanOrEqual(2);
      if (started !== -1) expect(started).toBeGreaterThan(lastPing);
    } finally {
      await client.close();
    }
  });

  it('a call without a progress token shows in the dialog how long its client probably waits (the SDKs’ 60 s default)', async () => {
    const agent = await agentOf('legacy', 'No progress token');
    try {
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { line?: string }).line === 'no-token',
      );
      const before = Date.now();
      const pending = agent.call('no-token', { timeout: 600_000 });
      const approval = await asked;
      expect(approval.callerWait?.basis).toMatch(/MCP SDKs’ default request timeout \(60 s\)/);
      expect(approval.callerWait!.until).toBeGreaterThanOrEqual(before + 60_000);
      expect(approval.callerWait!.until).toBeLessThanOrEqual(Date.now() + 60_000);
      await app.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' });
      expect((await pending).isError).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('the default approval timeout ends before the SDKs’ 60 s request timeout', async () => {
    const settings = await app.call<{ approvalTimeoutSeconds: number }>('settings.get');
    expect(settings.approvalTimeoutSeconds).toBe(55);
  });
});
