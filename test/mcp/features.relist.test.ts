/**
 * Re-listing is serialized: a list_changed that arrives while that list is being fetched does not
 * start a second listing beside it; the one in flight lists once more when it ends, and the kept
 * list is replaced whole by the last answer. Driven step by step over the v2 SDK's linked in-memory
 * transports (a real SDK client and server; the test holds the server's answer until it has
 * sent its notifications), through a client double that gives the registry that SDK client.
 */
import type { Resource } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { afterEach, expect, it } from 'vitest';
import type { FeatureClient, SdkRequestOptions } from '../../electron/mcp/features/types.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import type { FeatureEvent } from '../../electron/mcp/registry.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import type { ClientState, ListKind, NegotiatedInfo, ToolClient } from '../../electron/mcp/types.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { testSandboxes } from '../helpers/sandboxes.js';

/** A client double: the registry's ToolClient and FeatureClient over a real SDK client in memory. */
class InMemoryFeatureClient implements ToolClient, FeatureClient {
  readonly serverId: string;
  readonly log = new LogBuffer();
  state: ClientState = 'new';
  negotiated: NegotiatedInfo | undefined;
  private readonly sdk = new Client({ name: 'test', version: '1' });

  constructor(
    config: ServerConfig,
    private readonly server: Server,
  ) {
    this.serverId = config.id;
  }

  async initialize(): Promise<NegotiatedInfo> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await this.server.connect(serverSide);
    await this.sdk.connect(clientSide);
    this.state = 'ready';
    const negotiated: NegotiatedInfo = {
      era: 'legacy',
      verdictSource: 'pinned',
      protocolVersion: 'in-memory',
      capabilities: this.sdk.getServerCapabilities() ?? {},
      serverInfo: this.sdk.getServerVersion()!,
      instructions: undefined,
      timings: { initializeMs: 0, readyAt: Date.now() },
    };
    this.negotiated = negotiated;
    return negotiated;
  }
  listTools = () => Promise.resolve([]);
  callTool = () => Promise.reject(new Error('no tools here'));
  onDisconnect = () => () => undefined;
  async close(): Promise<void> {
    this.state = 'closed';
    await this.sdk.close();
  }
  featureRequest<T>(_operation: string, run: (sdk: Client, options: SdkRequestOptions) => Promise<T>): Promise<T> {
    return run(this.sdk, { timeout: 5_000 });
  }
  attachFeatureHandlers(install: (sdk: Client) => void): void {
    install(this.sdk);
  }
  /** As MCPClient: the registry hears of list changes through the client's hook. */
  onListChanged(kind: ListKind, listener: () => void): () => void {
    this.sdk.setNotificationHandler(`notifications/${kind}/list_changed`, () => listener());
    return () => undefined;
  }
}

let registry: MCPToolRegistry | undefined;
afterEach(async () => {
  await registry?.close();
});

it('a change during a listing makes that listing run once more, never a second one beside it', async () => {
  const server = new Server({ name: 'relist', version: '1' }, { capabilities: { resources: { listChanged: true } } });
  let items: Resource[] = [{ uri: 'mem://a', name: 'a' }];
  const listCalls: number[] = [];
  let release: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
  server.setRequestHandler('resources/list', async () => {
    const answer = items; // as the list was when the request arrived
    listCalls.push(answer.length);
    if (listCalls.length === 2) {
      // The listing after the first change: held until the test has sent more changes.
      arrived?.();
      await new Promise<void>((resolve) => (release = resolve));
    }
    return { resources: answer };
  });
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));

  registry = new MCPToolRegistry({
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    clientFactory: (config) => new InMemoryFeatureClient(config, server),
  });
  registry.addServer({ id: 'mem', name: 'Memory', transport: 'stdio', command: 'unused' });
  await registry.connect('mem');
  const announced: FeatureEvent[] = [];
  registry.features.subscribe((event) => {
    if (event.type === 'resources') announced.push(event);
  });
  expect((await registry.features.resources('mem')).resources.items.map((r) => r.uri)).toEqual(['mem://a']);

  // First change: a listing starts and is held by the server.
  items = [...items, { uri: 'mem://b', name: 'b' }];
  await server.sendResourceListChanged();
  await firstArrived;
  // Two more changes while it is held: no listing beside it.
  items = [...items, { uri: 'mem://c', name: 'c' }];
  await server.sendResourceListChanged();
  await server.sendResourceListChanged();
  expect(listCalls).toHaveLength(2);
  const done = new Promise<void>((resolve) => {
    const stop = registry!.features.subscribe((event) => {
      if (event.type !== 'resources') return;
      stop();
      resolve();
    });
  });
  release?.();
  await done;

  // The held listing, then exactly one more; one announcement; the kept list is the last answer.
  expect(listCalls).toEqual([1, 2, 3]);
  expect(announced).toHaveLength(1);
  expect((await registry.features.resources('mem')).resources.items.map((r) => r.uri)).toEqual([
    'mem://a',
    'mem://b',
    'mem://c',
  ]);
  expect(listCalls).toHaveLength(3);
});
