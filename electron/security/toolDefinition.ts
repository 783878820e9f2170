/**
 * A tool's definition as it is pinned (issue 31): the parts of a listing that change what the
 * model is told or what a call does — name, title, description, input and output schema,
 * annotations, the MCP App declaration (`_meta.ui`) and `execution` (the tasks extension) — and
 * its canonical hash. Icons and other `_meta` keys are left out: they change neither.
 */
import { canonicalJson, hashCanonicalJson } from '../util/stableHash.js';

export interface ToolDefinition {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
  ui: unknown;
  execution: unknown;
}

/** What a listed tool (an MCP `Tool`, or a local tool) has of a definition. */
export interface DefinableTool {
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  _meta?: Record<string, unknown> | undefined;
  execution?: unknown;
}

export interface HashedDefinition {
  definition: ToolDefinition;
  /** `sha256:` + hex of the definition's canonical JSON (keys sorted at every depth). */
  hash: string;
}

function definitionOf(name: string, tool: DefinableTool): ToolDefinition {
  const meta = tool._meta;
  return {
    name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
    ui: meta && typeof meta === 'object' && Object.hasOwn(meta, 'ui') ? (meta.ui ?? null) : null,
    execution: tool.execution ?? null,
  };
}

/** Hashes a definition. */
function hashDefinition(definition: ToolDefinition): string {
  return `sha256:${hashCanonicalJson(canonicalJson(definition) ?? 'null')}`;
}

/**
 * A listed descriptor is a snapshot (a new listing makes new objects), so each is hashed once
 * and the per-call check is a WeakMap lookup and a string compare.
 */
const hashed = new WeakMap<object, HashedDefinition>();

export function hashedDefinition(name: string, tool: DefinableTool): HashedDefinition {
  const known = hashed.get(tool);
  if (known?.definition.name === name) return known;
  const definition = definitionOf(name, tool);
  const entry = { definition, hash: hashDefinition(definition) };
  hashed.set(tool, entry);
  return entry;
}
