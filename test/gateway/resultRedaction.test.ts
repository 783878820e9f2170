/**
 * A server that echoes the credential it was given (the stdio fixture's `echo_env`: the secret in
 * its text, its structured content and a progress message) reaches an agent of either era
 * redacted: the v2 SDK's Client, over HTTP to the real gateway, in `auto` mode (2026-07-28) and in
 * `legacy` mode (2025-11-25). Before these, only the GUI's path checked result redaction: a
 * pipeline that stopped redacting results failed no gateway test. The secret is also looked for
 * in everything the agent's transport received, byte for byte.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { META_CALL_ID } from '../../shared/agents.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { saveServerListed, startGatewayApp } from './support.js';

const SECRET = `sk-echo-${randomUUID()}`;

describe('a secret a server echoes reaches an agent redacted, in either era', () => {
  const scratch = scratchDir('mh-gateway-result-redaction-');
  let app: GatewayApp;
  let token: string;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(
      app,
      {
        id: 'leaky',
        name: 'Leaky',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: {
          FIXTURE_ECHO_ENV: 'LEAKY_TOKEN',
          FIXTURE_TOOLS: 'echo_env',
          LEAKY_TOKEN: { secret: { source: 'store', key: 'env.LEAKY_TOKEN' } },
        },
      },
      { 'env.LEAKY_TOKEN': SECRET },
    );
    await app.call('permissions.setToolLevel', { serverId: 'leaky', toolName: 'echo_env', level: 'ALLOW' });
    token = (await app.createAgent('Echo Reader')).token;
  });
  afterAll(async () => {
    await app.close();
    scratch.cleanup();
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: the result and its progress carry "[redacted]" where the server put the secret`, async () => {
      // Every byte the agent's transport read from the gateway.
      const received: string[] = [];
      const recordingFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (!response.body) return response;
        const [mine, theirs] = response.body.tee();
        void (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of mine) received.push(decoder.decode(chunk, { stream: true }));
        })().catch(() => undefined); // the client aborts its streams when it closes
        return new Response(theirs, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      };
      const client = new ModernClient(
        { name: `redaction-${era}`, version: '2.0.0' },
        { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
      );
      await client.connect(
        new ModernHttp(app.url, {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
          fetch: recordingFetch,
        }),
      );
      try {
        expect(client.getProtocolEra()).toBe(era);
        const progress: string[] = [];
        for (const [n, callId] of [`${era}-first`, `${era}-first`].entries()) {
          const result = await client.callTool(
            { name: 'leaky__echo_env', arguments: {}, _meta: { [META_CALL_ID]: callId } },
            { onprogress: (p) => progress.push(p.message ?? '') },
          );
          // The server did send the value back: the marker stands exactly where it was (the second time, replayed).
          expect(result.content).toEqual([{ type: 'text', text: 'LEAKY_TOKEN=[redacted]' }]);
          expect(result.structuredContent).toEqual({ LEAKY_TOKEN: '[redacted]', nested: [{ value: '[redacted]' }] });
          expect(result._meta?.['io.miniharness/replayed']).toBe(n === 1);
        }
        // Whatever progress arrived says "[redacted]" (the SDK may drop one that shares a chunk with its response).
        for (const message of progress) expect(message).toBe('using [redacted]');
        expect(received.join('\n')).toContain('LEAKY_TOKEN=[redacted]');
        expect(received.join('\n')).not.toContain(SECRET);
      } finally {
        await client.close().catch(() => undefined);
      }
    });
  }
});
