/**
 * The reference server's tools that ask the client — `trigger-elicitation-request`,
 * `trigger-url-elicitation`, `trigger-sampling-request`, `get-roots-list` — against the
 * project's MCPClient over stdio. The server offers them only to a client that declares the
 * capability, so their presence is itself a check of what the client declared.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPUrlElicitationRequiredError } from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const config = (roots: string[]) =>
  StdioServerConfigSchema.parse({
    id: 'everything',
    name: 'Everything',
    transport: 'stdio',
    command: process.execPath,
    args: [entry, 'stdio'],
    cwd: PROJECT_ROOT,
    timeoutMs: 15_000,
    roots,
  });

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('server-everything: elicitation, sampling and roots answered through the client', () => {
  const serverRequests = new ScriptedServerRequests();
  const client = new MCPClient(config([join(PROJECT_ROOT, 'test')]), {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    serverRequests,
  });

  beforeAll(async () => {
    await client.initialize();
  });
  afterAll(async () => {
    await client.close();
  });

  it('offers the asking tools because the client declared it can answer them', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'trigger-elicitation-request',
        'trigger-url-elicitation',
        'trigger-sampling-request',
        'get-roots-list',
      ]),
    );
  });

  it('elicitation: the form the server sent reaches the person; accepted values reach the tool', async () => {
    const call = client.callTool('trigger-elicitation-request', {});
    const asked = await serverRequests.next();
    if (asked.kind !== 'elicitation' || asked.serverRequest.mode !== 'form')
      throw new Error(`expected a form elicitation, got ${asked.kind}`);
    expect(asked.serverRequest.serverId).toBe('everything');
    expect(asked.serverRequest.requestedSchema.required).toEqual(['name']);
    expect(Object.keys(asked.serverRequest.requestedSchema.properties)).toEqual(
      expect.arrayContaining(['name', 'email', 'untitledMultipleSelectEnum', 'titledSingleSelectEnum']),
    );
    asked.answer({ action: 'accept', content: { name: 'Grace Hopper', check: true } });
    const text = textOf(await call);
    expect(text).toContain('- Name: Grace Hopper');
    expect(text).toContain('- Agreed to terms: true');
    // Defaults the person left alone are filled in by the client (applyDefaults).
    expect(text).toContain('- Favorite Integer: 42');
  });

  it('URL elicitation by the error path (-32042): a coded error carrying the link to open, not a timeout; nobody is asked', async () => {
    const asked = serverRequests.received.length;
    const error: unknown = await client
      .callTool('trigger-url-elicitation', { url: 'https://example.com/needs-consent', errorPath: true })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(MCPUrlElicitationRequiredError);
    const refused = error as MCPUrlElicitationRequiredError;
    expect(refused.code).toBe('url_elicitation_required');
    expect(refused.details).toMatchObject({
      rpcCode: -32042,
      retryable: false,
      links: [
        {
          url: 'https://modelcontextprotocol.io/',
          host: 'modelcontextprotocol.io',
          message: 'Open this link to satisfy the prerequisite, then retry the request.',
        },
      ],
    });
    expect(refused.message).toContain('needs you to open a link at modelcontextprotocol.io');
    expect(refused.message).toContain('it did not run it');
    expect(serverRequests.received.length).toBe(asked);
  });

  it('URL elicitation: a cancel reaches the tool', async () => {
    const call = client.callTool('trigger-url-elicitation', {
      url: 'https://example.com/consent',
      message: 'Please consent',
    });
    const asked = await serverRequests.next();
    expect(asked.serverRequest).toMatchObject({
      mode: 'url',
      url: 'https://example.com/consent',
      message: 'Please consent',
    });
    if (asked.kind === 'elicitation') asked.answer({ action: 'cancel' });
    expect(textOf(await call)).toContain('User cancelled the URL elicitation');
  });

  it('sampling: the prompt and max tokens reach the person; their response reaches the tool', async () => {
    const call = client.callTool('trigger-sampling-request', { prompt: 'Name a colour', maxTokens: 12 });
    const asked = await serverRequests.next();
    if (asked.kind !== 'sampling') throw new Error(`expected sampling, got ${asked.kind}`);
    expect(asked.serverRequest.params.maxTokens).toBe(12);
    expect(JSON.stringify(asked.serverRequest.params.messages)).toContain('Name a colour');
    asked.answer({ action: 'respond', text: 'Teal', model: 'human' });
    const text = textOf(await call);
    expect(text).toContain('"text": "Teal"');
    expect(text).toContain('"model": "human"');
  });

  it('roots: the configured folder is listed, and an edit is picked up after list_changed', async () => {
    expect(textOf(await client.callTool('get-roots-list', {}))).toContain(
      pathToFileURL(join(PROJECT_ROOT, 'test')).href,
    );
    await client.setRoots([join(PROJECT_ROOT, 'bench'), join(PROJECT_ROOT, 'shared')]);
    // The server re-lists on the notification; its tool shows what it holds.
    let text = '';
    for (let attempt = 0; attempt < 200 && !text.includes('2 total'); attempt++) {
      text = textOf(await client.callTool('get-roots-list', {}));
    }
    expect(text).toContain(pathToFileURL(join(PROJECT_ROOT, 'shared')).href);
    expect(text).not.toContain(pathToFileURL(join(PROJECT_ROOT, 'test')).href);
  });
});
