/**
 * What the features part needs of a client beyond tools: a gate that runs requests on the SDK
 * client (with the client's refusals, deadline and error mapping) and one that installs
 * notification handlers on it. `MCPClient` has both; a test double may have neither, and then
 * its server offers nothing beside tools.
 */
import type { Client, RequestOptions as SdkRequestOptions } from '@modelcontextprotocol/client';
import type { RequestOptions, ToolClient } from '../types.js';

export type { SdkRequestOptions };

export interface FeatureClient {
  featureRequest<T>(
    operation: string,
    run: (sdk: Client, options: SdkRequestOptions) => Promise<T>,
    options?: RequestOptions,
  ): Promise<T>;
  attachFeatureHandlers(install: (sdk: Client) => void): void;
  /**
   * A request a modern server may answer `input_required` (prompts/get, resources/read) for a
   * caller with its own answerers (`options.serverRequests`): its rounds run as a tool call's do
   * (inputRounds.ts), `send` sending `params` again with the answers. Without answerers, or on a
   * legacy connection, it is one request (the SDK answers any rounds through the person's handlers).
   */
  featureRounds?(
    operation: string,
    params: Record<string, unknown>,
    send: (sdk: Client, params: Record<string, unknown>, options: SdkRequestOptions) => Promise<unknown>,
    options?: RequestOptions,
  ): Promise<unknown>;
}

export function featureClientOf(client: ToolClient): (ToolClient & FeatureClient) | undefined {
  const candidate = client as ToolClient & Partial<FeatureClient>;
  return typeof candidate.featureRequest === 'function' && typeof candidate.attachFeatureHandlers === 'function'
    ? (candidate as ToolClient & FeatureClient)
    : undefined;
}
