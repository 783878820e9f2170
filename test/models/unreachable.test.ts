/**
 * An unreachable model says where and what was tried (issue 34.9): each provider through its
 * official SDK against a loopback port nothing listens on — the request's method and full URL,
 * what failed underneath (ECONNREFUSED), and that it was tried once; never only "The provider
 * could not be reached." The connection test (list models) names its own request likewise.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ModelError } from '../../electron/models/errors.js';
import { createProvider } from '../../electron/models/providerFactory.js';
import type { ModelProvider } from '../../electron/models/types.js';

/** A loopback port that was free a moment ago and is closed now (nothing listens on it). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function turnError(provider: ModelProvider): Promise<ModelError> {
  try {
    for await (const event of provider.turn({ messages: [{ role: 'user', text: 'hi' }], tools: [] })) void event;
  } catch (error) {
    return error as ModelError;
  }
  throw new Error('the turn did not fail');
}

const PATHS = { anthropic: 'v1/messages', openai: 'chat/completions', openai_responses: 'responses' } as const;

describe.each(['anthropic', 'openai', 'openai_responses'] as const)('%s: an unreachable base URL', (kind) => {
  it('names the request, the refused connection, and that it was tried once', async () => {
    const port = await closedPort();
    const baseUrl = kind === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;
    const provider = await createProvider(
      { id: 'm', name: 'Local', kind, model: 'llama3.2', baseUrl },
      { get: async () => undefined },
    );
    const error = await turnError(provider);
    expect(error.code).toBe('model_unreachable');
    expect(error.message).toContain(`at POST ${baseUrl}/${PATHS[kind]}`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toMatch(/tried once/);

    const listed = (await provider.listModels().catch((e: unknown) => e)) as ModelError;
    expect(listed.code).toBe('model_unreachable');
    expect(listed.message).toContain(`at GET ${baseUrl}/${kind === 'anthropic' ? 'v1/models' : 'models'}`);
  });
});

describe.each(['anthropic', 'openai', 'openai_responses'] as const)('%s: a base URL carrying a credential', (kind) => {
  it('names the request without the user:key part, the query or the fragment', async () => {
    const port = await closedPort();
    const secret = 'sk-live-9f8e7d6c5b4a';
    const baseUrl = `http://me:${secret}@127.0.0.1:${port}/v1?api-key=${secret}#${secret}`;
    const provider = await createProvider(
      { id: 'm', name: 'Local', kind, model: 'llama3.2', baseUrl },
      { get: async () => undefined },
    );
    const error = await turnError(provider).catch((e: unknown) => e as ModelError);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('me:');
    const listed = (await provider.listModels().catch((e: unknown) => e)) as ModelError;
    expect(listed.message).not.toContain(secret);
    expect(listed.message).toContain(`http://127.0.0.1:${port}/v1`);
  });
});
