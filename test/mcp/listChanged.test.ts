/**
 * `notifications/tools/list_changed`: the server is listed again and its tools replaced
 * wholesale — a tool it added is callable through `executeTool`, one it removed is refused — with
 * a real stdio server and the whole pipeline; and the re-list waits for a discovery in flight
 * (a fake client here, to hold the discovery open deterministically).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPUnknownToolError } from '../../electron/mcp/errors.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import type { RegistryEvent } from '../../electron/mcp/registry.js';
import { CacheAccess } from '../../electron/mcp/registry/cacheAccess.js';
import { LiveLists } from '../../electron/mcp/registry/liveLists.js';
import { RegistryState } from '../../electron/mcp/registry/state.js';
import type { ListKind, NegotiatedInfo, ToolClient, ToolDescriptor } from '../../electron/mcp/types.js';
import type { TestHarness } from '../harness/harness.js';
import { buildHarness } from '../harness/harness.js';
import { countEvents, scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';

/** Resolves with the first tools event after which `match` holds. */
function toolsEvent(h: TestHarness, match: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = h.registry.subscribe((event: RegistryEvent) => {
      if (event.type === 'tools' && match()) {
        unsubscribe();
        resolve();
      }
    });
  });
}

describe('tools list_changed against a real server', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let h: TestHarness;
  let calls = 0;
  const ids = () => ({ userId: 'tester', sessionId: 'list-changed', callId: `call-${++calls}` });

  beforeEach(async () => {
    scratch = scratchDir();
    h = await buildHarness({ dir: scratch.dir });
    h.approver.answer = 'allow-once';
    h.registry.addServer(
      stdioFixtureConfig('fx', {
        FIXTURE_EVENTS: join(scratch.dir, 'events.jsonl'),
        FIXTURE_TOOLS: 'echo,change_tools',
      }),
    );
    await h.registry.discover();
  });
  afterEach(async () => {
    await h.close();
    scratch.cleanup();
  });

  it('a tool the server added becomes callable, and one it removed is refused', async () => {
    expect(h.registry.resolve('added_one')).toBeUndefined();
    await expect(h.harness.executeTool('added_one', { text: 'too early' }, ids())).rejects.toThrow();

    const changed = toolsEvent(h, () => h.registry.resolve('added_one') !== undefined);
    await h.harness.executeTool('change_tools', { add: 'added_one', remove: 'echo' }, ids());
    await changed;

    // Replaced wholesale: the added tool is in, the removed one is out.
    expect(
      h.registry
        .allTools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['added_one', 'change_tools']);
    const outcome = await h.harness.executeTool('added_one', { text: 'hi' }, ids());
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'added_one ran: hi' }]);
    await expect(h.registry.callServerTool('fx', 'echo', { text: 'gone' })).rejects.toBeInstanceOf(MCPUnknownToolError);
    expect(h.harness.listTools().some((t) => t.name === 'added_one' && t.serverId === 'fx')).toBe(true);
    expect(countEvents(join(scratch.dir, 'events.jsonl'), 'tools/list')).toBeGreaterThanOrEqual(2);
    expect(
      h.registry
        .logOf('fx')
        .all()
        .some((l) => /tools changed: 2 tools now/.test(l.text)),
    ).toBe(true);
  });
});

/** A client whose tool list and list_changed notifications the test drives. */
class ScriptedClient implements ToolClient {
  readonly serverId = 'fake';
  readonly state = 'ready' as const;
  readonly negotiated: NegotiatedInfo | undefined = undefined;
  readonly log = new LogBuffer();
  tools: ToolDescriptor[] = [];
  listCalls = 0;
  private readonly listeners = new Map<ListKind, () => void>();

  initialize(): Promise<NegotiatedInfo> {
    return Promise.reject(new Error('not used'));
  }
  listTools(): Promise<ToolDescriptor[]> {
    this.listCalls++;
    return Promise.resolve(this.tools);
  }
  callTool(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  onDisconnect(): () => void {
    return () => undefined;
  }
  onListChanged(kind: ListKind, listener: () => void): () => void {
    this.listeners.set(kind, listener);
    return () => this.listeners.delete(kind);
  }
  notify(kind: ListKind): void {
    this.listeners.get(kind)?.();
  }
}

describe('LiveLists', () => {
  it('waits for a discovery in flight, then re-lists once for notifications that came meanwhile', async () => {
    const state = new RegistryState();
    const client = new ScriptedClient();
    const config = stdioFixtureConfig('fake');
    state.entries.set('fake', {
      config,
      generation: 0,
      status: { state: 'ready' },
      log: client.log,
      connection: { client, fingerprint: 'f', ready: Promise.resolve() },
    });
    let endDiscovery!: () => void;
    const discovery = new Promise<void>((resolve) => (endDiscovery = resolve));
    const live = new LiveLists(state, new CacheAccess(state, undefined), () => discovery);
    live.watch(client);
    let replacements = 0;
    const twoReplacements = new Promise<void>((resolve) =>
      state.subscribe((event) => {
        if (event.type === 'tools' && ++replacements === 2) resolve();
      }),
    );

    client.tools = [{ name: 'fresh', inputSchema: { type: 'object' } }];
    client.notify('tools');
    client.notify('tools');
    client.notify('tools');
    // Nothing is listed while the discovery (which replaces the whole map) runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.listCalls).toBe(0);

    endDiscovery();
    // The first notification's re-list, and one more for the two that came while it waited.
    await twoReplacements;
    expect(state.toolMap.get('fake')?.tools.map((t) => t.name)).toEqual(['fresh']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.listCalls).toBe(2);
  });

  it('ignores a client that no longer holds its server’s connection', async () => {
    const state = new RegistryState();
    const stale = new ScriptedClient();
    const current = new ScriptedClient();
    state.entries.set('fake', {
      config: stdioFixtureConfig('fake'),
      generation: 0,
      status: { state: 'ready' },
      log: current.log,
      connection: { client: current, fingerprint: 'f', ready: Promise.resolve() },
    });
    const live = new LiveLists(state, new CacheAccess(state, undefined), () => undefined);
    live.watch(stale);
    stale.notify('tools');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stale.listCalls).toBe(0);
    expect(state.toolMap.has('fake')).toBe(false);
  });
});
