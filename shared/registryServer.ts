/**
 * The official MCP Registry's v0.1 API shapes, as zod: `ServerList`, `ServerResponse` and
 * `ServerDetail` (the `server.json` document) from the registry's published OpenAPI
 * (modelcontextprotocol/registry docs/reference/api/openapi.yaml, version 2025-12-01) and
 * `server.schema.json`. Objects are loose: a registry may add fields (the spec allows `_meta`
 * extensions, and later schema dates add fields); what is read is checked.
 *
 * Shared because the renderer shows the entries (the contract carries them validated).
 */
import { z } from 'zod';

/** `Input`: what a client may ask the person for (an argument, an environment variable, a header, a URL variable). */
const InputSchema = z.looseObject({
  description: z.string().max(10_000).optional(),
  isRequired: z.boolean().optional(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
  /** Fixed by the publisher: not configurable by the person (`{variables}` are substituted). */
  value: z.string().max(10_000).optional(),
  isSecret: z.boolean().optional(),
  default: z.string().max(10_000).optional(),
  placeholder: z.string().max(10_000).optional(),
  choices: z.array(z.string().max(1000)).max(500).optional(),
});
export type RegistryInput = z.infer<typeof InputSchema>;

const InputWithVariablesSchema = InputSchema.extend({
  variables: z.record(z.string().max(200), InputSchema).optional(),
});

const PositionalArgumentSchema = InputWithVariablesSchema.extend({
  type: z.literal('positional'),
  valueHint: z.string().max(200).optional(),
  isRepeated: z.boolean().optional(),
}).refine(
  (a) => a.valueHint !== undefined || a.value !== undefined,
  'a positional argument needs a valueHint or a value',
);

const NamedArgumentSchema = InputWithVariablesSchema.extend({
  type: z.literal('named'),
  name: z.string().min(1).max(200),
  isRepeated: z.boolean().optional(),
});

const ArgumentSchema = z.union([PositionalArgumentSchema, NamedArgumentSchema]);
export type RegistryArgument = z.infer<typeof ArgumentSchema>;

const KeyValueInputSchema = InputWithVariablesSchema.extend({ name: z.string().min(1).max(200) });
export type RegistryKeyValue = z.infer<typeof KeyValueInputSchema>;

const StdioTransportSchema = z.looseObject({ type: z.literal('stdio') });
const StreamableHttpTransportSchema = z.looseObject({
  type: z.literal('streamable-http'),
  /** A template: `{name}` refers to `variables`, argument valueHints or environment variable names. */
  url: z.string().min(1).max(2000),
  headers: z.array(KeyValueInputSchema).max(100).optional(),
  variables: z.record(z.string().max(200), InputSchema).optional(),
});
const SseTransportSchema = z.looseObject({
  type: z.literal('sse'),
  url: z.string().min(1).max(2000),
  headers: z.array(KeyValueInputSchema).max(100).optional(),
  variables: z.record(z.string().max(200), InputSchema).optional(),
});
const RemoteSchema = z.discriminatedUnion('type', [StreamableHttpTransportSchema, SseTransportSchema]);
export type RegistryRemote = z.infer<typeof RemoteSchema>;

/** A concrete version: ranges and `latest` are refused by the registry, and so here. */
const PinnedVersion = z
  .string()
  .min(1)
  .max(255)
  .refine((v) => v !== 'latest' && !/^[\^~<>=]|\.x$|\*|\s/.test(v), 'must be one exact version, not a range');

const PackageSchema = z
  .looseObject({
    registryType: z.string().min(1).max(50),
    registryBaseUrl: z.string().max(2000).optional(),
    identifier: z.string().min(1).max(2000),
    version: PinnedVersion.optional(),
    fileSha256: z
      .string()
      .regex(/^[a-f0-9]{64}$/, 'must be 64 lowercase hexadecimal digits')
      .optional(),
    runtimeHint: z.string().max(100).optional(),
    transport: z.discriminatedUnion('type', [StdioTransportSchema, StreamableHttpTransportSchema, SseTransportSchema]),
    runtimeArguments: z.array(ArgumentSchema).max(200).optional(),
    packageArguments: z.array(ArgumentSchema).max(200).optional(),
    environmentVariables: z.array(KeyValueInputSchema).max(200).optional(),
  })
  .refine((p) => p.registryType !== 'mcpb' || p.fileSha256 !== undefined, {
    message: 'an mcpb package must give its fileSha256',
    path: ['fileSha256'],
  });
export type RegistryPackage = z.infer<typeof PackageSchema>;

/** `ServerDetail`: one `server.json`. */
export const ServerDetailSchema = z.looseObject({
  $schema: z.string().max(500).optional(),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'must be reverse-DNS namespace/name'),
  // The OpenAPI caps descriptions at 100 characters; older entries are longer, so only a sanity cap here.
  description: z.string().min(1).max(2000),
  title: z.string().min(1).max(200).optional(),
  repository: z
    .looseObject({
      url: z.string().max(2000),
      source: z.string().max(100),
      id: z.string().max(200).optional(),
      subfolder: z.string().max(500).optional(),
    })
    .optional(),
  version: z.string().min(1).max(255),
  websiteUrl: z.string().max(2000).optional(),
  packages: z.array(PackageSchema).max(50).optional(),
  remotes: z.array(RemoteSchema).max(50).optional(),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

/** `ServerResponse._meta["io.modelcontextprotocol.registry/official"]`. */
export const OfficialMetaSchema = z.looseObject({
  status: z.enum(['active', 'deprecated', 'deleted']).optional(),
  publishedAt: z.string().max(100).optional(),
  updatedAt: z.string().max(100).optional(),
  isLatest: z.boolean().optional(),
});
export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';

/** `ServerList`, with its entries left unread: each is validated alone, so one bad entry hides no other. */
export const ServerListEnvelopeSchema = z.looseObject({
  servers: z.array(z.unknown()),
  metadata: z
    .looseObject({
      nextCursor: z.string().max(2000).nullable().optional(),
      count: z.number().int().nonnegative().optional(),
    })
    .optional(),
});

/** `ServerResponse`. */
export const ServerResponseSchema = z.looseObject({
  server: ServerDetailSchema,
  _meta: z.looseObject({ [OFFICIAL_META_KEY]: OfficialMetaSchema.optional() }).optional(),
});
export type ServerResponse = z.infer<typeof ServerResponseSchema>;
