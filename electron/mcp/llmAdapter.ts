/**
 * Turns the registry's tools into model tool definitions (OpenAI and Anthropic shapes).
 *
 * Model APIs restrict tool names (OpenAI: ^[a-zA-Z0-9_-]{1,64}$); MCP names may hold dots,
 * slashes or be longer. Names are sanitized and made unique, and the mapping back to the MCP
 * name is returned so a model's call can be routed. An MCP App's app-only tools are left out.
 */
import { readToolUi, visibleToModel } from './toolUi.js';
import type { RegisteredTool } from './registry.js';

export interface OpenAIToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface AdaptedTools<T> {
  definitions: T[];
  /** Model-facing name → the MCP tool it stands for. */
  toolFor: Map<string, RegisteredTool>;
}

const MAX_NAME = 64;

function sanitize(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_NAME);
  return cleaned || 'tool';
}

function uniqueNames(tools: RegisteredTool[]): Array<[string, RegisteredTool]> {
  const used = new Set<string>();
  // An MCP App's app-only tool (`_meta.ui.visibility: ["app"]`) is never offered to a model.
  return tools
    .filter((tool) => visibleToModel(readToolUi(tool.tool._meta).app))
    .map((tool) => {
      const base = sanitize(tool.name);
      let name = base;
      for (let n = 2; used.has(name); n++) {
        const suffix = `_${n}`;
        name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
      }
      used.add(name);
      return [name, tool];
    });
}

function describe(tool: RegisteredTool): string {
  const { description, title, annotations } = tool.tool;
  return description ?? title ?? annotations?.title ?? `Tool ${tool.name} of server ${tool.serverId}`;
}

/** The input schema as a model expects it: always an object schema. */
function parametersOf(tool: RegisteredTool): Record<string, unknown> {
  const schema = { ...(tool.tool.inputSchema as Record<string, unknown>) };
  schema.type = 'object';
  schema.properties ??= {};
  return schema;
}

export function toOpenAITools(tools: RegisteredTool[]): AdaptedTools<OpenAIToolDefinition> {
  const named = uniqueNames(tools);
  return {
    definitions: named.map(([name, tool]) => ({
      type: 'function',
      function: { name, description: describe(tool), parameters: parametersOf(tool) },
    })),
    toolFor: new Map(named),
  };
}

export function toAnthropicTools(tools: RegisteredTool[]): AdaptedTools<AnthropicToolDefinition> {
  const named = uniqueNames(tools);
  return {
    definitions: named.map(([name, tool]) => ({ name, description: describe(tool), input_schema: parametersOf(tool) })),
    toolFor: new Map(named),
  };
}
