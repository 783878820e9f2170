/**
 * What a server asks of the client — elicitation, sampling, roots — over a real stdio fixture
 * server: the capabilities declared match what can be answered, requests the spec forbids are
 * refused before anyone is asked, answers reach the server's tool exactly, and the server's log
 * tells what happened without any answer's content.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { ServerRequestHandlers } from '../../electron/mcp/serverRequests.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const TOOLS = 'ask_form,ask_url,sample,roots,client_capabilities';
/** The tasks extension is declared to every server (a call it answers with a task is followed: mcp/tasks/). */
/** The extensions every client declares: tasks, and MCP Apps with the one MIME type it renders. */
const EXTENSIONS_DECLARED = {
  'io.modelcontextprotocol/tasks': {},
  'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
};

describe('requests from the server: elicitation, sampling, roots (stdio fixture)', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let events: string;
  const clients: MCPClient[] = [];

  async function connect(
    options: { serverRequests?: ServerRequestHandlers; roots?: string[] } = {},
  ): Promise<MCPClient> {
    const config = stdioFixtureConfig(
      'fx',
      { FIXTURE_EVENTS: events, FIXTURE_TOOLS: TOOLS },
      options.roots ? { roots: options.roots } : {},
    );
    const client = new MCPClient(config, {
      secrets: new DefaultSecretResolver(),
      sandboxes: testSandboxes(),
      ...(options.serverRequests ? { serverRequests: options.serverRequests } : {}),
    });
    clients.push(client);
    await client.initialize();
    return client;
  }

  beforeEach(() => {
    scratch = scratchDir();
    events = join(scratch.dir, 'events.jsonl');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    scratch.cleanup();
  });

  it('declares elicitation and sampling only with someone to answer them; roots always', async () => {
    const alone = await connect();
    expect((await alone.callTool('client_capabilities', {})).structuredContent).toEqual({
      answer: { roots: { listChanged: true }, extensions: EXTENSIONS_DECLARED },
    });
    // Not declared, not answered: the server's request is refused as an unknown method, nobody is asked.
    const refused = await alone.callTool('ask_form', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: -32601 } });

    const asked = await connect({ serverRequests: new ScriptedServerRequests() });
    expect((await asked.callTool('client_capabilities', {})).structuredContent).toEqual({
      answer: {
        roots: { listChanged: true },
        elicitation: { form: { applyDefaults: true }, url: {} },
        sampling: {},
        extensions: EXTENSIONS_DECLARED,
      },
    });
  });

  it('hands a form elicitation to the person and returns the accepted values, defaults filled in', async () => {
    const serverRequests = new ScriptedServerRequests();
    const client = await connect({ serverRequests });
    const requestedSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        age: { type: 'integer', default: 30 },
        colour: { type: 'string', enum: ['red', 'blue'], default: 'blue' },
      },
      required: ['name'],
    };
    const call = client.callTool('ask_form', { message: 'Who are you?', requestedSchema });
    const asked = await serverRequests.next();
    expect(asked.kind).toBe('elicitation');
    expect(asked.serverRequest).toEqual({ serverId: 'fx', mode: 'form', message: 'Who are you?', requestedSchema });
    if (asked.kind === 'elicitation') asked.answer({ action: 'accept', content: { name: 'Ada-private-answer' } });
    const result = await call;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({
      answer: { action: 'accept', content: { name: 'Ada-private-answer', age: 30, colour: 'blue' } },
    });
    // The log says what happened, never what was answered.
    const log = client.log.all().map((l) => l.text);
    expect(log).toContain('elicitation request (form, 3 fields): accept');
    expect(log.join('\n')).not.toContain('Ada-private-answer');
  });

  it('refuses before asking anybody: a nested form, a link that is not a web page, sampling with tools', async () => {
    const serverRequests = new ScriptedServerRequests();
    const client = await connect({ serverRequests });
    const nested = await client.callTool('ask_form', {
      message: 'Address?',
      requestedSchema: {
        type: 'object',
        properties: { address: { type: 'object', properties: { street: { type: 'string' } } } },
      },
    });
    expect(nested.structuredContent).toMatchObject({ error: { code: -32602 } });
    const script = await client.callTool('ask_url', { message: 'Open this', url: 'javascript:alert(1)' });
    expect(script.structuredContent).toMatchObject({ error: { code: -32602 } });
    const file = await client.callTool('ask_url', { message: 'Open this', url: 'file:///etc/passwd' });
    expect(file.structuredContent).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('http or https') as string },
    });
    const tools = await client.callTool('sample', { prompt: 'Use the tool', maxTokens: 10, withTools: true });
    expect(tools.structuredContent).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('tools') as string },
    });
    expect(serverRequests.received).toEqual([]);
  });

  it('hands a link to the person (URL mode); a decline reaches the server and nothing is opened for them', async () => {
    const serverRequests = new ScriptedServerRequests();
    const client = await connect({ serverRequests });
    const call = client.callTool('ask_url', {
      message: 'Sign in at the provider',
      url: 'https://auth.example.com/start?code=one-time-123',
    });
    const asked = await serverRequests.next();
    expect(asked.serverRequest).toEqual({
      serverId: 'fx',
      mode: 'url',
      message: 'Sign in at the provider',
      url: 'https://auth.example.com/start?code=one-time-123',
      elicitationId: 'fixture-1',
    });
    if (asked.kind === 'elicitation') asked.answer({ action: 'decline' });
    expect((await call).structuredContent).toEqual({ answer: { action: 'decline' } });
    const log = client.log.all().map((l) => l.text);
    expect(log).toContain('elicitation request (link to auth.example.com): decline');
    expect(log.join('\n')).not.toContain('one-time-123');
  });

  it('returns the response the person wrote for a sampling request, and -1 when they reject it', async () => {
    const serverRequests = new ScriptedServerRequests();
    const client = await connect({ serverRequests });
    const call = client.callTool('sample', { prompt: 'Say hi', maxTokens: 50 });
    const asked = await serverRequests.next();
    expect(asked.kind).toBe('sampling');
    if (asked.kind !== 'sampling') return;
    expect(asked.serverRequest.serverId).toBe('fx');
    expect(asked.serverRequest.params).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      maxTokens: 50,
      systemPrompt: 'You are a fixture.',
    });
    asked.answer({ action: 'respond', text: 'Hi from a person', model: 'human' });
    expect((await call).structuredContent).toEqual({
      answer: {
        role: 'assistant',
        content: { type: 'text', text: 'Hi from a person' },
        model: 'human',
        stopReason: 'endTurn',
      },
    });

    const rejected = client.callTool('sample', { prompt: 'Again', maxTokens: 10 });
    const second = await serverRequests.next();
    if (second.kind === 'sampling') second.answer({ action: 'reject', reason: 'person' });
    expect((await rejected).structuredContent).toMatchObject({
      error: { code: -1, message: expect.stringContaining('rejected') as string },
    });
  });

  it('withdraws an open ask when the connection closes', async () => {
    const serverRequests = new ScriptedServerRequests();
    const client = await connect({ serverRequests });
    const call = client.callTool('ask_form', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const asked = await serverRequests.next();
    expect(asked.signal.aborted).toBe(false);
    await client.close();
    await call.catch(() => undefined);
    expect(asked.signal.aborted).toBe(true);
  });

  it('answers roots/list with the configured folders and tells the server when they change', async () => {
    const first = join(scratch.dir, 'project');
    const second = join(scratch.dir, 'other folder');
    const client = await connect({ roots: [first] });
    expect((await client.callTool('roots', {})).structuredContent).toEqual({
      answer: { roots: [{ uri: pathToFileURL(first).href, name: 'project' }] },
    });

    await client.setRoots([first, second]);
    await waitFor(() => readEvents(events).some((e) => e.event === 'roots'));
    const listed = readEvents(events).filter((e) => e.event === 'roots') as Array<{ roots?: string[] }>;
    expect(listed.at(-1)?.roots).toEqual([pathToFileURL(first).href, pathToFileURL(second).href]);

    // The same list again is no change: the server is not told twice.
    await client.setRoots([first, second]);
    await client.setRoots([]);
    await waitFor(() => readEvents(events).filter((e) => e.event === 'roots').length === 2);
    expect(readEvents(events).filter((e) => e.event === 'roots_changed')).toHaveLength(2);
    expect((await client.callTool('roots', {})).structuredContent).toEqual({ answer: { roots: [] } });
  });
});
