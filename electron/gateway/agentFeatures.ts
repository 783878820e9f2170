/**
 * Resources and prompts through the gateway, read-only: an agent lists the resources, templates
 * and prompts of the servers it may see, reads a resource and gets a prompt. Each read or get is
 * a use like a tool call: the permission engine decides it (as the pseudo-tool `resources/read`
 * or `prompts/get` of that server, read-only — ASK brings the person's approval, naming the
 * agent) and it is traced under the agent's name. Subscriptions stay the GUI's.
 *
 * Names: prompts are named `<server>__<prompt>` like tools (an agent that keeps own names sees
 * a prompt's own name by the same rule as tools, toolNames.ts `ownNames`). Resources keep their URIs (they are
 * addresses; the server is in `_meta["io.miniharness/server"]`) — unless several of the servers
 * an agent sees list the same URI: then that URI is listed once per server, as
 * `miniharness://server/<server id>/<URI>` (the server's URI in `_meta["io.miniharness/uri"]`),
 * and a template listed by several servers likewise (`miniharness://server/<server id>/<template>`).
 * A read of such a namespaced URI goes to the server it names, with the server's own URI (and the
 * contents come back under the URI the agent asked for); a read of a bare URI that several
 * servers list (or, unlisted, whose templates several servers match) is refused with the
 * namespaced URIs to use instead. A URI only one server offers reads as before.
 */
import type {
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { UriTemplate } from '@modelcontextprotocol/server';
import type { AgentVisibility, GatewayToolName } from '../../shared/agents.js';
import type { CompletionRequest } from '../mcp/features/prompts.js';
import type { CallServerRequestHandlers } from '../mcp/types.js';
import { isVisible } from './catalog.js';
import { nameTools, ownNames } from './toolNames.js';

const META_SERVER = 'io.miniharness/server';
/** On a namespaced resource: the URI (or template) its server gave it. */
const META_URI = 'io.miniharness/uri';
/** How a resource URI several servers offer is named for agents: this, the server id, '/', the URI. */
const SERVER_URI_PREFIX = 'miniharness://server/';

/** `uri` of `serverId`, as agents see it when another server offers the same URI. */
function namespacedUri(serverId: string, uri: string): string {
  return `${SERVER_URI_PREFIX}${serverId}/${uri}`;
}

/** The server and its own URI named by a namespaced URI, or undefined for any other URI. */
function parseNamespaced(uri: string): { serverId: string; uri: string } | undefined {
  if (!uri.startsWith(SERVER_URI_PREFIX)) return undefined;
  const rest = uri.slice(SERVER_URI_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { serverId: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}

/** Where a read goes: the server and the URI it knows; `ambiguous`: the namespaced URIs to read instead. */
export type ResourceRoute = { serverId: string; uri: string } | { ambiguous: string[] };

/** What the gateway needs of the app for resources and prompts (composed in core/core.ts). */
export interface GatewayFeatures {
  /** Connected servers that offer `kind`. */
  offering(kind: 'resources' | 'prompts'): string[];
  resources(serverId: string): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }>;
  prompts(serverId: string): Promise<Prompt[]>;
  /** A server's priority (decides a prompt name several servers offer, for an agent that keeps own names); default 0. */
  priorityOf?(serverId: string): number;
  /** Authorized (permission engine, approval) and traced as the caller. */
  read(
    caller: { userId: string; sessionId: string },
    serverId: string,
    uri: string,
    signal: AbortSignal,
  ): Promise<ReadResourceResult>;
  /**
   * Completion of a prompt's argument or a template's variable on that server (browsing, as in the
   * GUI: not traced); a server that declared no completion refuses (the gateway answers no values).
   */
  complete?(serverId: string, request: CompletionRequest, signal: AbortSignal): Promise<CompleteResult['completion']>;
  getPrompt(
    caller: { userId: string; sessionId: string },
    serverId: string,
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
    /** A 2026-07-28 agent's own answerers: a modern server's questions during the get go to it. */
    asks?: CallServerRequestHandlers,
  ): Promise<GetPromptResult>;
}

/** Every visible server's answer, in server order; a server that fails to list is left out, not fatal. */
async function fromVisible<T>(
  features: GatewayFeatures,
  kind: 'resources' | 'prompts',
  visibility: AgentVisibility,
  list: (serverId: string) => Promise<T>,
): Promise<Array<{ serverId: string; value: T }>> {
  const servers = features
    .offering(kind)
    .filter((id) => isVisible(visibility, id))
    .sort();
  const settled = await Promise.allSettled(
    servers.map(async (serverId) => ({ serverId, value: await list(serverId) })),
  );
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

/** How many of the listed servers offer each key (a URI, a template). */
function offerCounts(keysPerServer: string[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const keys of keysPerServer) for (const key of new Set(keys)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

export async function listAgentResources(
  features: GatewayFeatures,
  visibility: AgentVisibility,
): Promise<{ resources: Resource[] }> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  const counts = offerCounts(lists.map(({ value }) => value.resources.map((r) => r.uri)));
  return {
    resources: lists.flatMap(({ serverId, value }) =>
      value.resources.map((r) =>
        (counts.get(r.uri) ?? 0) > 1
          ? {
              ...r,
              uri: namespacedUri(serverId, r.uri),
              _meta: { ...r._meta, [META_SERVER]: serverId, [META_URI]: r.uri },
            }
          : { ...r, _meta: { ...r._meta, [META_SERVER]: serverId } },
      ),
    ),
  };
}

export async function listAgentTemplates(
  features: GatewayFeatures,
  visibility: AgentVisibility,
): Promise<{ resourceTemplates: ResourceTemplate[] }> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  const counts = offerCounts(lists.map(({ value }) => value.templates.map((t) => t.uriTemplate)));
  return {
    resourceTemplates: lists.flatMap(({ serverId, value }) =>
      value.templates.map((t) =>
        (counts.get(t.uriTemplate) ?? 0) > 1
          ? {
              ...t,
              uriTemplate: namespacedUri(serverId, t.uriTemplate),
              _meta: { ...t._meta, [META_SERVER]: serverId, [META_URI]: t.uriTemplate },
            }
          : { ...t, _meta: { ...t._meta, [META_SERVER]: serverId } },
      ),
    ),
  };
}

function matchesTemplate(templates: ResourceTemplate[], uri: string): boolean {
  return templates.some((t) => {
    try {
      return new UriTemplate(t.uriTemplate).match(uri) !== null;
    } catch {
      return false;
    }
  });
}

/**
 * Where an agent's read of `uri` goes (see the header for the rule): a namespaced URI to the
 * server it names; a bare URI to the one server that lists it, else to the one server whose
 * template matches it; several such servers: ambiguous. Undefined: no server this agent sees offers it.
 */
export async function routeAgentResource(
  features: GatewayFeatures,
  visibility: AgentVisibility,
  uri: string,
): Promise<ResourceRoute | undefined> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  const named = parseNamespaced(uri);
  if (named) {
    const list = lists.find(({ serverId }) => serverId === named.serverId)?.value;
    if (!list) return undefined;
    return list.resources.some((r) => r.uri === named.uri) || matchesTemplate(list.templates, named.uri)
      ? named
      : undefined;
  }
  const listing = lists.filter(({ value }) => value.resources.some((r) => r.uri === uri));
  const offering = listing.length > 0 ? listing : lists.filter(({ value }) => matchesTemplate(value.templates, uri));
  if (offering.length === 0) return undefined;
  if (offering.length === 1) return { serverId: (offering[0] as { serverId: string }).serverId, uri };
  return { ambiguous: offering.map(({ serverId }) => namespacedUri(serverId, uri)) };
}

/** A read's result under the URI the agent asked for (a namespaced read comes back with the server's own URI). */
export function asRequested(result: ReadResourceResult, requested: string, route: { uri: string }): ReadResourceResult {
  if (requested === route.uri) return result;
  return { ...result, contents: result.contents.map((c) => (c.uri === route.uri ? { ...c, uri: requested } : c)) };
}

async function namedPrompts(
  features: GatewayFeatures,
  visibility: AgentVisibility,
): Promise<Array<{ named: GatewayToolName; prefixed: string; prompt: Prompt }>> {
  const lists = await fromVisible(features, 'prompts', visibility, (id) => features.prompts(id));
  const byRef = new Map(
    lists.flatMap(({ serverId, value }) => value.map((p) => [`${serverId}\0${p.name}`, p] as const)),
  );
  const names = nameTools(lists.flatMap(({ serverId, value }) => value.map((p) => ({ serverId, toolName: p.name }))));
  const own = visibility.ownNames
    ? ownNames(names.map((named) => ({ named, priority: features.priorityOf?.(named.serverId) ?? 0 })))
    : undefined;
  return names.map((named) => ({
    named: { ...named, name: own?.get(`${named.serverId}\0${named.toolName}`) ?? named.name },
    prefixed: named.name,
    prompt: byRef.get(`${named.serverId}\0${named.toolName}`) as Prompt,
  }));
}

export async function listAgentPrompts(
  features: GatewayFeatures,
  visibility: AgentVisibility,
): Promise<{ prompts: Prompt[] }> {
  return {
    prompts: (await namedPrompts(features, visibility)).map(({ named, prompt }) => ({
      ...prompt,
      name: named.name,
      _meta: { ...prompt._meta, [META_SERVER]: named.serverId },
    })),
  };
}

export async function resolveAgentPrompt(
  features: GatewayFeatures,
  visibility: AgentVisibility,
  name: string,
): Promise<GatewayToolName | undefined> {
  const prompts = await namedPrompts(features, visibility);
  // The listed name first; a `<server>__<prompt>` name still reaches its prompt.
  return (prompts.find((p) => p.named.name === name) ?? prompts.find((p) => p.prefixed === name))?.named;
}

/**
 * Where an agent's `completion/complete` goes: a prompt by the name the agent sees (the server's
 * own prompt name); a resource template by the template the agent sees (a namespaced one names its
 * server; a bare one goes to the one server listing it). Undefined: no server this agent sees
 * offers it (several servers listing a bare template: ambiguous, as for reads).
 */
export async function routeAgentCompletion(
  features: GatewayFeatures,
  visibility: AgentVisibility,
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
): Promise<{ serverId: string; target: CompletionRequest['target'] } | { ambiguous: string[] } | undefined> {
  if (ref.type === 'ref/prompt') {
    const named = await resolveAgentPrompt(features, visibility, ref.name);
    return named ? { serverId: named.serverId, target: { type: 'prompt', name: named.toolName } } : undefined;
  }
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  const named = parseNamespaced(ref.uri);
  if (named) {
    const list = lists.find(({ serverId }) => serverId === named.serverId)?.value;
    return list?.templates.some((t) => t.uriTemplate === named.uri)
      ? { serverId: named.serverId, target: { type: 'resource', uriTemplate: named.uri } }
      : undefined;
  }
  const offering = lists.filter(({ value }) => value.templates.some((t) => t.uriTemplate === ref.uri));
  if (offering.length === 0) return undefined;
  if (offering.length > 1) return { ambiguous: offering.map(({ serverId }) => namespacedUri(serverId, ref.uri)) };
  return {
    serverId: (offering[0] as { serverId: string }).serverId,
    target: { type: 'resource', uriTemplate: ref.uri },
  };
}
