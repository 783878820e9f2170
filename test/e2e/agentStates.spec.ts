/**
 * The Agents cards say what is true (issue 28.18), in Chromium against the real browser-mode host:
 *
 * - a client that exits (a real process, killed with SIGKILL: it ends nothing) stops counting as
 *   connected at once — its session stays listed as "seen …" until the idle window closes it;
 * - a sign-in allowed on the consent page but never redeemed reads "sign-in not finished", then
 *   "signed in" once the client fetched its tokens, and "sign-in ended" once a refresh token is used
 *   twice (the authorization server then ends the grant).
 *
 * Before: both sign-ins read "signed in", and the killed client counted as "1 connected client"
 * until the idle time.
 *
 * Run: npx playwright test test/e2e/agentStates.spec.ts
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { AgentsView } from '../../shared/agents.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 120_000 });

const ctx = hostPerTest('mh-e2e-agent-states-');

async function openAgents(page: Page): Promise<void> {
  await page.goto(ctx.host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Agents/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
}

/** A 2025 agent in a process of its own (the v1 SDK client over HTTP), connected until killed. */
function agentProcess(url: string, token: string): Promise<ChildProcess> {
  const script = `
    import { Client } from '@modelcontextprotocol/sdk/client/index.js';
    import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
    const client = new Client({ name: 'doomed-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[1]), {
      requestInit: { headers: { Authorization: 'Bearer ' + process.env.AGENT_TOKEN } },
    }));
    await client.listTools();
    process.stdout.write('connected\\n');
    setInterval(() => undefined, 1 << 30);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, url], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('connected')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the agent process exited (${code}): ${err}`)));
  });
}

test('a client that exits is no longer counted as connected: it is listed as seen until the idle window ends', async ({
  page,
}) => {
  const created = await ctx.bridge.ok<{ token: string }>('agents.create', {
    name: 'Doomed',
    visibility: { allServers: true, serverIds: [], localTools: false },
  });
  const url = (await ctx.bridge.ok<AgentsView>('agents.list', {})).gateway.url;
  const child = await agentProcess(url, created.token);
  try {
    await openAgents(page);
    const card = page.getByRole('listitem', { name: 'Doomed' });
    await expect(card.getByText('1 connected client')).toBeVisible();
    const row = card.getByRole('table', { name: 'Clients of Doomed' }).locator('tbody tr');
    await expect(row).toHaveAttribute('data-open', 'true');
    await expect(row).toContainText('connected');

    child.kill('SIGKILL');
    await expect(card.getByText('not connected · 1 client seen lately')).toBeVisible();
    await expect(row).toHaveAttribute('data-open', 'false');
    await expect(row).toContainText(/seen /);
    await expect(row).toContainText('doomed-agent');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('a sign-in says where it stands: not finished until the code is redeemed, signed in, then ended by a reused refresh token', async ({
  page,
}) => {
  const origin = new URL((await ctx.bridge.ok<AgentsView>('agents.list', {})).gateway.url).origin;
  const redirect = 'http://127.0.0.1:9/callback';
  const registered = (await (
    await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Hand Client',
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = `${origin}/authorize?${new URLSearchParams({
    client_id: registered.client_id,
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'mcp offline_access',
    prompt: 'consent',
    state: 'e2e',
    resource: `${origin}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;

  // The person allows it in the browser; the client's callback (never reached here) would get the code.
  let callback: URL | undefined;
  await page.route('http://127.0.0.1:9/**', async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ contentType: 'text/plain', body: 'the client would take it from here' });
  });
  await page.goto(authorize);
  await expect(page.getByRole('heading', { name: 'Allow an agent to use MiniHarness?' })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
  // The redirect to the client's callback has finished loading before this page goes elsewhere.
  await page.waitForURL(/^http:\/\/127\.0\.0\.1:9\//);
  expect(callback?.searchParams.get('code')).toBeTruthy();

  await openAgents(page);
  const card = page.getByRole('listitem', { name: 'Hand Client' });
  await expect(card.getByText('sign-in not finished', { exact: true })).toBeVisible();
  await expect(card.getByText('signed in', { exact: true })).toHaveCount(0);

  // The client redeems its code: signed in.
  const token = async (body: Record<string, string>) =>
    fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: registered.client_id, ...body }),
    });
  const redeemed = await token({
    grant_type: 'authorization_code',
    code: callback?.searchParams.get('code') as string,
    redirect_uri: redirect,
    code_verifier: verifier,
  });
  expect(redeemed.status).toBe(200);
  const tokens = (await redeemed.json()) as { refresh_token?: string };
  expect(tokens.refresh_token).toBeTruthy();
  await expect(card.getByText('signed in', { exact: true })).toBeVisible();

  // The refresh token is used, then used again (as a thief would): the grant ends.
  expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string })).status).toBe(
    200,
  );
  expect((await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string })).status).toBe(
    400,
  );
  await expect(card.getByText('sign-in ended', { exact: true })).toBeVisible();
  await expect(card.getByText('signed in', { exact: true })).toHaveCount(0);
});
