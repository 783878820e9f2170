/**
 * Resources, prompts and completion through the whole core (`buildCore`, the contract's
 * dispatcher) with the stdio fixture server (FIXTURE_FEATURES=1): what the GUI gets is bounded
 * (a small image whole, a large blob described, a long text cut on a character boundary), every
 * read and prompt get is a trace of its own (a failed one too, linked from its error), a prompt's
 * argument values stay out of the trace, and the server's changes and updates arrive as events.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import type {
  ChannelName,
  EventName,
  PromptResultView,
  ResourceListView,
  ResourceReadView,
  ResponseOf,
} from '../../shared/contract.js';
import type { TraceDetail } from '../../shared/traces.js';
import { MAX_CONTENT_TEXT_BYTES, utf8Length } from '../../shared/limits.js';
import { DOT_PNG_BASE64, LARGE_BLOB_BYTES, LARGE_TEXT_BYTES } from '../doubles/servers/features.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

describe('resources and prompts through the core', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let core: Core;

  async function ok<C extends ChannelName>(channel: C, payload: unknown): Promise<ResponseOf<C>> {
    const reply = await core.dispatch(channel, payload);
    if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}`);
    return reply.result as ResponseOf<C>;
  }

  /** Resolves once main sends an event that matches, from now on. */
  function eventSent(event: EventName, match: (payload: unknown) => boolean = () => true): Promise<void> {
    return new Promise((resolve) => {
      const stop = core.onEvent((name, payload) => {
        if (name !== event || !match(payload)) return;
        stop();
        resolve();
      });
    });
  }

  beforeEach(async () => {
    scratch = scratchDir();
    const dataDir = join(scratch.dir, 'data');
    core = await buildCore({
      mode: 'browser',
      dataDir,
      workspaceDir: join(scratch.dir, 'workspace'),
      secrets: new FileSecretStore(join(dataDir, 'secrets.json')),
      config: openConfConfigStore(dataDir),
      version: '0.0.0-test',
    });
    await core.start();
    await ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_FEATURES: '1', FIXTURE_TOOLS: 'echo' },
      },
    });
    await ok('servers.connect', { id: 'fx' });
  });
  afterEach(async () => {
    await core.close();
    scratch.cleanup();
  });

  it('lists resources with their templates’ variables, and bounds what a read hands the GUI', async () => {
    const list: ResourceListView = await ok('resources.list', { serverId: 'fx' });
    expect(list.resources).toHaveLength(8);
    expect(list.templates).toEqual([
      {
        uriTemplate: 'fixture://item/{id}',
        name: 'Item by id',
        description: 'Any item, by its id.',
        mimeType: 'text/plain',
        variables: ['id'],
      },
    ]);
    expect(list).toMatchObject({ truncated: false, canSubscribe: true, subscribed: [] });

    const image: ResourceReadView = await ok('resources.read', { serverId: 'fx', uri: 'fixture://image/dot.png' });
    expect(image.contents).toEqual([
      {
        uri: 'fixture://image/dot.png',
        mimeType: 'image/png',
        kind: 'blob',
        blob: DOT_PNG_BASE64,
        sizeBytes: Buffer.from(DOT_PNG_BASE64, 'base64').length,
      },
    ]);

    const blob: ResourceReadView = await ok('resources.read', { serverId: 'fx', uri: 'fixture://blob/large' });
    expect(blob.contents).toEqual([
      {
        uri: 'fixture://blob/large',
        mimeType: 'application/octet-stream',
        kind: 'blob',
        sizeBytes: LARGE_BLOB_BYTES,
        omitted: true,
      },
    ]);

    const text: ResourceReadView = await ok('resources.read', { serverId: 'fx', uri: 'fixture://text/large' });
    const cut = text.contents[0]!;
    expect(cut).toMatchObject({ kind: 'text', sizeBytes: LARGE_TEXT_BYTES, truncated: true });
    // Cut at the limit, between two characters (each "é" is two bytes).
    expect(utf8Length(cut.text!)).toBe(MAX_CONTENT_TEXT_BYTES);
    expect(cut.text!.endsWith('é')).toBe(true);

    // A template with its variables: main expands it (RFC 6570 escapes the space).
    const item: ResourceReadView = await ok('resources.read', {
      serverId: 'fx',
      uriTemplate: 'fixture://item/{id}',
      variables: { id: 'a b' },
    });
    expect(item).toMatchObject({
      uri: 'fixture://item/a%20b',
      contents: [{ kind: 'text', text: 'This is item a b.' }],
    });
  });

  it('records each read and prompt get as a trace; a failure links to its trace; argument values stay out', async () => {
    const read: ResourceReadView = await ok('resources.read', { serverId: 'fx', uri: 'fixture://item/3' });
    const readTrace: TraceDetail = await ok('traces.get', { traceId: read.traceId });
    expect(readTrace.trace).toMatchObject({ toolName: 'resources/read', serverId: 'fx', status: 'ok', userId: 'gui' });
    expect(readTrace.events.map((e) => e.type)).toEqual(['attempt_started', 'attempt_finished', 'completed']);
    expect(readTrace.events[0]?.data).toMatchObject({ uri: 'fixture://item/3' });

    const failed = await core.dispatch('resources.read', { serverId: 'fx', uri: 'fixture://missing' });
    expect(failed.ok).toBe(false);
    if (failed.ok) return;
    expect(failed.error).toMatchObject({ code: 'remote', details: { serverId: 'fx', rpcCode: -32002 } });
    const failedTrace: TraceDetail = await ok('traces.get', { traceId: failed.error.details?.traceId });
    expect(failedTrace.trace).toMatchObject({ toolName: 'resources/read', status: 'error', error: { code: 'remote' } });

    const VALUE = 'Zebulon-the-typed-value';
    const prompt: PromptResultView = await ok('prompts.get', {
      serverId: 'fx',
      name: 'greet',
      arguments: { name: VALUE, tone: 'warmly' },
    });
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: `Hello, ${VALUE} (warmly)!`,
          sizeBytes: utf8Length(`Hello, ${VALUE} (warmly)!`),
        },
      },
    ]);
    const promptTrace: TraceDetail = await ok('traces.get', { traceId: prompt.traceId });
    expect(promptTrace.trace).toMatchObject({ toolName: 'prompts/get', status: 'ok' });
    expect(promptTrace.events[0]?.data).toMatchObject({ prompt: 'greet', argumentNames: ['name', 'tone'] });
    expect(JSON.stringify(promptTrace)).not.toContain(VALUE);

    // Browsing is not traced: lists and completions leave no trace.
    const before = (await ok('traces.list', {})).traces.length;
    await ok('prompts.list', { serverId: 'fx' });
    await ok('completion.complete', {
      serverId: 'fx',
      ref: { type: 'prompt', name: 'greet' },
      argument: { name: 'name', value: 'al' },
    });
    expect((await ok('traces.list', {})).traces.length).toBe(before);
  });

  it('completes prompt arguments and template variables', async () => {
    expect(
      await ok('completion.complete', {
        serverId: 'fx',
        ref: { type: 'prompt', name: 'greet' },
        argument: { name: 'name', value: 'Al' },
      }),
    ).toEqual({ values: ['Alice', 'Albert'], total: 2, hasMore: false });
    expect(
      await ok('completion.complete', {
        serverId: 'fx',
        ref: { type: 'resource', uriTemplate: 'fixture://item/{id}' },
        argument: { name: 'id', value: '' },
        context: { other: 'x' },
      }),
    ).toMatchObject({
      values: ['1', '2', '3', '4', '5'],
    });
  });

  it('tells the GUI when a list changed and when a subscribed resource was updated', async () => {
    await ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'add_item', level: 'ALLOW' });
    await ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'touch', level: 'ALLOW' });
    await ok('resources.list', { serverId: 'fx' });
    const changed = eventSent('resources.changed', (p) => (p as { serverId: string }).serverId === 'fx');
    await ok('tools.call', { name: 'add_item', serverId: 'fx', args: { id: 'new' }, callId: 'call-add-item-1' });
    await changed;
    const list: ResourceListView = await ok('resources.list', { serverId: 'fx' });
    expect(list.resources.map((r) => r.uri)).toContain('fixture://item/new');

    expect(await ok('resources.subscribe', { serverId: 'fx', uri: 'fixture://item/1' })).toEqual({
      subscribed: ['fixture://item/1'],
    });
    const updated = eventSent('resources.updated', (p) => (p as { uri: string }).uri === 'fixture://item/1');
    await ok('tools.call', {
      name: 'touch',
      serverId: 'fx',
      args: { uri: 'fixture://item/1' },
      callId: 'call-touch-0001',
    });
    await updated;
    expect(await ok('resources.unsubscribe', { serverId: 'fx', uri: 'fixture://item/1' })).toEqual({ subscribed: [] });
  });

  it('says by code when the server offers no prompts, and refuses a template it cannot expand', async () => {
    await ok('servers.save', {
      mode: 'create',
      config: {
        id: 'plain',
        name: 'Plain',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_TOOLS: 'echo' },
      },
    });
    await ok('servers.connect', { id: 'plain' });
    const refused = await core.dispatch('prompts.list', { serverId: 'plain' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'not_offered', details: { serverId: 'plain' } } });
    const badTemplate = await core.dispatch('resources.read', {
      serverId: 'fx',
      uriTemplate: 'fixture://item/{id',
      variables: { id: '1' },
    });
    expect(badTemplate).toMatchObject({
      ok: false,
      error: { code: 'validation', details: { fieldErrors: { uriTemplate: [expect.any(String)] } } },
    });
  });
});
