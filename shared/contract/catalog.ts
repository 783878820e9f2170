/**
 * The contract's `catalog.*` part (issue 30): browsing MCP Registries (v0.1 API), installing an
 * entry in one step (a form with exactly what it needs; secrets to the secret store), and
 * updating an installed one after seeing what changes. Registries are a setting, in order.
 */
import { z } from 'zod';
import { ErrorCodeSchema } from '../errors.js';
import { ServerDetailSchema, OfficialMetaSchema } from '../registryServer.js';
import type { DomainChannels } from './common.js';
import { Empty, channel } from './common.js';
import { ServerViewSchema } from './servers.js';

export const OFFICIAL_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

const RegistryUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((u) => {
    try {
      return /^https?:$/.test(new URL(u).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL')
  // The list is kept in the config file and named in every error the registry causes: no credentials in it.
  .refine((u) => {
    try {
      const url = new URL(u);
      return url.username === '' && url.password === '';
    } catch {
      return true;
    }
  }, 'must not carry a user name or password');

/** Which of an entry's ways to run it: a package (by index) or a remote (by index). */
const OptionSchema = z.object({ kind: z.enum(['package', 'remote']), index: z.number().int().min(0).max(49) });
export type InstallOption = z.infer<typeof OptionSchema>;

/** What a package or remote needs that this machine lacks, or that the app cannot run. */
const OptionViewSchema = z.object({
  option: OptionSchema,
  /** `npm · stdio`, `streamable-http https://…`. */
  label: z.string(),
  installable: z.boolean(),
  /** Why it cannot be installed here, and what to install (a sentence). */
  blocker: z.string().optional(),
});
export type OptionView = z.infer<typeof OptionViewSchema>;

/** One entry of a registry, read and checked, or why it could not be. */
const CatalogEntrySchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    registry: z.string(),
    server: ServerDetailSchema,
    official: OfficialMetaSchema.optional(),
    options: z.array(OptionViewSchema),
    /** Ids of the servers installed from this entry (any version). */
    installed: z.array(z.string()),
  }),
  z.object({
    ok: z.literal(false),
    registry: z.string(),
    index: z.number().int(),
    name: z.string().optional(),
    problem: z.string(),
  }),
]);
export type CatalogEntryView = z.infer<typeof CatalogEntrySchema>;

/** How one registry answered: fresh, or from the disk cache (with its age), or not at all. */
const RegistryStateSchema = z.object({
  url: z.string(),
  /** When the entries shown were fetched (epoch ms); absent when there are none. */
  fetchedAt: z.number().optional(),
  fromCache: z.boolean(),
  truncated: z.boolean(),
  error: z.object({ code: ErrorCodeSchema.catch('unrecognized'), message: z.string() }).optional(),
});
export type RegistryStateView = z.infer<typeof RegistryStateSchema>;

/** One field of an install form. `key`: `env.NAME`, `headers.NAME`, `url.VAR`, `args.package.0` (…`.VAR`). */
const InstallFieldSchema = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string().optional(),
  required: z.boolean(),
  secret: z.boolean(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
});
export type InstallField = z.infer<typeof InstallFieldSchema>;

const InstallPlanSchema = z.object({
  registry: z.string(),
  name: z.string(),
  version: z.string(),
  option: OptionSchema,
  /** A free id for the new server, from the entry's name. */
  suggestedId: z.string(),
  /** Required fields first. */
  fields: z.array(InstallFieldSchema),
  /** What will run: `npx -y pkg@1.2.3 …` or the URL template. */
  summary: z.string(),
  blocker: z.string().optional(),
});
export type InstallPlanView = z.infer<typeof InstallPlanSchema>;

const EntryRef = z.object({
  registry: RegistryUrlSchema,
  name: z.string().min(3).max(200),
  /** Absent: the latest. */
  version: z.string().min(1).max(255).optional(),
  option: OptionSchema,
});

/** Values by field key; secret ones are sent once and go to the secret store. */
const Values = z.record(z.string().max(300), z.string().max(16_384));

const ChangeSchema = z.object({ what: z.string(), before: z.string(), after: z.string() });

const UpdateViewSchema = z.object({
  serverId: z.string(),
  name: z.string(),
  installed: z.string(),
  latest: z.string(),
});

export const catalogChannels = {
  /** Searches every registry, in order (cached answers when one cannot be reached). `refresh` asks again now. */
  'catalog.search': channel(
    z.object({ search: z.string().max(200).default(''), refresh: z.boolean().default(false) }).strict(),
    z.object({ entries: z.array(CatalogEntrySchema), registries: z.array(RegistryStateSchema) }),
  ),
  /** The form an entry's package or remote needs, and whether this machine can run it. */
  'catalog.plan': channel(EntryRef.strict(), InstallPlanSchema),
  /** Installs: validates everything, stores the secrets, saves the server (sandboxed, untrusted) and connects it. */
  'catalog.install': channel(
    EntryRef.extend({ id: z.string().min(1).max(64), values: Values.default({}) }).strict(),
    ServerViewSchema,
  ),
  /** Installed servers whose registry has a newer version. */
  'catalog.updates': channel(Empty, z.array(UpdateViewSchema)),
  /** What an update to the registry's latest version changes, and fields it newly needs. */
  'catalog.previewUpdate': channel(
    z.object({ serverId: z.string().min(1).max(64) }).strict(),
    z.object({ from: z.string(), to: z.string(), changes: z.array(ChangeSchema), fields: z.array(InstallFieldSchema) }),
  ),
  /** Applies the update previewed (with values for fields it newly needs). */
  'catalog.applyUpdate': channel(
    z
      .object({ serverId: z.string().min(1).max(64), version: z.string().min(1).max(255), values: Values.default({}) })
      .strict(),
    ServerViewSchema,
  ),
  'catalog.registries': channel(Empty, z.object({ registries: z.array(z.string()) })),
  /** The registries, in order (at least one). */
  'catalog.setRegistries': channel(
    z.object({ registries: z.array(RegistryUrlSchema).min(1).max(20) }).strict(),
    z.object({ registries: z.array(z.string()) }),
  ),
} as const satisfies DomainChannels;
