/**
 * TEST ONLY — a server of our own, on the v2 SDK's server package, that offers what the MCP
 * conformance suite's server scenarios call (their names and behaviours as the scenarios'
 * descriptions in @modelcontextprotocol/conformance state them): tools `test_*`, resources
 * `test://…`, prompts `test_*`, completion and logging. It stands where the suite's own reference
 * server (not in the npm package) would, so the suite's server leg can run against it directly and
 * through the gateway with it behind (scripts/conformance/). It is no copy of that server.
 *
 * Run as a script it serves both eras on stdio (the era is fixed by the first message);
 * `buildConformanceServer` is the factory the HTTP double (conformance-http.ts) serves.
 */
import { randomBytes } from 'node:crypto';
import type {
  ClientCapabilities,
  CreateMessageRequestParamsBase,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  InputRequests,
  InputRequiredResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  ResourceTemplate,
  acceptedContent,
  completable,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** A 1×1 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A tiny WAV (a header and two samples of silence). */
const WAV = Buffer.concat([
  Buffer.from('RIFF', 'ascii'),
  Buffer.from([40, 0, 0, 0]),
  Buffer.from('WAVEfmt ', 'ascii'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data', 'ascii'),
  Buffer.from([4, 0, 0, 0, 0, 0, 0, 0]),
]).toString('base64');

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** The round a multi-round call is in, sealed (HMAC) so a tampered state is refused before any handler runs. */
interface Round {
  tool: string;
  step: number;
}
const codec = createRequestStateCodec<Round>({ key: randomBytes(32), ttlSeconds: 600 });

function clientCapabilities(ctx: ServerContext): ClientCapabilities {
  return ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] ??
    {}) as ClientCapabilities;
}

/** A question's answer, or (2026-07-28, not answered yet) the round that asks it. */
type Asked<T> = { answer: T } | { round: InputRequiredResult };

/**
 * Asks the client in its era's way: a 2025 request is a server→client request; a 2026-07-28 one
 * (it carries the `_meta` envelope) has no such channel, so the question is an `input_required`
 * round under `key`, answered in the retried request's `inputResponses`.
 */
async function elicitIn(
  ctx: ServerContext,
  key: string,
  params: ElicitRequestFormParams,
): Promise<Asked<ElicitResult>> {
  if (ctx.mcpReq.envelope === undefined) return { answer: await ctx.mcpReq.elicitInput(params) };
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind === 'elicit')
    return { answer: { action: view.action, ...(view.content ? { content: view.content } : {}) } as ElicitResult };
  return { round: inputRequired({ inputRequests: { [key]: inputRequired.elicit(params) } }) };
}

async function sampleIn(
  ctx: ServerContext,
  key: string,
  params: CreateMessageRequestParamsBase,
): Promise<Asked<CreateMessageResult>> {
  if (ctx.mcpReq.envelope === undefined)
    return { answer: (await ctx.mcpReq.requestSampling(params)) as CreateMessageResult };
  const view = inputResponse(ctx.mcpReq.inputResponses, key);

  if (view.kind === 'sampling') return { answer: view.result as CreateMessageResult };
  return { round: inputRequired({ inputRequests: { [key]: inputRequired.createMessage(params) } }) };
}

/** The state the client echoed, when it verified (the SDK refused a tampered one already). */
async function roundOf(ctx: ServerContext): Promise<Round | undefined> {
  return (await ctx.mcpReq.requestState<Round>()) ?? undefined;
}

function answered(ctx: ServerContext, keys: readonly string[]): boolean {
  const responses = ctx.mcpReq.inputResponses ?? {};
  return keys.every((key) => key in responses);
}

/** The suite's JSON Schema 2020-12 tool: its input schema, kept as written (SEP-1613, SEP-2106). */
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** Tools and prompts added by the suite's diagnostic hooks, kept for every later instance (HTTP builds one per request). */
const added = { tools: 0, prompts: 0 };

export interface ConformanceServerOptions {
  /** Publishes list changes to open `subscriptions/listen` streams (HTTP: the handler's `notify`); on a session the server sends them itself. */
  notify?: () => { toolsChanged(): void; promptsChanged(): void };
}

export function buildConformanceServer(options: ConformanceServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'conformance-double', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      requestState: { verify: codec.verify },
    },
  );
  const none = { inputSchema: z.object({}) };

  server.registerTool('test_simple_text', { description: 'Returns simple text', ...none }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns an image', ...none }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Returns audio', ...none }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource', ...none }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Returns several content types', ...none }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }));
  server.registerTool('test_tool_with_logging', { description: 'Logs three messages', ...none }, async (_args, ctx) => {
    await ctx.mcpReq.log('info', 'Tool execution started');
    await wait(50);
    await ctx.mcpReq.log('info', 'Tool processing data');
    await wait(50);
    await ctx.mcpReq.log('info', 'Tool execution completed');
    return text('Tool with logging executed successfully');
  });
  server.registerTool('test_error_handling', { description: 'Always fails', ...none }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));
  server.registerTool('test_tool_with_progress', { description: 'Reports progress', ...none }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total: 100 },
        });
      if (progress < 100) await wait(50);
    }
    return text('Progress tool completed');
  });
  server.registerTool(
    'test_sampling',
    { description: 'Asks the client’s model', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const asked = await sampleIn(ctx, 'sampling', {
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      if ('round' in asked) return asked.round;
      const content = asked.answer.content;
      return text(`LLM response: ${!Array.isArray(content) && content.type === 'text' ? content.text : ''}`);
    },
  );
  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const asked = await elicitIn(ctx, 'elicitation', {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: 'User’s response' },
            email: { type: 'string', description: 'User’s email address' },
          },
          required: ['username', 'email'],
        },
      });
      if ('round' in asked) return asked.round;
      const answer = asked.answer;
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits with defaults', ...none },
    async (_args, ctx) => {
      const asked = await elicitIn(ctx, 'elicitation', {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verified', default: true },
          },
          required: [],
        },
      });
      if ('round' in asked) return asked.round;
      const answer = asked.answer;
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits with every enum form', ...none },
    async (_args, ctx) => {
      const asked = await elicitIn(ctx, 'elicitation', {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Untitled single', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Titled single',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Legacy titled',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Untitled multi',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Titled multi',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      } as ElicitRequestFormParams);
      if ('round' in asked) return asked.round;
      const answer = asked.answer;
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  // 2026-07-28 multi-round requests (SEP-2322): the first round asks, the next answers.
  const Name = z.object({ name: z.string() });
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks a name', ...none },
    (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name', Name);
      if (answer) return text(`Hello, ${answer.name}!`);
      return inputRequired({
        inputRequests: { user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: Name }) },
      });
    },
  );
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks the model', ...none },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'capital_question');
      if (answer.kind === 'sampling') {
        const content = answer.result.content;
        return text(`The model answered: ${!Array.isArray(content) && content.type === 'text' ? content.text : ''}`);
      }
      return inputRequired({
        inputRequests: {
          capital_question: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'Asks the roots', ...none },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
      if (answer.kind === 'roots') return text(`Roots: ${answer.roots.map((root) => root.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  );

  const elicitName = (message: string) => inputRequired.elicit({ message, requestedSchema: Name });
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'Keeps state', ...none },
    async (_args, ctx) => {
      const round = await roundOf(ctx);
      if (round?.tool === 'request_state' && answered(ctx, ['confirm']))
        return text('state-ok: the server read back the state it minted');
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Please confirm',
            requestedSchema: z.object({ ok: z.boolean() }),
          }),
        },
        requestState: await codec.mint({ tool: 'request_state', step: 1 }, ctx),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks three things', ...none },
    async (_args, ctx) => {
      const round = await roundOf(ctx);
      if (round?.tool === 'multiple' && answered(ctx, ['user_name', 'greeting', 'client_roots']))
        return text('All three answers received');
      return inputRequired({
        inputRequests: {
          user_name: elicitName('What is your name?'),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await codec.mint({ tool: 'multiple', step: 1 }, ctx),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks twice', ...none },
    async (_args, ctx) => {
      const round = await roundOf(ctx);
      if (round?.tool === 'multi_round' && round.step === 2 && answered(ctx, ['step2']))
        return text('Both steps answered');
      if (round?.tool === 'multi_round' && round.step === 1 && answered(ctx, ['step1']))
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({
              message: 'Step 2: What is your favorite color?',
              requestedSchema: z.object({ color: z.string() }),
            }),
          },
          requestState: await codec.mint({ tool: 'multi_round', step: 2 }, ctx),
        });
      return inputRequired({
        inputRequests: { step1: elicitName('Step 1: What is your name?') },
        requestState: await codec.mint({ tool: 'multi_round', step: 1 }, ctx),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Seals its state', ...none },
    async (_args, ctx) => {
      const round = await roundOf(ctx);
      if (round?.tool === 'tampered' && answered(ctx, ['confirm'])) return text('state verified');
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({ message: 'Please confirm', requestedSchema: z.object({ ok: z.boolean() }) }),
        },
        requestState: await codec.mint({ tool: 'tampered', step: 1 }, ctx),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only what the client can answer', ...none },
    (_args, ctx) => {
      const declared = clientCapabilities(ctx);
      const responses = ctx.mcpReq.inputResponses;
      if (responses && Object.keys(responses).length > 0) return text('Answered what the client could');
      const requests: InputRequests = {};
      if (declared.elicitation) requests.user_name = elicitName('What is your name?');
      if (declared.sampling)
        requests.greeting = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        });
      if (declared.roots) requests.client_roots = inputRequired.listRoots();
      if (Object.keys(requests).length === 0) return text('The client declared nothing to ask');
      return inputRequired({ inputRequests: requests });
    },
  );
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the client’s sampling', ...none },
    (_args, ctx) => {
      // Asking for sampling the client did not declare: the SDK answers -32021 itself.
      if (answered(ctx, ['reply'])) return text('The client answered');
      return inputRequired({
        inputRequests: {
          reply: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
            maxTokens: 20,
          }),
        },
      });
    },
  );
  server.registerTool('test_streaming_elicitation', { description: 'Asks while it runs', ...none }, (_args, ctx) => {
    if (answered(ctx, ['user_name'])) return text('Thanks');
    return inputRequired({ inputRequests: { user_name: elicitName('What is your name?') } });
  });
  server.registerTool('test_logging_tool', { description: 'Logs at every level', ...none }, async (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const)
      await ctx.mcpReq.log(level, `a ${level} message`);
    return text('logged');
  });
  const addTool = (n: number) =>
    server.registerTool(`test_dynamic_tool_${n}`, { description: 'Added by test_trigger_tool_change', ...none }, () =>
      text(`dynamic tool ${n}`),
    );
  const addPrompt = (n: number) =>
    server.registerPrompt(`test_dynamic_prompt_${n}`, { description: 'Added by test_trigger_prompt_change' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: `dynamic prompt ${n}` } }],
    }));
  for (let n = 1; n <= added.tools; n++) addTool(n);
  for (let n = 1; n <= added.prompts; n++) addPrompt(n);
  server.registerTool('test_trigger_tool_change', { description: 'Adds a tool', ...none }, () => {
    addTool(++added.tools);
    options.notify?.().toolsChanged();
    return text(`added test_dynamic_tool_${added.tools}`);
  });
  server.registerTool('test_trigger_prompt_change', { description: 'Adds a prompt', ...none }, () => {
    addPrompt(++added.prompts);
    options.notify?.().promptsChanged();
    return text(`added test_dynamic_prompt_${added.prompts}`);
  });
  server.registerTool(
    'json_schema_2020_12_tool',
    { description: 'Keeps its JSON Schema 2020-12 input schema', inputSchema: fromJsonSchema(SCHEMA_2020_12) },
    (args) => text(`received ${JSON.stringify(args)}`),
  );
  // Subscriptions (2025): accepted and tracked; nothing here changes, so no update is ever sent.
  const subscribed = new Set<string>();
  server.server.setRequestHandler('resources/subscribe', (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks first' }, (ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context', z.object({ context: z.string() }));
    if (answer)
      return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.context}` } }] };
    return inputRequired({
      inputRequests: {
        user_context: inputRequired.elicit({
          message: 'What context should the prompt use?',
          requestedSchema: z.object({ context: z.string() }),
        }),
      },
    });
  });

  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource', mimeType: 'image/png' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', {
      list: undefined,
      complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
    }),
    { description: 'A resource template', mimeType: 'application/json' },
    (uri, variables) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${String(variables.id)}` }),
        },
      ],
    }),
  );

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    ({ arg1, arg2 }) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt with an embedded resource', argsSchema: z.object({ resourceUri: z.string() }) },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  return server;
}

/** Run as a script: serve both eras on stdio. */
if (process.argv[1] && /conformance-server\.(ts|mjs|js)$/.test(process.argv[1])) {
  serveStdio(() => buildConformanceServer(), { legacy: 'serve' });
}
