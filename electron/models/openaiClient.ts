/**
 * What the two OpenAI API shapes (Chat Completions, Responses) share: the SDK client, built the
 * same way for api.openai.com and for any OpenAI-compatible base URL, and the model list.
 * Retries are the run engine's (maxRetries 0); organization and project never come from the
 * environment (null), so a run uses only what Settings → Models holds.
 */
import OpenAI from 'openai';
import type { SecretValue } from '../secrets/secretValue.js';
import { endpointOf, toModelError } from './errors.js';

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Sent when no key is configured: local OpenAI-compatible servers ignore it, the SDK requires one. */
const NO_KEY = 'no-key';

export function openAIClient(options: { apiKey: SecretValue | undefined; baseUrl?: string | undefined }): OpenAI {
  const key = options.apiKey && !options.apiKey.isEmpty ? options.apiKey.reveal() : NO_KEY;
  return new OpenAI({
    apiKey: key,
    baseURL: options.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    maxRetries: 0,
    organization: null,
    project: null,
  });
}

/** The provider's model ids (`GET /models`), its errors as model error codes. */
export async function listOpenAIModels(client: OpenAI, signal?: AbortSignal): Promise<string[]> {
  try {
    const ids: string[] = [];
    for await (const model of client.models.list(signal ? { signal } : {})) ids.push(model.id);
    return ids;
  } catch (error) {
    throw toModelError(error, false, signal, endpointOf('GET', client.baseURL, 'models'));
  }
}
