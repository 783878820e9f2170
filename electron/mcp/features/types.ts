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
}

export function featureClientOf(client: ToolClient): (ToolClient & FeatureClient) | undefined {
  const candidate = client as ToolClient & Partial<FeatureClient>;
  return typeof candidate.featureRequest === 'function' && typeof candidate.attachFeatureHandlers === 'function'
    ? (candidate as ToolClient & FeatureClient)
    : undefined;
}
