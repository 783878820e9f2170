/**
 * App-only tools (`_meta.ui.visibility: ["app"]`) never reach a model: with the apps fixture's
 * real tool list (a stdio subprocess), the LLM adapter's OpenAI and Anthropic definitions and an
 * agent run's tool set leave `bump` out and keep the rest, `model_only` included.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOf } from '../../electron/mcp/toolUi.js';
import type { HarnessToolInfo } from '../../electron/harness/application.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { toAnthropicTools, toOpenAITools } from '../../electron/mcp/llmAdapter.js';
import type { RegisteredTool } from '../../electron/mcp/registry.js';
import type { ToolDescriptor } from '../../electron/mcp/types.js';
import { visibleTools } from '../../electron/runs/runTools.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import { scratchDir } from '../helpers/fixtures.js';
import { appsServerConfig, buildAppsFixture } from '../doubles/servers/appsPeer.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const scratch = scratchDir('mh-apps-model-');
let client: MCPClient;
let listed: ToolDescriptor[];

beforeAll(async () => {
  await buildAppsFixture();
  client = new MCPClient(ServerConfigSchema.parse(appsServerConfig('apps', join(scratch.dir, 'events.jsonl'))), {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
  });
  await client.initialize();
  listed = await client.listTools();
}, 60_000);

afterAll(async () => {
  await client?.close();
  scratch.cleanup();
});

describe('the model’s tool list', () => {
  it('the LLM adapter leaves app-only tools out (both providers)', () => {
    const registered: RegisteredTool[] = listed.map((tool) => ({
      name: tool.name,
      serverId: 'apps',
      priority: 0,
      tool,
    }));
    expect(registered.map((t) => t.name)).toContain('bump');
    const openai = toOpenAITools(registered).definitions.map((d) => d.function.name);
    const anthropic = toAnthropicTools(registered).definitions.map((d) => d.name);
    for (const names of [openai, anthropic]) {
      expect(names).not.toContain('bump');
      expect(names).toEqual(expect.arrayContaining(['show_counter', 'model_only', 'broken_ui']));
    }
  });

  it('an agent run’s tool set leaves them out, and cannot route a call to one', () => {
    const infos: HarnessToolInfo[] = listed.map((tool) => ({
      name: tool.name,
      source: 'mcp',
      serverId: 'apps',
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: undefined,
      annotations: undefined,
      shadowedBy: undefined,
      schemaFingerprint: tool.name,
      ...appOf(tool),
    }));
    const set = visibleTools(infos, { allServers: true, serverIds: [], localTools: false });
    expect(set.tools.map((t) => t.name)).not.toContain('bump');
    expect(set.tools.map((t) => t.name)).toContain('show_counter');
    expect([...set.route.values()].map((r) => r.toolName)).not.toContain('bump');
  });
});
