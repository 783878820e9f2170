/**
 * One call key everywhere (shared/contract/callKey.ts): any callId and session an agent may name
 * (1–200 printable ASCII characters) is one History can address. An agent of each era (the v2
 * SDK's Client, over HTTP to the real gateway) calls a tool that kills its server mid-call under
 * the key `tk-r9` and a 200-character session, so the record stays "result unknown"; then the GUI's
 * side, through the contract's dispatcher, gets it, resolves it, replays it, asks about it and
 * reruns it under another short key. Before the one schema, History took only 8–100 characters of
 * `[A-Za-z0-9_.:-]` (and sessions of at most 200): every one of these requests was refused as
 * "request does not match the contract", so such a record could never be resolved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { META_CALL_ID, META_SESSION } from '../../shared/agents.js';
import type { CallOutcome, HistoryRecordView } from '../../shared/contract.js';
import { CallIdSchema, CallKeyPartSchema, CallSessionIdSchema, channels } from '../../shared/contract.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

/** A v2 SDK Client of the given era over Streamable HTTP with the agent's bearer token. */
async function v2Agent(url: URL, token: string, era: 'modern' | 'legacy'): Promise<ModernClient> {
  const client = new ModernClient(
    { name: `keys-${era}`, version: '2.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  await client.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe('a call key the gateway takes is one History can address', () => {
  it('the contract takes 1–200 printable ASCII characters for a callId, and an agent session id', () => {
    for (const ok of ['tk-r9', 'a', 'x'.repeat(200), '!"#$%&\'()*+,/;<=>?@[\\]^`{|}~']) {
      expect(CallKeyPartSchema.safeParse(ok).success).toBe(true);
      expect(CallIdSchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['', 'x'.repeat(201), 'with space', 'tab\there', 'é', '\u0000', 7]) {
      expect(CallKeyPartSchema.safeParse(bad).success).toBe(false);
    }
    const longestSession = `agent:${'a'.repeat(100)}:${'s'.repeat(200)}`;
    expect(CallSessionIdSchema.safeParse(longestSession).success).toBe(true);
    // Every history channel that names a record takes it.
    const key = { sessionId: longestSession, callId: 'tk-r9' };
    for (const name of ['history.get', 'history.replay', 'history.askTask'] as const)
      expect(channels[name].request.safeParse(key).success).toBe(true);
    expect(channels['history.rerun'].request.safeParse({ ...key, newCallId: 'r2' }).success).toBe(true);
    expect(channels['history.resolve'].request.safeParse({ ...key, resolution: { status: 'failed' } }).success).toBe(
      true,
    );
    expect(channels['history.page'].request.safeParse({ sessionId: longestSession, limit: 10 }).success).toBe(true);
    expect(channels['traces.list'].request.safeParse({ sessionId: longestSession, limit: 10 }).success).toBe(true);
  });

  const scratch = scratchDir('mh-call-keys-');
  let app: GatewayApp;
  let agent: { id: string; token: string };

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', {}, ['crash', 'echo']);
    agent = await app.createAgent('Short Keys');
  });
  afterAll(async () => {
    await app.close();
    scratch.cleanup();
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: a record keyed tk-r9 in a 200-character session is shown, resolved, replayed and rerun`, async () => {
      const session = `${era}-${'s'.repeat(200 - era.length - 1)}`;
      const sessionId = `agent:${agent.id}:${session}`;
      const callId = 'tk-r9';
      const client = await v2Agent(app.url, agent.token, era);
      try {
        expect(client.getProtocolEra()).toBe(era);
        const mark = app.events.length;
        // The server dies mid-call: whether it acted is unknown, so the record stays started.
        const crashed = await client.callTool({
          name: 'fx__crash',
          arguments: {},
          _meta: { [META_CALL_ID]: callId, [META_SESSION]: session },
        });
        expect(crashed.isError).toBe(true);
        const shown = await app.call<HistoryRecordView>('history.get', { sessionId, callId });
        expect(shown).toMatchObject({ sessionId, callId, status: 'unknown', serverId: 'fx' });
        expect(
          (await app.call<{ records: HistoryRecordView[] }>('history.page', { sessionId, limit: 10 })).records,
        ).toHaveLength(1);
        // Asking the server is refused for what it is (no task), not as a request outside the contract.
        const asked = await app
          .call('history.askTask', { sessionId, callId })
          .catch((e: { shape: unknown }) => e.shape);
        expect(asked).not.toMatchObject({ code: 'invalid_request' });

        const resolved = await app.call<HistoryRecordView>('history.resolve', {
          sessionId,
          callId,
          resolution: { status: 'completed', resultText: 'checked by hand', note: 'the server restarted' },
        });
        expect(resolved).toMatchObject({ callId, status: 'completed', resolvedBy: 'manual' });
        const replayed = await app.call<CallOutcome>('history.replay', { sessionId, callId });
        expect(replayed).toMatchObject({ replayed: true });
        // The agent's own retry under the same key now gets the person's answer, and nothing runs.
        const again = await client.callTool({
          name: 'fx__crash',
          arguments: {},
          _meta: { [META_CALL_ID]: callId, [META_SESSION]: session },
        });
        expect(again.isError).toBeFalsy();
        expect(JSON.stringify(again.content)).toContain('checked by hand');

        // The crashed server is back (its status after the crash says so) before anything runs on it again.
        await waitFor(
          () =>
            app.events
              .slice(mark)
              .some(
                (e) =>
                  e.event === 'server.status' &&
                  (e.payload as { serverId: string; status: { state: string } }).serverId === 'fx' &&
                  (e.payload as { status: { state: string } }).status.state === 'ready',
              ),
          15_000,
        );
        const echoed = await client.callTool({
          name: 'fx__echo',
          arguments: { text: 'short' },
          _meta: { [META_CALL_ID]: 'e', [META_SESSION]: session },
        });
        expect(echoed.isError).toBeFalsy();
        const rerun = await app.call<CallOutcome>('history.rerun', { sessionId, callId: 'e', newCallId: `r-${era}` });
        expect(rerun).toMatchObject({ replayed: false });
      } finally {
        await client.close();
      }
    });
  }

  it('a 2025 call without a callId is keyed by its JSON-RPC id; an id History could not address, by its hash', async () => {
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${agent.token}`,
    };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      fetch(app.url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-ids', version: '1' } },
    });
    const mcpSession = init.headers.get('mcp-session-id') ?? '';
    expect(mcpSession).not.toBe('');
    await init.text();
    const onSession = { 'Mcp-Session-Id': mcpSession, 'Mcp-Protocol-Version': '2025-06-18' };
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, onSession)).text();
    const rpcId = 'call one, déjà vu';
    const answer = await (
      await post(
        { jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: 'fx__echo', arguments: { text: 'by id' } } },
        onSession,
      )
    ).text();
    expect(answer).toContain('by id');
    const sessionId = `agent:${agent.id}:mcp-${mcpSession}`;
    const { records } = await app.call<{ records: HistoryRecordView[] }>('history.page', { sessionId, limit: 10 });
    expect(records.map((r) => r.callId)).toEqual([expect.stringMatching(/^request-sha256-[0-9a-f]{64}$/)]);
    const callId = records[0]?.callId ?? '';
    expect(await app.call<HistoryRecordView>('history.get', { sessionId, callId })).toMatchObject({
      status: 'completed',
    });
    // The same id again is the same key: replayed, not run twice.
    const replayed = await (
      await post(
        { jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: 'fx__echo', arguments: { text: 'by id' } } },
        onSession,
      )
    ).text();
    expect(replayed).toContain('"io.miniharness/replayed":true');
    await fetch(app.url, { method: 'DELETE', headers: { ...headers, ...onSession } });
  });
});
