/**
 * The configuration of one MCP server, shared by the main process (which validates what it
 * loads and what the GUI sends) and the renderer (whose forms validate with the same schema).
 *
 * Secrets never live here: a configuration holds only *references* to them (an environment
 * variable name or a key in the secret store). The main process resolves them when it connects.
 */
import { z } from 'zod';

/** Where a secret's value comes from; the value itself is never part of a configuration. */
const SecretRefSchema = z.discriminatedUnion('source', [
  z.object({
    source: z.literal('env'),
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits, _)'),
  }),
  z.object({
    source: z.literal('store'),
    key: z.string().min(1, 'must not be empty').max(200),
  }),
]);
export type SecretRef = z.infer<typeof SecretRefSchema>;

/** A value that is either plain text or a reference to a secret (env values, header values). */
const ValueOrSecretSchema = z.union([z.string(), z.object({ secret: SecretRefSchema })]);
export type ValueOrSecret = z.infer<typeof ValueOrSecretSchema>;

// ── OAuth 2.1 sign-in ───────────────────────────────────────────────────────────────────────────
/** How the app authenticates to the token endpoint with a pre-registered client. */
const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
/** The JWS algorithms a private_key_jwt assertion may be signed with (the key must fit). */
export const JWT_SIGNING_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
] as const;

/**
 * OAuth 2.1 through the SDK's client provider. `authorization_code`: a person signs in in the
 * system browser (PKCE, a loopback redirect); the client is registered dynamically, named by a
 * client ID metadata document (`clientMetadataUrl`), or pre-registered (`clientId`, and
 * `clientSecret` in the secret store). `client_credentials`: the app itself authenticates (a
 * client secret, or a private key for private_key_jwt). Tokens never live here: the app keeps
 * them in the secret store.
 */
const OAuthConfigSchema = z
  .object({
    kind: z.literal('oauth'),
    grant: z.enum(['authorization_code', 'client_credentials']).default('authorization_code'),
    /** A pre-registered client id (required for client_credentials). */
    clientId: z.string().trim().min(1, 'must not be empty').max(2000).optional(),
    clientSecret: SecretRefSchema.optional(),
    /** private_key_jwt: the PKCS#8 PEM private key, in the secret store. */
    privateKey: SecretRefSchema.optional(),
    signingAlgorithm: z.enum(JWT_SIGNING_ALGORITHMS).optional(),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
    /** Scopes to ask for when the server names none (space-separated). */
    scope: z.string().trim().max(2000).optional(),
    /** An https URL where this app's client ID metadata document is published (used as client_id where supported). */
    clientMetadataUrl: z
      .string()
      .trim()
      .refine(
        (u) => parseUrl(u)?.protocol === 'https:' && parseUrl(u)?.pathname !== '/',
        'must be an https URL with a path',
      )
      .optional(),
    /** The loopback port of the redirect, for a pre-registered client whose redirect URI names one. */
    redirectPort: z.number().int().min(1024, 'at least 1024').max(65535, 'at most 65535').optional(),
  })
  .superRefine((auth, ctx) => {
    const issue = (path: string, message: string): void => ctx.addIssue({ code: 'custom', path: [path], message });
    if (auth.grant === 'client_credentials') {
      if (!auth.clientId) issue('clientId', 'is required for the client-credentials grant');
      if (!auth.clientSecret && !auth.privateKey)
        issue('clientSecret', 'enter a client secret, or a private key for private_key_jwt');
    }
    if (auth.clientSecret && !auth.clientId) issue('clientId', 'is required with a client secret');
    if (auth.tokenEndpointAuthMethod === 'private_key_jwt' && !auth.privateKey)
      issue('privateKey', 'is required for private_key_jwt');
    if (auth.privateKey && auth.grant !== 'client_credentials')
      issue('privateKey', 'is used only by the client-credentials grant');
    if (
      (auth.tokenEndpointAuthMethod === 'client_secret_basic' ||
        auth.tokenEndpointAuthMethod === 'client_secret_post') &&
      !auth.clientSecret
    ) {
      issue('clientSecret', `is required for ${auth.tokenEndpointAuthMethod}`);
    }
  });
export type OAuthConfig = z.infer<typeof OAuthConfigSchema>;

const AuthConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('bearer'), token: SecretRefSchema }),
  OAuthConfigSchema,
]);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the transport or the auth object own; a configuration may not set them directly. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'host',
]);

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The id of the app's own (local) tools. */
export const RESERVED_SERVER_ID = 'local';

/**
 * A server's id as a request names it (a channel's `id` or `serverId`, an agent's visible
 * servers): 1–64 characters. Any string of those may name one — a configured server's id (see
 * `id` below for the naming rule a new server must follow) or RESERVED_SERVER_ID — and a lookup
 * answers an unknown one by name, so no format is checked here.
 */
export const ServerIdSchema = z.string().min(1).max(64);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An absolute folder path: `/…` (POSIX), `C:\…` or `\\server\share` (Windows). */
const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\[^\\])/;

/** A server's protocol era setting: negotiated (`auto`) or pinned. */
const PROTOCOL_ERA_SETTINGS = ['auto', 'legacy', 'modern'] as const;
const ProtocolEraSchema = z.enum(PROTOCOL_ERA_SETTINGS);
export type ProtocolEraSetting = z.infer<typeof ProtocolEraSchema>;

/** The most folders one server may be given as roots. */
const MAX_SERVER_ROOTS = 50;

/**
 * The folders a server is told about as its roots (MCP `roots/list`), as absolute paths. Roots
 * tell a server where to work; they are not a boundary (a local server runs as you). The client
 * answers `roots/list` with them as `file://` URIs and announces an edit to a connected server
 * (`notifications/roots/list_changed`) without reconnecting.
 */
const ServerRootsSchema = z
  .array(
    z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(4096, 'at most 4096 characters')
      .refine((path) => ABSOLUTE_PATH.test(path), 'must be an absolute path (e.g. /home/me/project)')
      .refine((path) => !path.includes('\0'), 'must not contain a NUL character'),
  )
  .max(MAX_SERVER_ROOTS, `at most ${MAX_SERVER_ROOTS} folders`)
  .superRefine((paths, ctx) => {
    paths.forEach((path, index) => {
      if (paths.indexOf(path) !== index) ctx.addIssue({ code: 'custom', path: [index], message: 'appears twice' });
    });
  });

// ── the sandbox a stdio server runs in (issue 29) ────────────────────────────────────────────────
/**
 * Whether a stdio server with no `sandbox` section runs sandboxed: yes, imported and existing ones
 * included (issue 29). A section saying `enabled: false` is the person's choice to run it unconfined.
 */
const SANDBOX_ENABLED_BY_DEFAULT = true;

/** The most entries one of a sandbox's lists may hold. */
const MAX_SANDBOX_ENTRIES = 100;

const SandboxPathSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(4096, 'at most 4096 characters')
  .refine((path) => ABSOLUTE_PATH.test(path), 'must be an absolute path (e.g. /home/me/.config/foo)')
  .refine((path) => !path.includes('\0'), 'must not contain a NUL character');

const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}))?';
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const IPV4 = '(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';
/**
 * A host a sandboxed server may reach, as sandbox-runtime's allow lists spell it: a name (a
 * leading `*.` matches any name below it), an IPv4 address or a bracketed IPv6 address, each with
 * an optional `:port` (no port: any port). A bare `*` (everything) is not a host.
 */
const SANDBOX_HOST_PATTERN = new RegExp(
  `^(?:(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*|${IPV4}|\\[[0-9a-f:.]+\\])${PORT}$`,
  'i',
);

/** Whether `host` is a host a sandbox's `hosts` may list (the form and the egress ask check with it). */
export function isSandboxHost(host: string): boolean {
  return host.length <= 300 && SANDBOX_HOST_PATTERN.test(host);
}

const unique = <T>(items: T[], ctx: z.RefinementCtx): void => {
  items.forEach((item, index) => {
    if (items.indexOf(item) !== index) ctx.addIssue({ code: 'custom', path: [index], message: 'appears twice' });
  });
};

/**
 * What a stdio server's sandbox lets it touch beyond the defaults (the system readable, its own
 * command's install folder readable, nothing under the home folder; a folder of its own under the
 * app's data folder and its roots writable; no host). Paths are absolute; hosts are `host[:port]`.
 */
export const ServerSandboxSchema = z.object({
  /** Off runs the server with the person's full rights: a visible choice, never a fallback. */
  enabled: z.boolean(),
  /** More it may read (what is under the home folder is hidden otherwise). */
  read: z.array(SandboxPathSchema).max(MAX_SANDBOX_ENTRIES).superRefine(unique).default([]),
  /** What it may not read even outside the home folder. */
  denyRead: z.array(SandboxPathSchema).max(MAX_SANDBOX_ENTRIES).superRefine(unique).default([]),
  /** More it may write. */
  write: z.array(SandboxPathSchema).max(MAX_SANDBOX_ENTRIES).superRefine(unique).default([]),
  /** Hosts it may reach, `host[:port]`. */
  hosts: z
    .array(
      z
        .string()
        .trim()
        .max(300, 'at most 300 characters')
        .refine(
          (host) => SANDBOX_HOST_PATTERN.test(host),
          'must be a host, *.domain, IP address or [IPv6], with an optional :port',
        ),
    )
    .max(MAX_SANDBOX_ENTRIES)
    .superRefine(unique)
    .default([]),
});
export type ServerSandbox = z.infer<typeof ServerSandboxSchema>;

/** Whether a stdio server runs sandboxed: its section decides, else the app's default. */
export function sandboxEnabled(config: { sandbox?: { enabled: boolean } | undefined }): boolean {
  return config.sandbox?.enabled ?? SANDBOX_ENABLED_BY_DEFAULT;
}

/**
 * Where a server installed from an MCP Registry came from (issue 30): the registry, the entry's
 * name and version, which of its packages or remotes, the person's non-secret answers to its
 * form (secrets stay in the secret store), and each install and update (who, when, which version).
 */
const CatalogOriginSchema = z.object({
  registry: z.string().max(2000),
  name: z.string().max(200),
  version: z.string().max(255),
  option: z.object({ kind: z.enum(['package', 'remote']), index: z.number().int().min(0).max(49) }),
  inputs: z.record(z.string().max(300), z.string().max(10_000)).default({}),
  history: z
    .array(
      z.object({
        at: z.number(),
        by: z.string().max(200),
        action: z.enum(['installed', 'updated']),
        version: z.string().max(255),
        from: z.string().max(255).optional(),
      }),
    )
    .max(100)
    .default([]),
});
export type CatalogOrigin = z.infer<typeof CatalogOriginSchema>;

const common = {
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use 1–64 lowercase letters, digits, - or _, starting with a letter or digit')
    // "local" names the app's own tools, which permissions trust; no server may borrow it.
    .refine((id) => id !== RESERVED_SERVER_ID, `"${RESERVED_SERVER_ID}" is reserved for the app's own tools`),
  name: z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters'),
  /**
   * The server's identity, made by the app when the server is first saved and never edited:
   * permission rules are bound to it, so a server removed and added again under the same id does
   * not inherit the old one's rules. Absent only in files written before identities existed.
   */
  uid: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,100}$/, 'is made by the app')
    .optional(),
  /** Deadline for initialize and for each request, in milliseconds. */
  timeoutMs: z.number().int().min(100, 'at least 100 ms').max(600_000, 'at most 10 minutes').default(30_000),
  /**
   * The most a tool call may run in all while the server reports progress (each report restarts
   * `timeoutMs`), in milliseconds; 10 minutes when absent, never less than `timeoutMs`.
   */
  maxTotalTimeoutMs: z.number().int().min(100, 'at least 100 ms').max(86_400_000, 'at most 24 hours').optional(),
  /** Higher wins when several servers offer a tool with the same name. */
  priority: z.number().int().min(-1000).max(1000).default(0),
  enabled: z.boolean().default(true),
  /** Whether tool annotations of this server may set default permissions (they are hints). */
  trusted: z.boolean().default(false),
  /** Folders offered to the server as its roots; absent or empty shares none. */
  roots: ServerRootsSchema.optional(),
  /**
   * Which protocol era the client speaks to this server: `auto` lets the SDK negotiate (a
   * `server/discover` probe, falling back to `initialize`); `legacy` (2025 revisions, `initialize`)
   * or `modern` (2026-07-28, stateless) pins it, for servers that misbehave on the probe.
   */
  protocolEra: ProtocolEraSchema.default('auto'),
  /** Installed from an MCP Registry: where from, which version, and its history. */
  catalog: CatalogOriginSchema.optional(),
};

export const StdioServerConfigSchema = z.object({
  ...common,
  transport: z.literal('stdio'),
  /** The executable, spawned directly (never through a shell). */
  command: z.string().trim().min(1, 'must not be empty'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(ENV_NAME, 'must be an environment variable name'), ValueOrSecretSchema).default({}),
  cwd: z.string().min(1).optional(),
  /** The sandbox it runs in; absent: the app's default (`SANDBOX_ENABLED_BY_DEFAULT`). */
  sandbox: ServerSandboxSchema.optional(),
});

export const HttpServerConfigSchema = z.object({
  ...common,
  transport: z.literal('streamable_http'),
  url: z
    .string()
    .trim()
    .refine((u) => parseUrl(u) !== undefined, 'must be a URL such as https://example.com/mcp')
    .refine((u) => /^https?:$/.test(parseUrl(u)?.protocol ?? 'http:'), 'must start with http:// or https://')
    .refine((u) => !parseUrl(u)?.username && !parseUrl(u)?.password, 'must not contain credentials; use auth instead'),
  headers: z
    .record(
      z
        .string()
        .regex(HEADER_NAME, 'must be a valid header name')
        .refine((h) => !RESERVED_HEADERS.has(h.toLowerCase()), 'is set by the app; use auth for Authorization'),
      ValueOrSecretSchema,
    )
    .default({}),
  auth: AuthConfigSchema.default({ kind: 'none' }),
});

/** `http` is accepted as an alias of `streamable_http` (as in the seed and in common config files). */
function normalizeTransportAlias(input: unknown): unknown {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    if (record.transport === 'http') return { ...record, transport: 'streamable_http' };
  }
  return input;
}

const ServerConfigUnion = z.discriminatedUnion('transport', [StdioServerConfigSchema, HttpServerConfigSchema], {
  error: (issue) =>
    issue.code === 'invalid_union'
      ? `unknown transport ${JSON.stringify((issue.input as { transport?: unknown } | undefined)?.transport)}: use "stdio", "streamable_http" or "http"`
      : undefined,
});

export const ServerConfigSchema = z.preprocess(normalizeTransportAlias, ServerConfigUnion);

export type StdioServerConfig = z.infer<typeof StdioServerConfigSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerConfigSchema>;
export type ServerConfig = z.infer<typeof ServerConfigUnion>;
/** What a form or a file may provide: defaults not yet applied. */
export type ServerConfigInput =
  | z.input<typeof ServerConfigUnion>
  | (Omit<z.input<typeof HttpServerConfigSchema>, 'transport'> & { transport: 'http' });

/** Field path (e.g. `env.API_KEY` or `url`) → messages; `''` holds errors about the whole object. */
export type FieldErrors = Record<string, string[]>;

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; fieldErrors: FieldErrors };

export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.');
    let message = issue.message;
    // A bad record key (header or env name) carries its reason one level down.
    if (issue.code === 'invalid_key' && issue.issues[0]) message = `${issue.issues[0].message}`;
    else if (issue.code === 'invalid_type' && issue.input === undefined) message = 'is required';
    (out[key] ??= []).push(message);
  }
  return out;
}

/** Validates untrusted input (a form, a config file, an IPC payload) into a server config. */
export function validateServerConfig(input: unknown): ValidationResult<ServerConfig> {
  const parsed = ServerConfigSchema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, fieldErrors: fieldErrorsOf(parsed.error) };
}

/** Human-readable one-paragraph summary of field errors, for logs and error messages. */
export function describeFieldErrors(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) => `${field || 'config'}: ${messages.join('; ')}`)
    .join('\n');
}
