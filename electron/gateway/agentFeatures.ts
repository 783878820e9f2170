/**
 * Resources and prompts through the gateway, read-only: an agent lists the resources, templates
 * and prompts of the servers it may see, reads a resource and gets a prompt. Each read or get is
 * a use like a tool call: the permission engine decides it (as the pseudo-tool `resources/read`
 * or `prompts/get` of that server, read-only — ASK brings the person's approval, naming the
 * agent) and it is traced under the agent's name. Subscriptions stay the GUI's.
 *
 * Names: resources keep their URIs (they are addresses; the server is in
 * `_meta["io.miniharness/server"]`); prompts are named `<server>__<prompt>` like tools.
 */
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/server';
import { UriTemplate } from '@modelcontextprotocol/server';
import type { AgentVisibility, GatewayToolName } from '../../shared/agents.js';
import { isVisible } from './catalog.js';
import { nameTools } from './toolNames.js';

export const META_SERVER = 'io.miniharness/server';

/** What the gateway needs of the app for resources and prompts (composed in app/core.ts). */
export interface GatewayFeatures {
  /** Connected servers that offer `kind`. */
  offering(kind: 'resources' | 'prompts'): string[];
  resources(serverId: string): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }>;
  prompts(serverId: string): Promise<Prompt[]>;
  /** Authorized (permission engine, approval) and traced as the caller. */
  read(caller: { userId: string; sessionId: string }, serverId: string, uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
  getPrompt(caller: { userId: string; sessionId: string }, serverId: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult>;
}

/** Every visible server's answer, in server order; a server that fails to list is left out, not fatal. */
async function fromVisible<T>(features: GatewayFeatures, kind: 'resources' | 'prompts', visibility: AgentVisibility, list: (serverId: string) => Promise<T>): Promise<Array<{ serverId: string; value: T }>> {
  const servers = features.offering(kind).filter((id) => isVisible(visibility, id)).sort();
  const settled = await Promise.allSettled(servers.map(async (serverId) => ({ serverId, value: await list(serverId) })));
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

export async function listAgentResources(features: GatewayFeatures, visibility: AgentVisibility): Promise<{ resources: Resource[] }> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  return { resources: lists.flatMap(({ serverId, value }) => value.resources.map((r) => ({ ...r, _meta: { ...r._meta, [META_SERVER]: serverId } }))) };
}

export async function listAgentTemplates(features: GatewayFeatures, visibility: AgentVisibility): Promise<{ resourceTemplates: ResourceTemplate[] }> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  return { resourceTemplates: lists.flatMap(({ serverId, value }) => value.templates.map((t) => ({ ...t, _meta: { ...t._meta, [META_SERVER]: serverId } }))) };
}

/** The server a URI belongs to: the one that lists it, else the first whose template matches. */
export async function serverOfUri(features: GatewayFeatures, visibility: AgentVisibility, uri: string): Promise<string | undefined> {
  const lists = await fromVisible(features, 'resources', visibility, (id) => features.resources(id));
  const listed = lists.find(({ value }) => value.resources.some((r) => r.uri === uri));
  if (listed) return listed.serverId;
  return lists.find(({ value }) =>
    value.templates.some((t) => {
      try {
        return new UriTemplate(t.uriTemplate).match(uri) !== null;
      } catch {
        return false;
      }
    }),
  )?.serverId;
}

async function namedPrompts(features: GatewayFeatures, visibility: AgentVisibility): Promise<Array<{ named: GatewayToolName; prompt: Prompt }>> {
  const lists = await fromVisible(features, 'prompts', visibility, (id) => features.prompts(id));
  const byRef = new Map(lists.flatMap(({ serverId, value }) => value.map((p) => [`${serverId}\0${p.name}`, p] as const)));
  const names = nameTools(lists.flatMap(({ serverId, value }) => value.map((p) => ({ serverId, toolName: p.name }))));
  return names.map((named) => ({ named, prompt: byRef.get(`${named.serverId}\0${named.toolName}`) as Prompt }));
}

export async function listAgentPrompts(features: GatewayFeatures, visibility: AgentVisibility): Promise<{ prompts: Prompt[] }> {
  return { prompts: (await namedPrompts(features, visibility)).map(({ named, prompt }) => ({ ...prompt, name: named.name, _meta: { ...prompt._meta, [META_SERVER]: named.serverId } })) };
}

export async function resolveAgentPrompt(features: GatewayFeatures, visibility: AgentVisibility, name: string): Promise<GatewayToolName | undefined> {
  return (await namedPrompts(features, visibility)).find((p) => p.named.name === name)?.named;
}
