/**
 * The client the MCP conformance suite (`@modelcontextprotocol/conformance`) starts, one process
 * per scenario: `node .cache/conformance/client.mjs <server-url>` (this file, bundled by run.ts),
 * with the scenario name in `MCP_CONFORMANCE_SCENARIO` and its client credentials, when it has
 * some, in `MCP_CONFORMANCE_CONTEXT`. The revision the scenario runs at
 * (`MCP_CONFORMANCE_PROTOCOL_VERSION`) is not handed to the client: which era and version to
 * speak is the product's own negotiation, as with any server.
 *
 * It only maps that command line onto the product: a server configuration validated by the
 * product's schema, the product's secret store (a 0600 file in a scratch folder) holding the
 * secrets the suite hands over, the product's `MCPClient` and OAuth session — and then does what
 * a person would: connect, list the tools, call each one (with the arguments the scenario hands
 * over in its context's `toolCalls`, else sample ones), close. Being a person includes the
 * browser: test/helpers/headlessBrowser.ts follows the authorization server's redirects (the
 * suite's authorization server approves at once) to the loopback redirect, where the session
 * checks the state like any sign-in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfigInput } from '../../shared/serverConfig.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPError, MCPRemoteError } from '../../electron/mcp/errors.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { OAuthCredentials } from '../../electron/mcp/oauth/credentials.js';
import { OAuthSession, isOAuthServer } from '../../electron/mcp/oauth/session.js';
import type { SamplingAnswer, ServerRequestHandlers } from '../../electron/mcp/serverRequests.js';
import type { ToolDescriptor } from '../../electron/mcp/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { headlessBrowser } from '../../test/helpers/headlessBrowser.js';
import { ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';

/** Where the suite's own client publishes its client ID metadata document (the suite checks this URL is used). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

interface SuiteContext {
  /** The calls a scenario wants made, with its own arguments (http-custom-headers: base64-unsafe values, a null to omit). */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
}

function log(text: string): void {
  process.stderr.write(`[miniharness] ${text}\n`);
}

/** The server configuration a person would enter for this scenario, and the secrets they would type. */
function configFor(
  url: string,
  scenario: string,
  context: SuiteContext,
): { config: ServerConfigInput; secrets: Record<string, string> } {
  const base = { id: 'conformance', name: `conformance ${scenario}`, transport: 'streamable_http' as const, url };
  if (!scenario.startsWith('auth/')) return { config: base, secrets: {} };
  const secrets: Record<string, string> = {};
  const stored = (slot: string, value: string | undefined): { source: 'store'; key: string } | undefined => {
    if (value === undefined) return undefined;
    secrets[slot] = value;
    return { source: 'store', key: slot };
  };
  const clientSecret = stored('oauth/client-secret', context.client_secret);
  const privateKey = stored('oauth/private-key', context.private_key_pem);
  const machine = scenario.startsWith('auth/client-credentials');
  return {
    config: {
      ...base,
      auth: {
        kind: 'oauth',
        grant: machine ? 'client_credentials' : 'authorization_code',
        clientMetadataUrl: CLIENT_METADATA_URL,
        ...(context.client_id ? { clientId: context.client_id } : {}),
        ...(clientSecret ? { clientSecret } : {}),
        ...(privateKey ? { privateKey, tokenEndpointAuthMethod: 'private_key_jwt' as const } : {}),
        ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm as 'ES256' } : {}),
      },
    },
    secrets,
  };
}

/** Arguments that fit a tool's input schema: the first enum value, else a plain value of each required type. */
function sampleArguments(tool: ToolDescriptor): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.enum?.length) args[name] = schema.enum[0];
    else if (schema.type === 'number' || schema.type === 'integer') args[name] = 2;
    else if (schema.type === 'boolean') args[name] = true;
    else if (schema.type === 'array') args[name] = [];
    else if (schema.type === 'object') args[name] = {};
    else args[name] = 'conformance';
  }
  return args;
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  if (!url || !/^https?:\/\//.test(url)) {
    log('usage: client.ts <server-url> (with MCP_CONFORMANCE_SCENARIO set)');
    return 2;
  }
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as SuiteContext;
  const scratch = mkdtempSync(join(tmpdir(), 'miniharness-conformance-'));
  const { config: input, secrets: typed } = configFor(url, scenario, context);
  const config = ServerConfigSchema.parse(input);
  const store = new FileSecretStore(join(scratch, 'secrets.json'));
  for (const [key, value] of Object.entries(typed)) await store.set(key, new SecretValue(value));
  const secrets = new DefaultSecretResolver(store);
  const serverLog = new LogBuffer();
  serverLog.subscribe((line) => log(`${line.stream}: ${line.text}`));

  const session = isOAuthServer(config)
    ? new OAuthSession({
        config,
        credentials: new OAuthCredentials(store, (serverId, kind) => `server/${serverId}/oauth.${kind}`),
        secrets,
        open: (authorizationUrl) => headlessBrowser().open(authorizationUrl),
        signInTimeoutMs: 15_000,
        note: (text) => serverLog.note(text),
      })
    : undefined;
  // The suite plays the person: a browser is at hand for the whole run (sign-in and step-up).
  await session?.beginInteractive();
  // The suite plays the person for what a server asks too: a form is accepted as it comes, with
  // its defaults (the client fills them in, as the dialog shows them); sampling is declined.
  const serverRequests: ServerRequestHandlers = {
    elicit: () => Promise.resolve({ action: 'accept', content: {} }),
    sample: (): Promise<SamplingAnswer> => Promise.resolve({ action: 'reject', reason: 'person' }),
  };
  const client = new MCPClient(config, {
    secrets,
    log: serverLog,
    serverRequests,
    ...(session ? { oauth: session } : {}),
    sandboxes: new ServerSandboxes({ dataDir: join(scratch, 'data') }),
  });
  try {
    const negotiated = await client.initialize();
    log(
      `initialized: ${negotiated.serverInfo.name} ${negotiated.serverInfo.version}, protocol ${negotiated.protocolVersion}`,
    );
    const tools = await client.listTools();
    // A scenario that names its calls gets exactly those (in its order, with its arguments); any other tool, sample arguments.
    const named = context.toolCalls ?? [];
    const calls = [
      ...named.flatMap((call) => {
        const tool = tools.find((t) => t.name === call.name);
        return tool ? [{ tool, args: { ...call.arguments } }] : [];
      }),
      ...tools
        .filter((t) => !named.some((call) => call.name === t.name))
        .map((tool) => ({ tool, args: sampleArguments(tool) })),
    ];
    for (const { tool, args } of calls) {
      // json-schema-2020-12-preservation has the client send back (to its echo tool, as `schema`)
      // the input schema it holds for the scenario's 2020-12 tool: what the product kept is measured.
      const preserved = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (scenario === 'json-schema-2020-12-preservation' && tool.name === 'json_schema_echo' && preserved)
        args.schema = preserved.inputSchema;
      // A server that answers a call with a JSON-RPC error (some scenarios' servers list tools
      // they never serve) has answered: that is the server's word, not the client failing.
      const result = await client.callTool(tool.name, args).catch((error: unknown) => {
        if (error instanceof MCPRemoteError) return error;
        throw error;
      });
      log(
        `called ${tool.name}: ${result instanceof MCPRemoteError ? `refused by the server (${result.message})` : result.isError ? 'tool error' : 'ok'}`,
      );
    }
    return 0;
  } catch (error) {
    log(error instanceof MCPError ? `failed (${error.code}): ${error.message}` : `failed: ${String(error)}`);
    return 1;
  } finally {
    await client.close();
    await session?.endInteractive();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`crashed: ${String(error)}`);
    process.exit(1);
  },
);
