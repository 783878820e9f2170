/**
 * The OpenTelemetry export, end to end: a whole core (browser mode) exporting to a loopback OTLP
 * receiver (test/doubles/otlpReceiver.ts, which decodes OTLP/protobuf and OTLP/JSON), a real
 * 2026-07-28 server over HTTP (test/doubles/servers/modern-http.ts) that records the
 * `traceparent` it receives in `_meta`, and real agents of both eras at the gateway.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, ObservabilityView } from '../../shared/contract.js';
import type { RunView } from '../../shared/contract/runs.js';
import { LoopbackProvider, turnsByToolResults } from '../doubles/providers/loopbackProvider.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { ReceivedSpan } from '../doubles/otlpReceiver.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import type { ModernHttpFixture } from '../doubles/servers/modern-http.js';
import { startModernHttp } from '../doubles/servers/modern-http.js';
import type { GatewayApp } from '../gateway/support.js';
import { connectModernAgent, saveServerListed, startGatewayApp } from '../gateway/support.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
const AGENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '00f067aa0ba902b7';

function settings(receiver: OtlpReceiver, protocol: 'http/protobuf' | 'http/json', overrides = {}) {
  return {
    enabled: true,
    protocol,
    endpoint: receiver.url,
    serviceName: 'mh-test',
    sampleRatio: 1,
    headers: [{ name: 'x-collector-key', value: 'collector-secret-value' }],
    exportPayloads: false,
    exportMetrics: true,
    viewerUrl: 'http://jaeger.test/trace/{traceId}',
    ...overrides,
  };
}

/** A 2025 agent (the v1 SDK) that sends extra HTTP headers with each request (its own traceparent). */
async function legacyAgent(url: URL, token: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'legacy-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  return client;
}

function serverEvents(file: string): Array<{ event: string; name?: string; traceparent?: string }> {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; name?: string; traceparent?: string });
  } catch {
    return [];
  }
}

describe('OpenTelemetry export', () => {
  const scratch = scratchDir('mh-otel-');
  const events = join(scratch.dir, 'server-events.jsonl');
  let app: GatewayApp;
  let receiver: OtlpReceiver;
  let upstream: ModernHttpFixture;
  let token: string;
  let loopback: LoopbackProvider;

  beforeAll(async () => {
    loopback = await new LoopbackProvider(
      turnsByToolResults([
        {
          kind: 'reply',
          text: ['Echoing.'],
          toolCalls: [{ id: 'toolu_otel1', name: 'echo', args: { text: 'from-run' } }],
          usage: { input: 11, output: 7 },
        },
        { kind: 'reply', text: ['Done.'], usage: { input: 20, output: 3 } },
      ]),
    ).start();
    // The standard batch delay variable: spans leave within 50 ms (the receiver's waits are event-driven).
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    // The metrics reader's interval, the standard variable (cumulative points: a late export still carries each value).
    process.env.OTEL_METRIC_EXPORT_INTERVAL = '200';
    receiver = await OtlpReceiver.start();
    upstream = await startModernHttp({ events });
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, { id: 'up', name: 'Upstream', transport: 'streamable_http', url: upstream.url });
    await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ALLOW' });
    token = (await app.createAgent('Traced Agent')).token;
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await receiver?.close();
    await loopback?.close();
    scratch.cleanup();
  });

  it('is off by default: a call exports nothing and sends no traceparent', async () => {
    const view = await app.call<ObservabilityView>('observability.get');
    expect(view.enabled).toBe(false);
    expect(view.exportMetrics).toBe(false);
    await app.call('tools.call', { name: 'echo', serverId: 'up', args: { text: 'quiet' }, callId: randomUUID() });
    expect(serverEvents(events).filter((e) => e.name === 'echo')).toEqual([{ event: 'tools/call', name: 'echo' }]);
  });

  describe.each(['http/protobuf', 'http/json'] as const)('over %s', (protocol) => {
    beforeAll(async () => {
      const view = await app.call<ObservabilityView>('observability.set', settings(receiver, protocol));
      expect(view.headers).toEqual(['x-collector-key']);
      expect(JSON.stringify(view)).not.toContain('collector-secret-value');
    });

    it('a GUI call: a CLIENT span in the MCP conventions with the decision on it; the server gets its traceparent', async () => {
      const callId = randomUUID();
      const outcome = await app.call<{ traceId: string; sessionId: string }>('tools.call', {
        name: 'echo',
        serverId: 'up',
        args: { text: `gui ${protocol}` },
        callId,
      });
      const span = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === outcome.traceId);
      expect(span.encoding).toBe(protocol === 'http/json' ? 'json' : 'protobuf');
      expect(span.name).toBe('tools/call echo');
      expect(span.kind).toBe(SPAN_KIND.client);
      expect(span.parentSpanId).toBeUndefined();
      expect(span.resource['service.name']).toBe('mh-test');
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
        'server.address': '127.0.0.1',
        'miniharness.permission.decision': 'allow',
        'miniharness.permission.kind': 'rule',
        'miniharness.approval.by': 'rule',
        'miniharness.call.execution': 'execution',
        'miniharness.call.outcome': 'ok',
        'miniharness.checkpoint.call_id': callId,
        'miniharness.checkpoint.session_id': outcome.sessionId,
        'miniharness.checkpoint.claim': 'owner',
      });
      expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      // The JSON-RPC id of the tools/call request MiniHarness sent (read off the wire).
      expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
      // mcp.client.operation.duration: a histogram in seconds with the conventions' buckets and attributes.
      const point = await receiver.waitForPoint(
        (p) =>
          p.metric === 'mcp.client.operation.duration' &&
          p.attributes['gen_ai.tool.name'] === 'echo' &&
          p.encoding === span.encoding,
      );
      expect(point.unit).toBe('s');
      expect(point.count).toBeGreaterThanOrEqual(1);
      expect(point.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      expect(point.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
        'server.address': '127.0.0.1',
      });
      // No ids or sessions on a metric (cardinality).
      expect(Object.keys(point.attributes).filter((k) => k.startsWith('miniharness.') || k.includes('id'))).toEqual([]);
      expect(receiver.requests.some((r) => r.headers['x-collector-key'] === 'collector-secret-value')).toBe(true);
      // The server received this span's context in _meta.
      const received = serverEvents(events).filter((e) => e.traceparent);
      expect(received.at(-1)?.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
      // The collector got the configured header (its value from the secret store).
      expect(receiver.requests.at(-1)?.headers['x-collector-key']).toBe('collector-secret-value');
      // The Traces view's link.
      const link = await app.call<{ externalTraceId?: string; url?: string }>('observability.traceLink', {
        traceId: outcome.traceId,
      });
      expect(link).toEqual({ externalTraceId: span.traceId, url: `http://jaeger.test/trace/${span.traceId}` });

      // A replay of that call from History: nothing ran, and the span says so.
      const replay = await app.call<{ traceId: string }>('history.replay', { sessionId: outcome.sessionId, callId });
      const replayed = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === replay.traceId);
      expect(replayed.attributes).toMatchObject({
        'miniharness.call.execution': 'replay',
        'miniharness.call.outcome': 'replayed',
        'miniharness.checkpoint.claim': 'replay',
        'miniharness.checkpoint.call_id': callId,
      });
    });
  });

  describe('agents through the gateway', () => {
    beforeAll(async () => {
      await app.call('observability.set', settings(receiver, 'http/json'));
    });

    async function agentCall(
      era: 'modern' | 'legacy',
      meta: Record<string, string> | undefined,
      headers: Record<string, string> = {},
    ): Promise<{ server: ReceivedSpan; call: ReceivedSpan }> {
      const marker = `${era}-${randomUUID()}`;
      const client =
        era === 'modern' ? await connectModernAgent(app.url, token) : await legacyAgent(app.url, token, headers);
      try {
        const result = (await client.callTool({
          name: 'up__echo',
          arguments: { text: marker },
          ...(meta ? { _meta: meta } : {}),
        })) as { _meta?: Record<string, unknown> };
        const traceId = result._meta?.['io.miniharness/traceId'];
        const call = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === traceId);
        const server = await receiver.waitFor((s) => s.spanId === call.parentSpanId);
        return { server, call };
      } finally {
        await client.close();
      }
    }

    it.each(['modern', 'legacy'] as const)(
      'the %s era, without a traceparent: a SERVER span starts the trace, the call under it',
      async (era) => {
        const { server, call } = await agentCall(era, undefined);
        expect(server.kind).toBe(SPAN_KIND.server);
        expect(server.name).toBe('tools/call up__echo');
        expect(server.parentSpanId).toBeUndefined();
        expect(server.attributes).toMatchObject({
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'up__echo',
          'miniharness.gateway.era': era === 'modern' ? '2026-07-28' : '2025',
          'miniharness.caller': 'Traced Agent',
          'jsonrpc.request.id': expect.any(String),
        });
        if (era === 'legacy') expect(server.attributes['mcp.session.id']).toEqual(expect.any(String));
        else expect(server.attributes['mcp.protocol.version']).toBe('2026-07-28');
        expect(call.traceId).toBe(server.traceId);
        expect(call.kind).toBe(SPAN_KIND.client);
        const point = await receiver.waitForPoint(
          (p) => p.metric === 'mcp.server.operation.duration' && p.attributes['gen_ai.tool.name'] === 'up__echo',
        );
        expect(point).toMatchObject({ unit: 's', attributes: { 'mcp.method.name': 'tools/call' } });
      },
    );

    it.each([
      ['modern', 'server/discover', '2026-07-28'],
      ['legacy', 'initialize', '2025'],
      ['legacy', 'ping', '2025'],
    ] as const)(
      'the %s era: a request the SDK answers itself (%s) is a SERVER span too',
      async (era, method, label) => {
        const client =
          era === 'modern' ? await connectModernAgent(app.url, token) : await legacyAgent(app.url, token, {});
        try {
          // 2026-07-28 has no ping; a 2025 agent pings.
          if (method === 'ping') await (client as Client).ping();
        } finally {
          await client.close();
        }
        const span = await receiver.waitFor(
          (s) => s.name === method && s.attributes['miniharness.gateway.era'] === label,
        );
        expect(span.kind).toBe(SPAN_KIND.server);
        expect(span.attributes).toMatchObject({ 'mcp.method.name': method, 'jsonrpc.request.id': expect.any(String) });
        await receiver.waitForPoint(
          (p) => p.metric === 'mcp.server.operation.duration' && p.attributes['mcp.method.name'] === method,
        );
      },
    );

    it('the 2026-07-28 era continues the agent’s traceparent from params._meta', async () => {
      const { server, call } = await agentCall('modern', { traceparent: `00-${AGENT_TRACE}-${AGENT_SPAN}-01` });
      expect(server.traceId).toBe(AGENT_TRACE);
      expect(server.parentSpanId).toBe(AGENT_SPAN);
      expect(call.traceId).toBe(AGENT_TRACE);
    });

    it('the 2025 era continues the agent’s traceparent from the HTTP header', async () => {
      const { server } = await agentCall('legacy', undefined, { traceparent: `00-${AGENT_TRACE}-${AGENT_SPAN}-01` });
      expect(server.traceId).toBe(AGENT_TRACE);
      expect(server.parentSpanId).toBe(AGENT_SPAN);
    });
  });

  it('a call the person approves: who approved, their answer and how long they took', async () => {
    await app.call('observability.set', settings(receiver, 'http/json'));
    await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ASK' });
    try {
      const callId = randomUUID();
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { text?: string }).text === callId,
      );
      const call = app.call<{ traceId: string }>('tools.call', {
        name: 'echo',
        serverId: 'up',
        args: { text: callId },
        callId,
      });
      await app.call('approvals.answer', { requestId: (await asked).requestId, answer: 'allow-once' });
      const { traceId } = await call;
      const span = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === traceId);
      expect(span.attributes).toMatchObject({
        'miniharness.permission.decision': 'ask',
        'miniharness.approval.by': 'person',
        'miniharness.approval.answer': 'allow-once',
        'miniharness.call.execution': 'execution',
      });
      expect(span.attributes['miniharness.approval.wait_ms']).toEqual(expect.any(Number));
      expect(span.events.map((e) => e.name)).toContain('miniharness.approval');
    } finally {
      await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ALLOW' });
    }
  });

  it('an agent run: invoke_agent, a chat span per model request with its tokens, the tool call under the run', async () => {
    await app.call('observability.set', settings(receiver, 'http/protobuf'));
    await app.call('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: 'sk-otel-test-key-123456',
    });
    const started = await app.call<RunView>('runs.start', {
      modelId: 'loop',
      visibility: { allServers: false, serverIds: ['up'], localTools: false },
      prompt: 'echo from-run',
    });
    await app.nextEvent<{ id: string; run?: RunView }>(
      'runs.changed',
      (p) => p.id === started.id && p.run?.status === 'completed',
    );
    const run = await receiver.waitFor((s) => s.attributes['gen_ai.agent.id'] === started.id);
    expect(run.name).toBe('invoke_agent Loopback');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
    });
    const chat = await receiver.waitFor(
      (s) =>
        s.parentSpanId === run.spanId &&
        s.name === 'chat loopback-model' &&
        s.attributes['gen_ai.usage.input_tokens'] === 11,
    );
    expect(chat.kind).toBe(SPAN_KIND.client);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'loopback-model',
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    await receiver.waitFor((s) => s.parentSpanId === run.spanId && s.attributes['gen_ai.usage.input_tokens'] === 20);
    const tool = await receiver.waitFor((s) => s.parentSpanId === run.spanId && s.name === 'tools/call echo');
    expect(tool.attributes).toMatchObject({
      'miniharness.checkpoint.call_id': 'toolu_otel1',
      'miniharness.checkpoint.session_id': started.id,
    });
    expect(JSON.stringify(receiver.spans)).not.toContain('sk-otel-test-key-123456');
  });

  it('opt-in payloads: arguments and result on the span, capped', async () => {
    await app.call('observability.set', settings(receiver, 'http/json', { exportPayloads: true }));
    const text = `payload ${'x'.repeat(5000)}`;
    const { traceId } = await app.call<{ traceId: string }>('tools.call', {
      name: 'echo',
      serverId: 'up',
      args: { text },
      callId: randomUUID(),
    });
    const span = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === traceId);
    const args = span.attributes['gen_ai.tool.call.arguments'] as string;
    expect(args.startsWith('{"text":"payload xxx')).toBe(true);
    expect(args.endsWith('…(truncated)')).toBe(true);
    expect(args.length).toBeLessThan(4200);
    expect(span.attributes['gen_ai.tool.call.result']).toEqual(expect.any(String));
  });

  it('a stored secret a tool echoes is exported redacted with payloads on, and no payload at all with them off', async () => {
    const secret = 'sk-live-otel-payload-secret-9f3c';
    // The secret is stored (a server's bearer token): from then on the app's redactor knows its value.
    await saveServerListed(
      app,
      {
        id: 'sec',
        name: 'With a secret',
        transport: 'streamable_http',
        url: upstream.url,
        auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
      },
      { 'auth.token': secret },
    );
    const call = async (exportPayloads: boolean) => {
      await app.call('observability.set', settings(receiver, 'http/json', { exportPayloads }));
      const { traceId } = await app.call<{ traceId: string }>('tools.call', {
        name: 'echo',
        serverId: 'up',
        args: { text: `the key is ${secret}` },
        callId: randomUUID(),
      });
      return receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === traceId);
    };
    const on = await call(true);
    expect(on.attributes['gen_ai.tool.call.arguments']).toContain('the key is [redacted]');
    expect(on.attributes['gen_ai.tool.call.result']).toContain('[redacted]');
    expect(JSON.stringify(on)).not.toContain(secret);
    const off = await call(false);
    expect(off.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(off.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(JSON.stringify(off)).not.toContain('the key is');
    expect(JSON.stringify(receiver.spans)).not.toContain(secret);
  });

  it('a denial: the span says who decided (a DENY rule) and that nothing ran', async () => {
    await app.call('observability.set', settings(receiver, 'http/json'));
    await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'DENY' });
    try {
      const callId = randomUUID();
      const denied = await app.core.dispatch('tools.call', {
        name: 'echo',
        serverId: 'up',
        args: { text: 'no' },
        callId,
      });
      expect(denied.ok).toBe(false);
      const span = await receiver.waitFor(
        (s) => s.attributes['miniharness.checkpoint.call_id'] === callId && s.name === 'tools/call echo',
      );
      expect(span.attributes).toMatchObject({
        'miniharness.permission.decision': 'deny',
        'miniharness.permission.kind': 'rule',
        'miniharness.approval.by': 'nobody',
        'miniharness.call.execution': 'none',
        'miniharness.call.outcome': 'denied',
      });
      expect(span.attributes['error.type']).toEqual(expect.any(String));
      expect(span.status.code).toBe(2);
    } finally {
      await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ALLOW' });
    }
  });

  it('"Send a test span" says what the collector answered', async () => {
    await app.call('observability.set', settings(receiver, 'http/protobuf'));
    const ok = await app.call<{ ok: boolean; message: string; traceId: string }>('observability.test');
    expect(ok.ok).toBe(true);
    await receiver.waitFor((s) => s.traceId === ok.traceId && s.name === 'miniharness test span');
    receiver.mode = 'error500';
    try {
      const refused = await app.call<{ ok: boolean; message: string }>('observability.test');
      expect(refused).toMatchObject({ ok: false });
      expect(refused.message).toContain('500');
      expect(refused.message).not.toContain('collector-secret-value');
    } finally {
      receiver.mode = 'ok';
    }
  });
});
