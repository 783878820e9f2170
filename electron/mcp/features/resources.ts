/**
 * Resource requests on the SDK client, which validates every answer with the protocol's schemas:
 * the lists (following cursors, bounded), a read, subscribe and unsubscribe, and RFC 6570
 * template expansion with the SDK's own `UriTemplate`.
 */
import { UriTemplate, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type {
  Client,
  McpSubscription,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/client';
import type { Listed } from './paging.js';
import { collectPages } from './paging.js';
import type { SdkRequestOptions } from './types.js';

export function listResources(sdk: Client, serverId: string, options: SdkRequestOptions): Promise<Listed<Resource>> {
  return collectPages(serverId, 'resources/list', async (cursor) => {
    const page = await sdk.request({ method: 'resources/list', params: cursor ? { cursor } : {} }, options);
    return { items: page.resources, nextCursor: page.nextCursor };
  });
}

/** A server that offers resources but no templates may not know the method: that is an empty list. */
export async function listResourceTemplates(
  sdk: Client,
  serverId: string,
  options: SdkRequestOptions,
): Promise<Listed<ResourceTemplateType>> {
  try {
    return await collectPages(serverId, 'resources/templates/list', async (cursor) => {
      const page = await sdk.request({ method: 'resources/templates/list', params: cursor ? { cursor } : {} }, options);
      return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    });
  } catch (error) {
    if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound)
      return { items: [], truncated: false };
    throw error;
  }
}

export function readResource(sdk: Client, uri: string, options: SdkRequestOptions): Promise<ReadResourceResult> {
  return sdk.readResource({ uri }, options);
}

/** Modern connections: the open `subscriptions/listen` stream of each subscribed resource. */
const listening = new WeakMap<Client, Map<string, McpSubscription>>();

/**
 * Subscribes to a resource's updates: `resources/subscribe` on a legacy connection; on a modern
 * one a `subscriptions/listen` stream for that URI (its `notifications/resources/updated` reach
 * the same notification handler).
 */
export async function subscribeResource(sdk: Client, uri: string, options: SdkRequestOptions): Promise<void> {
  if (sdk.getProtocolEra() !== 'modern') {
    await sdk.subscribeResource({ uri }, options);
    return;
  }
  let streams = listening.get(sdk);
  if (!streams) listening.set(sdk, (streams = new Map()));
  if (streams.has(uri)) return;
  const subscription = await sdk.listen({ resourceSubscriptions: [uri] }, options);
  streams.set(uri, subscription);
  void subscription.closed.then(() => {
    if (streams.get(uri) === subscription) streams.delete(uri);
  });
}

export async function unsubscribeResource(sdk: Client, uri: string, options: SdkRequestOptions): Promise<void> {
  if (sdk.getProtocolEra() !== 'modern') {
    await sdk.unsubscribeResource({ uri }, options);
    return;
  }
  const subscription = listening.get(sdk)?.get(uri);
  listening.get(sdk)?.delete(uri);
  await subscription?.close();
}

/** A template's variable names, in order (none for a template the SDK cannot parse). */
export function templateVariables(uriTemplate: string): string[] {
  try {
    return new UriTemplate(uriTemplate).variableNames;
  } catch {
    return [];
  }
}

/** Expands a template with the values entered for its variables; a template that cannot be parsed says why. */
export function expandTemplate(
  uriTemplate: string,
  variables: Record<string, string>,
): { ok: true; uri: string } | { ok: false; reason: string } {
  try {
    return { ok: true, uri: new UriTemplate(uriTemplate).expand(variables) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
