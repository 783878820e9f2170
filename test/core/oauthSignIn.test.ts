/**
 * OAuth through the whole app core, as the GUI drives it: an OAuth server saved from the form
 * shows "needs sign-in"; Sign in opens the browser (here a headless stand-in that the loopback
 * authorization server approves at once) and the server becomes ready; an expired token is
 * refreshed; Sign out forgets the tokens and the server needs a sign-in again.
 *
 * And the token never leaks: not in any file of the data folder (configuration, database with its
 * WAL, tool cache, rules), not in the server's log, the traces, the events or the errors. The
 * secret store stands for the OS keyring here (a file outside the data folder); it is the one
 * place the token may be, and the test checks that it is there, so the search can find it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { DispatchResult } from '../../shared/bridge.js';
import type { EventName, ServerDetail, ServerStatusView, ServerView } from '../../shared/contract.js';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type { OAuthFixture } from '../doubles/servers/oauth-server.js';
import { startOAuthFixture } from '../doubles/servers/oauth-server.js';
import { scratchDir } from '../helpers/fixtures.js';
import { headlessBrowser } from '../helpers/headlessBrowser.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

async function call<T>(core: Core, channel: string, payload: unknown): Promise<T> {
  const result: DispatchResult = await core.dispatch(channel, payload);
  if (!result.ok) throw Object.assign(new Error(result.error.message), { shape: result.error });
  return result.result as T;
}

it('sign in, refresh, sign out — and the token is never in the data folder, logs, traces, events or errors', async () => {
  const scratch = scratchDir('mh-oauth-app-');
  cleanups.push(() => scratch.cleanup());
  const as: OAuthFixture = await startOAuthFixture();
  cleanups.push(() => as.close());
  const dataDir = join(scratch.dir, 'data');
  const keyringFile = join(scratch.dir, 'keyring', 'secrets.json');
  const browser = headlessBrowser();
  const core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir: join(scratch.dir, 'workspace'),
    secrets: new FileSecretStore(keyringFile),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
    openExternal: (url) => browser.open(url),
  });
  cleanups.push(() => core.close());
  const sent: Array<{ event: EventName; payload: unknown }> = [];
  const waiters = new Set<() => void>();
  core.onEvent((event, payload) => {
    sent.push({ event, payload });
    // The person allows the write when asked (its refusal comes from the server, not from a rule).
    if (event === 'approval.requested')
      void core.dispatch('approvals.answer', {
        requestId: (payload as { requestId: string }).requestId,
        answer: 'allow-once',
      });
    for (const check of [...waiters]) check();
  });
  /** Resolves with the first event since `from` (already sent, or to come) that matches. */
  const eventWhere = (event: EventName, match: (payload: unknown) => boolean, from: number): Promise<unknown> =>
    new Promise((resolve) => {
      const check = (): void => {
        const hit = sent.slice(from).find((e) => e.event === event && match(e.payload));
        if (!hit) return;
        waiters.delete(check);
        resolve(hit.payload);
      };
      waiters.add(check);
      check();
    });
  const statusWhere = async (match: (status: ServerStatusView) => boolean, from: number): Promise<ServerStatusView> => {
    const payload = (await eventWhere(
      'server.status',
      (p) => (p as { serverId: string }).serverId === 'notes' && match((p as { status: ServerStatusView }).status),
      from,
    )) as { status: ServerStatusView };
    return payload.status;
  };
  await core.start();

  // Saved from the form: it connects at once, and needs a sign-in. Nothing was registered for it.
  const from = sent.length;
  await call(core, 'servers.save', {
    mode: 'create',
    config: { id: 'notes', name: 'Notes', transport: 'http', url: as.url, trusted: true, auth: { kind: 'oauth' } },
  });
  const needs = await statusWhere((s) => s.state === 'error', from);
  expect(needs).toMatchObject({ state: 'error', code: 'sign_in_required' });
  expect(as.registrations).toEqual([]);
  expect(browser.opened).toEqual([]);

  // Sign in: the browser opens the authorization page; the server becomes ready.
  const signingIn = sent.length;
  await call<ServerView>(core, 'servers.signIn', { id: 'notes' });
  await statusWhere((s) => s.state === 'ready', signingIn);
  await eventWhere(
    'tools.changed',
    (payload) => (payload as { tools: Array<{ serverId: string }> }).tools.some((t) => t.serverId === 'notes'),
    signingIn,
  );
  expect(browser.opened).toHaveLength(1);
  expect(new URL(browser.opened[0] ?? '').origin).toBe(as.issuer);
  const detail = await call<ServerDetail>(core, 'servers.get', { id: 'notes' });
  expect(detail.server.oauth).toMatchObject({ signedIn: true, grant: 'authorization_code' });
  expect(detail.tools.map((t) => t.name).sort()).toEqual(['whoami', 'write_note']);

  const whoami = { name: 'whoami', serverId: 'notes', args: {} };
  const first = await call<{ result: { content: Array<{ text?: string }> } }>(core, 'tools.call', {
    ...whoami,
    callId: 'call-oauth-0001',
  });
  expect(first.result.content[0]?.text).toContain('mcp:read');

  // An expired token is refreshed on the way; nobody is asked.
  as.expireAccessTokens();
  await call(core, 'tools.call', { ...whoami, callId: 'call-oauth-0002' });
  expect(as.tokenRequests.map((t) => t.grant)).toEqual(['authorization_code', 'refresh_token']);
  expect(browser.opened).toHaveLength(1);

  // A write needs more scopes: refused with what is needed, typed; nothing ran.
  const refused = await core.dispatch('tools.call', {
    name: 'write_note',
    serverId: 'notes',
    args: { text: 'x' },
    callId: 'call-oauth-0003',
  });
  expect(refused).toMatchObject({
    ok: false,
    error: {
      code: 'sign_in_required',
      details: { oauth: { reason: 'insufficient_scope', scope: 'mcp:read mcp:write' } },
    },
  });
  expect(as.notes).toEqual([]);

  // The one place the token is: the secret store (so the search below can find it at all).
  const current = as.accessTokens().at(-1)?.token ?? '';
  expect(readFileSync(keyringFile, 'utf8')).toContain(current);

  // Everything that leaves the core or lands in the data folder, while signed in.
  const log = await call<unknown[]>(core, 'servers.log', { id: 'notes' });
  const traces = await call<{ traces: Array<{ traceId: string }> }>(core, 'traces.list', {});
  expect(traces.traces.length).toBeGreaterThanOrEqual(3);
  const exported = await Promise.all(traces.traces.map((t) => call(core, 'traces.export', { traceId: t.traceId })));
  const history = await call(core, 'history.page', {});

  // Sign out: the tokens leave the secret store; the server needs a sign-in again.
  const signingOut = sent.length;
  await call(core, 'servers.signOut', { id: 'notes' });
  expect(await statusWhere((s) => s.state === 'error', signingOut)).toMatchObject({ code: 'sign_in_required' });
  expect(readFileSync(keyringFile, 'utf8')).not.toContain(current);
  const after = await call<ServerView>(core, 'servers.get', { id: 'notes' }).then(
    (d) => (d as unknown as ServerDetail).server,
  );
  expect(after.oauth?.signedIn).toBe(false);

  await core.close();
  const secrets = as.issuedSecrets();
  expect(secrets.length).toBe(5); // the code, two access tokens and two refresh tokens (a public client has no secret)
  const surfaces: Record<string, string> = {
    events: JSON.stringify(sent),
    log: JSON.stringify(log),
    traces: JSON.stringify(exported),
    history: JSON.stringify(history),
    refusal: JSON.stringify(refused),
  };
  for (const file of filesUnder(dataDir)) surfaces[file] = readFileSync(file).toString('latin1');
  for (const [where, text] of Object.entries(surfaces)) {
    const found = secrets.filter((secret) => text.includes(secret));
    expect(found, `a token or code in ${where}`).toEqual([]);
  }
});
