/**
 * Browser mode with no page open: an agent's call that asks for approval would wait unseen, so
 * the real host process prints one line on stdout naming the agent and the tool, with the link
 * to open. With a page open, the page shows the dialog and the host prints nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AgentsView } from '../../shared/agents.js';
import type { ApprovalView } from '../../shared/contract.js';
import type { WebHostProcess } from '../e2e/support/webHost.js';
import { startWebHost } from '../e2e/support/webHost.js';
import { ALL_SERVERS, connectAgent } from '../gateway/support.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BridgeClient } from './host.js';

async function ok<T>(client: BridgeClient, channel: string, payload: unknown = {}): Promise<T> {
  const reply = await client.call(channel, payload);
  if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
  return reply.result as T;
}

/** Closes a page's socket and waits until the connection is gone. */
function closePage(page: BridgeClient): Promise<void> {
  const closed = new Promise<void>((resolve) => page.ws.once('close', () => resolve()));
  page.close();
  return closed;
}

/** The lines the host printed about waiting approvals, in order. */
function approvalLines(host: WebHostProcess): string[] {
  return host
    .output()
    .split('\n')
    .filter((line) => line.includes('waits for your approval'));
}

describe('an approval with no page open', () => {
  const scratch = scratchDir('mh-approval-line-');
  let host: WebHostProcess;
  let agent: Client;
  const pending: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    host = await startWebHost({ dataDir: join(scratch.dir, 'data') });
    const setup = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    await ok(setup, 'servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_COUNTER: join(scratch.dir, 'counter.txt') },
        sandbox: sandboxWritingTo({ FIXTURE_COUNTER: join(scratch.dir, 'counter.txt') }),
      },
    });
    await waitFor(
      async () => (await ok<Array<{ status: { state: string } }>>(setup, 'servers.list'))[0]?.status.state === 'ready',
      20_000,
    );
    // Ready comes before the tools are listed: the agent's call needs them in the catalog.
    await waitFor(
      async () =>
        (await ok<{ tools: Array<{ serverId: string; name: string }> }>(setup, 'tools.list')).tools.some(
          (t) => t.serverId === 'fx' && t.name === 'append',
        ),
      20_000,
    );
    const created = await ok<{ token: string }>(setup, 'agents.create', {
      name: 'Night Shift',
      visibility: ALL_SERVERS,
    });
    const view = await ok<AgentsView>(setup, 'agents.list');
    // The page goes away: from now on nobody would see a dialog.
    await closePage(setup);
    agent = await connectAgent(new URL(view.gateway.url), created.token);
  }, 60_000);

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await host?.stop();
    await Promise.allSettled(pending);
    scratch.cleanup();
  });

  it('prints one line with the agent, the tool and the link; nothing while a page is open', async () => {
    // No page: one line, with the link the host printed at start.
    pending.push(agent.callTool({ name: 'fx__append', arguments: { line: 'first' } }).catch(() => undefined));
    await waitFor(() => approvalLines(host).length === 1, 15_000);
    const [line] = approvalLines(host);
    expect(line).toBe(
      `MiniHarness: Agent "Night Shift" asks to run append (fx) and waits for your approval; open ${host.url}`,
    );
    expect(line).not.toContain('first'); // never the arguments

    // A page is open: it gets the request (and shows the dialog); the host prints nothing.
    const page = await BridgeClient.connect(Number(new URL(host.url).port), { token: host.token });
    pending.push(agent.callTool({ name: 'fx__echo', arguments: { text: 'seen' } }).catch(() => undefined));
    await waitFor(
      () =>
        page.events.some((e) => e.event === 'approval.requested' && (e.payload as ApprovalView).toolName === 'echo'),
      15_000,
    );
    await closePage(page);

    // No page again: the next request prints its line. Stdout is in order, so a line for the echo
    // request made while the page was open would come before it.
    pending.push(agent.callTool({ name: 'fx__append', arguments: { line: 'third' } }).catch(() => undefined));
    await waitFor(() => approvalLines(host).length >= 2, 15_000);
    expect(approvalLines(host)).toEqual([line, line]);
  });
});
