/**
 * What a server says about itself — tool descriptors (title, description, annotations, input and
 * output schemas), resources, resource templates, prompts, progress messages, the questions it
 * asks the caller of a tool call — with every known secret value (a stored secret or an
 * environment secret the app resolved, an OAuth token: the app's SecretRedactor, secrets/)
 * replaced by '[redacted]'. The registry applies it where that text enters (its tool map, the
 * schema cache file, its resource and prompt lists, a call's progress), so the GUI, the gateway's
 * agents and the disk all get the redacted text.
 *
 * Only string *values* change: keys are never rewritten, nor the identifiers callers address
 * things by — a tool's or prompt's `name`, a prompt argument's `name`, a resource's `uri`, a
 * template's `uriTemplate`, the property names a JSON Schema's `required` / `dependentRequired`
 * list — so a redacted schema still validates the same arguments. A descriptor whose identifier
 * or schema key holds a known secret cannot be redacted without breaking every call that uses it:
 * it is left out of the list (a tool, resource, template or prompt only a hostile or careless
 * server would name so).
 *
 * Returns its input itself when nothing was replaced (the common case allocates nothing).
 */
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { SecretSet } from '../secrets/redaction.js';
import { replaceSecrets as replace } from '../secrets/redaction.js';
import type { ProgressUpdate } from './types.js';

/** JSON Schema keywords whose strings name properties (keys elsewhere): never rewritten. */
const PROPERTY_NAME_LISTS = new Set(['required', 'dependentRequired']);

export class DescriptorRedaction {
  constructor(private readonly secrets: SecretSet | undefined) {}

  /** Changes when a secret is added: anything redacted before may need it again. */
  get version(): number {
    return this.secrets?.version ?? 0;
  }

  text(value: string): string {
    return replace(value, this.list());
  }

  tool(tool: Tool): Tool {
    const secrets = this.list();
    if (secrets.length === 0) return tool;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(tool)) {
      const next =
        key === 'name'
          ? value
          : key === 'inputSchema' || key === 'outputSchema'
            ? strings(value, secrets, true)
            : strings(value, secrets, false);
      if (next !== value) changed = true;
      define(out, key, next);
    }
    return changed ? (out as Tool) : tool;
  }

  tools(tools: Tool[]): Tool[] {
    return this.each(
      tools,
      (tool) => this.tool(tool),
      (tool) => [tool.name, ...keysOf(tool.inputSchema), ...keysOf(tool.outputSchema)],
    );
  }

  resource(resource: Resource): Resource {
    return this.keeping(resource, ['uri']);
  }

  template(template: ResourceTemplateType): ResourceTemplateType {
    return this.keeping(template, ['uriTemplate']);
  }

  prompt(prompt: Prompt): Prompt {
    const kept = this.keeping(prompt, ['name', 'arguments']);
    if (!prompt.arguments) return kept;
    const args = mapSame(prompt.arguments, (argument) => this.keeping(argument, ['name']));
    return args === prompt.arguments ? kept : { ...kept, arguments: args };
  }

  /** A progress update with its message redacted (the numbers are the server's own). */
  progress(update: ProgressUpdate): ProgressUpdate {
    if (update.message === undefined) return update;
    const message = this.text(update.message);
    return message === update.message ? update : { ...update, message };
  }

  /**
   * Any other server-made JSON (a question a server asks during a call: its message, its
   * requested schema, sampling messages): string values redacted, keys and `required` lists kept.
   */
  values<T>(value: T): T {
    const secrets = this.list();
    return secrets.length === 0 ? value : (strings(value, secrets, true) as T);
  }

  /**
   * Each item through `redactOne`, the same array when none changed; an item one of whose
   * `identifiers` holds a known secret is left out (it cannot be renamed without breaking calls).
   */
  each<T>(items: T[], redactOne: (item: T) => T, identifiers?: (item: T) => Iterable<string>): T[] {
    const secrets = this.list();
    if (secrets.length === 0) return items;
    const holdsSecret = (item: T): boolean => {
      for (const id of identifiers?.(item) ?? []) if (secrets.some((secret) => id.includes(secret))) return true;
      return false;
    };
    const kept = identifiers && items.some(holdsSecret) ? items.filter((item) => !holdsSecret(item)) : items;
    return mapSame(kept, redactOne);
  }

  private list(): readonly string[] {
    return this.secrets?.prepared ?? [];
  }

  /** `value`'s strings redacted except the fields named in `kept`. */
  private keeping<T extends object>(value: T, kept: readonly string[]): T {
    const secrets = this.list();
    if (secrets.length === 0) return value;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const next = kept.includes(key) ? item : strings(item, secrets, false);
      if (next !== item) changed = true;
      define(out, key, next);
    }
    return changed ? (out as T) : value;
  }
}

/** defineProperty: a "__proto__" key must stay a key, not set the copy's prototype. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** What callers address a resource, a template or a prompt by (its arguments' names too): kept as is, so never holding a secret. */
export const resourceIds = (resource: Resource): string[] => [resource.uri];
export const templateIds = (template: ResourceTemplateType): string[] => [template.uriTemplate];
export const promptIds = (prompt: Prompt): string[] => [
  prompt.name,
  ...(prompt.arguments ?? []).map((argument) => argument.name),
];

/** Every key of plain JSON data (a schema's property names among them), to a bounded depth. */
function keysOf(value: unknown, depth = 0): string[] {
  if (value === null || typeof value !== 'object' || depth > 64) return [];
  if (Array.isArray(value)) return value.flatMap((item) => keysOf(item, depth + 1));
  return Object.entries(value).flatMap(([key, item]) => [key, ...keysOf(item, depth + 1)]);
}

function mapSame<T>(items: T[], f: (item: T) => T): T[] {
  let copy: T[] | undefined;
  items.forEach((item, i) => {
    const next = f(item);
    if (next !== item) (copy ??= [...items])[i] = next;
  });
  return copy ?? items;
}

/**
 * Every string value of plain JSON data redacted, keys kept; `schema`: the data is a JSON Schema,
 * whose property-name lists are kept too. The input itself when nothing changed.
 */
function strings(value: unknown, secrets: readonly string[], schema: boolean, depth = 0): unknown {
  if (typeof value === 'string') return replace(value, secrets);
  // Descriptors come parsed from JSON (no cycles); the depth bound only guards a pathological one.
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  if (Array.isArray(value)) return mapSame(value as unknown[], (item) => strings(item, secrets, schema, depth + 1));
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const next = schema && PROPERTY_NAME_LISTS.has(key) ? item : strings(item, secrets, schema, depth + 1);
    if (next !== item) changed = true;
    define(out, key, next);
  }
  return changed ? out : value;
}
