/**
 * Resources, prompts and completion through the registry against the MCP project's reference
 * server, `@modelcontextprotocol/server-everything`, over stdio: its lists, templates, text and
 * blob reads, a subscription and the updates it brings, prompts with arguments, completion in
 * both forms, and a resource list that changes while connected (list_changed).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { nextFeatureEvent } from './featureEvents.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('resources, prompts and completion of server-everything (stdio)', () => {
  const registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
  const id = 'everything';

  beforeAll(async () => {
    registry.addServer({
      id,
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      timeoutMs: 15_000,
    });
    const outcome = await registry.connect(id);
    expect(outcome.status).toEqual({ state: 'ready' });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('lists its resources and templates, with the variables of each template', async () => {
    const catalog = await registry.features.resources(id);
    const uris = catalog.resources.items.map((r) => r.uri);
    expect(uris).toContain('demo://resource/static/document/features.md');
    expect(catalog.resources.truncated).toBe(false);
    expect(catalog.templates.items.map((t) => t.uriTemplate).sort()).toEqual([
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    expect(catalog.canSubscribe).toBe(true);
    expect(catalog.subscribed).toEqual([]);
  });

  it('reads a text resource and a blob resource from a template', async () => {
    const text = await registry.features.read(id, 'demo://resource/static/document/features.md');
    expect(text.contents).toHaveLength(1);
    expect(text.contents[0]).toMatchObject({
      uri: 'demo://resource/static/document/features.md',
      mimeType: 'text/markdown',
    });
    expect('text' in text.contents[0]! && text.contents[0].text.length).toBeGreaterThan(0);

    const blob = await registry.features.read(id, 'demo://resource/dynamic/blob/7');
    const content = blob.contents[0]!;
    expect('blob' in content).toBe(true);
    expect(Buffer.from((content as { blob: string }).blob, 'base64').toString('utf8')).toMatch(
      /^Resource 7: This is a base64 blob/,
    );
  });

  it('a subscription brings notifications/resources/updated for that resource; unsubscribing forgets it', async () => {
    const uri = 'demo://resource/static/document/architecture.md';
    expect(await registry.features.subscribeResource(id, uri)).toEqual([uri]);
    const updated = nextFeatureEvent(registry, (e) => e.type === 'resource_updated');
    // The server's own switch: it sends an update for every subscribed resource at once, then every 5 s.
    const started = await registry.callServerTool(id, 'toggle-subscriber-updates', {});
    expect(started.content[0]).toMatchObject({ text: expect.stringMatching(/^Started/) as string });
    expect(await updated).toMatchObject({ type: 'resource_updated', serverId: id, uri });
    expect((await registry.features.resources(id)).subscribed).toEqual([uri]);
    await registry.callServerTool(id, 'toggle-subscriber-updates', {}); // stops them

    expect(await registry.features.unsubscribeResource(id, uri)).toEqual([]);
    expect((await registry.features.resources(id)).subscribed).toEqual([]);
  });

  it('lists prompts with their arguments and gets one with arguments', async () => {
    const prompts = await registry.features.prompts(id);
    const args = prompts.items.find((p) => p.name === 'args-prompt');
    expect(args?.arguments).toEqual([
      expect.objectContaining({ name: 'city', required: true }),
      expect.objectContaining({ name: 'state' }),
    ]);
    const result = await registry.features.getPrompt(id, 'args-prompt', { city: 'Paris', state: 'Texas' });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "What's weather in Paris, Texas?" } },
    ]);
    const embedded = await registry.features.getPrompt(id, 'resource-prompt', {
      resourceType: 'Text',
      resourceId: '2',
    });
    expect(embedded.messages[1]?.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'demo://resource/dynamic/text/2' },
    });
  });

  it('completes a prompt argument (narrowed by the others) and a template variable', async () => {
    const department = await registry.features.complete(id, {
      target: { type: 'prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'Ma' },
    });
    expect(department.values).toEqual(['Marketing']);
    const member = await registry.features.complete(id, {
      target: { type: 'prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { department: 'Sales' },
    });
    expect(member.values).toEqual(['David', 'Eve', 'Frank']);
    const variable = await registry.features.complete(id, {
      target: { type: 'resource', uriTemplate: 'demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '12' },
    });
    expect(variable.values).toEqual(['12']);
  });

  it('re-lists its resources when it says they changed (a resource the server added while connected)', async () => {
    const before = await registry.features.resources(id);
    expect(before.resources.items.some((r) => r.uri === 'demo://resource/session/hello.txt.gz')).toBe(false);
    const changed = nextFeatureEvent(registry, (e) => e.type === 'resources' && e.serverId === id);
    // The tool registers a session resource, and the server sends notifications/resources/list_changed.
    await registry.callServerTool(id, 'gzip-file-as-resource', {
      name: 'hello.txt.gz',
      data: 'data:text/plain;base64,aGVsbG8=',
      outputType: 'resourceLink',
    });
    await changed;
    // Already listed again: no refresh needed.
    const after = await registry.features.resources(id);
    expect(after.resources.items.map((r) => r.uri)).toContain('demo://resource/session/hello.txt.gz');
    expect(after.resources.items.length).toBe(before.resources.items.length + 1);
  });
});
