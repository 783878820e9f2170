/**
 * Secrets out of what servers describe (issue 19, attack 2): a real stdio server writes a stored
 * secret and an environment secret the app gave it into its tool title, description, annotations
 * and schemas, its resources, template and prompt, and a progress message; a 2026-07-28 server
 * quotes the env secret in a question it asks during a call. Agents of both eras (real SDK
 * clients through the gateway), the GUI's tool lists and the tool cache file on disk hold none of
 * it — and the redacted schema still takes the same arguments.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { LEAKY_MODERN_SERVER, LEAKY_SERVER, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectModernAgent, startGatewayApp, saveServerListed } from './support.js';

const STORED = `stored-${randomBytes(8).toString('hex')}`;
const FROM_ENV = `envsecret-${randomBytes(8).toString('hex')}`;
const ENV_NAME = 'MH_TEST_LEAKY_ENV_SECRET';

function expectClean(value: unknown): void {
  const text = JSON.stringify(value);
  expect(text).not.toContain(STORED);
  expect(text).not.toContain(FROM_ENV);
}

/** Every file under `dir` but the secret store itself, as text. */
function filesOf(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && !path.endsWith('secrets.json'))
    .map((path) => ({ path, text: readFileSync(path).toString('latin1') }));
}

describe('secrets in what a server describes never reach agents, the GUI or the tool cache', () => {
  const scratch = scratchDir('mh-gateway-redaction-');
  let app: GatewayApp;
  let legacy: Client;
  let modern: ModernClient;

  beforeAll(async () => {
    process.env[ENV_NAME] = FROM_ENV;
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(
      app,
      {
        id: 'leaky',
        name: 'Leaky',
        transport: 'stdio',
        command: process.execPath,
        args: ['--import', 'tsx', LEAKY_SERVER],
        cwd: PROJECT_ROOT,
        timeoutMs: 20_000,
        env: {
          LEAK_VALUES: 'STORED_KEY,ENV_KEY',
          STORED_KEY: { secret: { source: 'store', key: 'env.STORED_KEY' } },
          ENV_KEY: { secret: { source: 'env', name: ENV_NAME } },
        },
      },
      { 'env.STORED_KEY': STORED },
    );
    await saveServerListed(app, {
      id: 'asker',
      name: 'Asker',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', LEAKY_MODERN_SERVER],
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
      protocolEra: 'modern',
      env: { LEAK_VALUE: 'ENV_KEY', ENV_KEY: { secret: { source: 'env', name: ENV_NAME } } },
    });
    await app.call('permissions.setToolLevel', { serverId: 'asker', toolName: 'ask_leak', level: 'ALLOW' });
    for (const toolName of ['leak', 'progress_leak', 'resources/read', 'prompts/get'])
      await app.call('permissions.setToolLevel', { serverId: 'leaky', toolName, level: 'ALLOW' });
    const agent = await app.createAgent('Reader');
    legacy = new Client({ name: 'legacy-asker', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await legacy.connect(
      new StreamableHTTPClientTransport(app.url, {
        requestInit: { headers: { Authorization: `Bearer ${agent.token}` } },
      }),
    );
    modern = await connectModernAgent(app.url, agent.token, 'modern-asker', { elicitation: { form: {} } });
  }, 90_000);

  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
    await app?.close();
    delete process.env[ENV_NAME];
    scratch.cleanup();
  });

  it('tools/list in both eras: title, description, annotations and schema text redacted; names, keys and required kept', async () => {
    for (const { tools } of [await legacy.listTools(), await modern.listTools()]) {
      expectClean(tools);
      const leak = tools.find((t) => t.name === 'leaky__leak');
      expect(leak).toMatchObject({
        title: 'Leak [redacted]',
        description: 'Uses the key [redacted] and [redacted] to do things.',
        annotations: { title: 'Annotated [redacted]' },
        inputSchema: {
          type: 'object',
          required: ['mode'],
          properties: { mode: { type: 'string', enum: ['plain', '[redacted]'], default: '[redacted]' } },
        },
        outputSchema: { properties: { out: { description: 'Output signed with [redacted]' } } },
      });
    }
    // The redacted schema still takes the arguments it took.
    const result = await legacy.callTool({ name: 'leaky__leak', arguments: { mode: 'plain' } });
    expect(result.isError).toBeFalsy();
  });

  it('resources, templates and prompts in both eras: text redacted, URIs and names kept', async () => {
    for (const agent of [legacy, modern]) {
      const { resources } = await agent.listResources();
      const { resourceTemplates } = await agent.listResourceTemplates();
      const { prompts } = await agent.listPrompts();
      expectClean([resources, resourceTemplates, prompts]);
      expect(resources.find((r) => r.uri === 'leak://leaky/doc')).toMatchObject({
        title: 'Doc [redacted]',
        description: 'Opened with [redacted] and [redacted]',
      });
      expect(resourceTemplates[0]).toMatchObject({
        uriTemplate: 'shared://item/{id}',
        description: 'Any item, key [redacted]',
      });
      expect(prompts.find((p) => p.name === 'leaky__leaky')).toMatchObject({
        description: 'A prompt that knows [redacted] and [redacted]',
        arguments: [{ name: 'topic', description: 'Topic; key [redacted]' }],
      });
    }
  });

  it('a progress message reaches the agent redacted, in both eras', async () => {
    // The server answers once the gate file exists: made when the progress arrived.
    const gate = (name: string, messages: Array<string | undefined>) => {
      const file = join(scratch.dir, name);
      return {
        args: { gate: file },
        onprogress: (p: { message?: string }) => (messages.push(p.message), writeFileSync(file, '')),
      };
    };
    const legacyMessages: Array<string | undefined> = [];
    const first = gate('legacy-gate', legacyMessages);
    await legacy.callTool({ name: 'leaky__progress_leak', arguments: first.args }, undefined, {
      onprogress: first.onprogress,
    });
    const modernMessages: Array<string | undefined> = [];
    const second = gate('modern-gate', modernMessages);
    await modern.callTool({ name: 'leaky__progress_leak', arguments: second.args }, { onprogress: second.onprogress });
    expect(legacyMessages).toEqual(['working with [redacted] and [redacted]']);
    expect(modernMessages).toEqual(['working with [redacted] and [redacted]']);
  });

  it('a question a 2026-07-28 server asks during a call reaches agents of both eras redacted', async () => {
    const seen: unknown[] = [];
    modern.setRequestHandler(
      'elicitation/create',
      (request) => (seen.push(request.params), { action: 'accept', content: { name: 'Ada' } }),
    );
    legacy.setRequestHandler(
      ElicitRequestSchema,
      (request) => (seen.push(request.params), { action: 'accept', content: { name: 'Bob' } }),
    );
    const first = await modern.callTool({ name: 'asker__ask_leak', arguments: {} });
    const second = await legacy.callTool({ name: 'asker__ask_leak', arguments: {} });
    expect([first.content, second.content]).toEqual([
      [{ type: 'text', text: 'thanks Ada' }],
      [{ type: 'text', text: 'thanks Bob' }],
    ]);
    expect(seen).toHaveLength(2);
    expectClean(seen);
    expect(seen[0]).toMatchObject({
      message: 'Sign with [redacted]: what is your name?',
      requestedSchema: {
        properties: { name: { description: 'Your name (the key is [redacted])' } },
        required: ['name'],
      },
    });
  });

  it("the GUI's tool lists and the data folder on disk (tool cache included) hold neither secret", async () => {
    const tools = await app.call<{ tools: unknown[] }>('tools.list');
    expect(JSON.stringify(tools)).toContain('[redacted]');
    expectClean(tools);
    const detail = await app.call<{ negotiated?: { instructions?: string } }>('servers.get', { id: 'leaky' });
    expect(detail.negotiated?.instructions).toBe('Call with [redacted] and [redacted].');
    expectClean(detail);
    const files = filesOf(app.dataDir);
    const cacheFile = files.find((f) => f.path.endsWith('.tools.json') && f.text.includes('"serverId":"leaky"'));
    expect(cacheFile?.text).toContain('[redacted]');
    for (const file of files) {
      expect(file.text.includes(STORED), file.path).toBe(false);
      expect(file.text.includes(FROM_ENV), file.path).toBe(false);
    }
  });
});
