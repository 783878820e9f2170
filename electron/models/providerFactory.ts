/**
 * A configured model → its provider. The configuration holds no key: the key is read from the
 * secret store under `modelKeyStorageKey(id)` (as a server's secrets are under `server/<id>/…`)
 * at the moment a provider is made, and handed to the SDK client only.
 */
import type { SecretStore } from '../secrets/types.js';
import { AnthropicProvider } from './anthropicProvider.js';
import { OpenAIProvider } from './openaiProvider.js';
import { OpenAIResponsesProvider } from './openaiResponsesProvider.js';
import type { ModelProvider, ModelProviderKind } from './types.js';

export interface ModelConfig {
  id: string;
  /** The person's label ("Local Llama"). */
  name: string;
  kind: ModelProviderKind;
  /** The endpoint; absent = the provider's public API. An OpenAI-compatible server is `openai` with a base URL. */
  baseUrl?: string | undefined;
  /** The model name sent to the endpoint ("claude-…", "gpt-…", "llama3.2"). */
  model: string;
}

export function modelKeyStorageKey(modelId: string): string {
  return `model/${modelId}/apiKey`;
}

export async function createProvider(config: ModelConfig, secrets: Pick<SecretStore, 'get'>): Promise<ModelProvider> {
  const apiKey = await secrets.get(modelKeyStorageKey(config.id));
  const options = { apiKey, baseUrl: config.baseUrl };
  switch (config.kind) {
    case 'anthropic':
      return new AnthropicProvider(config.model, options);
    case 'openai_responses':
      return new OpenAIResponsesProvider(config.model, options);
    case 'openai':
      return new OpenAIProvider(config.model, options);
  }
}
