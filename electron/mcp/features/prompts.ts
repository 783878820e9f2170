/** Prompt and completion requests on the SDK client, which validates every answer with the protocol's schemas. */
import type { Client, CompleteResult, GetPromptResult, Prompt } from '@modelcontextprotocol/client';
import type { Listed } from './paging.js';
import { collectPages } from './paging.js';
import type { SdkRequestOptions } from './types.js';

export function listPrompts(sdk: Client, serverId: string, options: SdkRequestOptions): Promise<Listed<Prompt>> {
  return collectPages(serverId, 'prompts/list', async (cursor) => {
    const page = await sdk.request({ method: 'prompts/list', params: cursor ? { cursor } : {} }, options);
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
}

export function getPrompt(
  sdk: Client,
  name: string,
  args: Record<string, string>,
  options: SdkRequestOptions,
): Promise<GetPromptResult> {
  return sdk.getPrompt({ name, arguments: args }, options);
}

/** What a completion is for: a prompt's argument, or a resource template's variable. */
type CompletionTarget = { type: 'prompt'; name: string } | { type: 'resource'; uriTemplate: string };

export interface CompletionRequest {
  target: CompletionTarget;
  argument: { name: string; value: string };
  /** The values already entered for the other arguments (a server may narrow by them). */
  context?: Record<string, string>;
}

export async function complete(
  sdk: Client,
  request: CompletionRequest,
  options: SdkRequestOptions,
): Promise<CompleteResult['completion']> {
  const ref =
    request.target.type === 'prompt'
      ? { type: 'ref/prompt' as const, name: request.target.name }
      : { type: 'ref/resource' as const, uri: request.target.uriTemplate };
  const result = await sdk.complete(
    { ref, argument: request.argument, ...(request.context ? { context: { arguments: request.context } } : {}) },
    options,
  );
  return result.completion;
}
