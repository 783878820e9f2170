/** The contract's resources, prompts and completion: what a server offers beside tools. */
import { z } from 'zod';
import { ServerIdSchema } from '../serverConfig.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { ContentBlockSchema, JsonObject, channel } from './common.js';

const ResourceUri = z.string().min(1).max(8192);
/** A prompt argument's or a template variable's value, as typed. */
const ArgumentValue = z.string().max(65_536);
const ArgumentValues = z.record(z.string().min(1).max(200), ArgumentValue);

const ResourceViewSchema = z.object({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  /** The raw content's size in bytes, when the server says. */
  size: z.number().optional(),
  annotations: JsonObject.optional(),
});
export type ResourceView = z.infer<typeof ResourceViewSchema>;

const ResourceTemplateViewSchema = z.object({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: JsonObject.optional(),
  /** The template's variables (RFC 6570), in order: the fields of its form. */
  variables: z.array(z.string()),
});
export type ResourceTemplateView = z.infer<typeof ResourceTemplateViewSchema>;

const ResourceListViewSchema = z.object({
  resources: z.array(ResourceViewSchema),
  templates: z.array(ResourceTemplateViewSchema),
  /** The server listed more than the app keeps (shared/limits.ts MAX_LISTED_*): the lists end early. */
  truncated: z.boolean(),
  /** The server takes subscriptions (`resources.subscribe`). */
  canSubscribe: z.boolean(),
  /** The URIs the app is subscribed to on this server. */
  subscribed: z.array(z.string()),
});
export type ResourceListView = z.infer<typeof ResourceListViewSchema>;

/**
 * One item of a resource's contents, bounded for the GUI (shared/limits.ts): a text cut after
 * MAX_CONTENT_TEXT_BYTES (`truncated`), or base64 binary data carried only when small (`omitted`
 * otherwise). `sizeBytes`: the whole item as the server sent it (UTF-8 text, or decoded bytes).
 */
export const ResourceContentViewSchema = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  kind: z.enum(['text', 'blob']),
  text: z.string().optional(),
  blob: z.string().optional(),
  sizeBytes: z.number().int().nonnegative(),
  truncated: z.boolean().optional(),
  omitted: z.boolean().optional(),
});
export type ResourceContentView = z.infer<typeof ResourceContentViewSchema>;

const ResourceReadViewSchema = z.object({
  /** The URI read (a template's, expanded). */
  uri: z.string(),
  contents: z.array(ResourceContentViewSchema),
  traceId: z.string(),
});
export type ResourceReadView = z.infer<typeof ResourceReadViewSchema>;

const PromptViewSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })),
});
export type PromptView = z.infer<typeof PromptViewSchema>;

const PromptListViewSchema = z.object({ prompts: z.array(PromptViewSchema), truncated: z.boolean() });
export type PromptListView = z.infer<typeof PromptListViewSchema>;

/**
 * A prompt's messages. Each content block keeps the MCP shape (`text`, `image`, `audio`,
 * `resource_link`, `resource`), bounded like resource contents: a long text is cut (`truncated`,
 * `sizeBytes`), large image or audio data is left out (`omitted`, `sizeBytes`), an embedded
 * resource is a ResourceContentView.
 */
const PromptResultViewSchema = z.object({
  description: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: ContentBlockSchema })),
  traceId: z.string(),
});
export type PromptResultView = z.infer<typeof PromptResultViewSchema>;

/** What a completion is for: a prompt's argument, or a resource template's variable. */
const CompletionRefSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('prompt'), name: z.string().min(1).max(200) }).strict(),
  z.object({ type: z.literal('resource'), uriTemplate: ResourceUri }).strict(),
]);
export type CompletionRef = z.infer<typeof CompletionRefSchema>;

const CompletionViewSchema = z.object({
  values: z.array(z.string()),
  /** How many values exist in all, when the server says. */
  total: z.number().int().nonnegative().optional(),
  hasMore: z.boolean().optional(),
});
export type CompletionView = z.infer<typeof CompletionViewSchema>;

/** `resources.read`: a URI, or a template with its variables (main expands it, RFC 6570). */
const ResourceReadRequestSchema = z.union([
  z.object({ serverId: ServerIdSchema, uri: ResourceUri }).strict(),
  z.object({ serverId: ServerIdSchema, uriTemplate: ResourceUri, variables: ArgumentValues }).strict(),
]);

export const featureChannels = {
  /** A server's resources and resource templates (listed once per connection, again when it says they changed). `refresh` lists them anew. */
  'resources.list': channel(
    z.object({ serverId: ServerIdSchema, refresh: z.boolean().default(false) }).strict(),
    ResourceListViewSchema,
  ),
  /** Reads a resource (bounded for the GUI), recorded as a trace. */
  'resources.read': channel(ResourceReadRequestSchema, ResourceReadViewSchema),
  /** Subscribes to a resource's updates ('resources.updated'); answers the URIs subscribed on that server. */
  'resources.subscribe': channel(
    z.object({ serverId: ServerIdSchema, uri: ResourceUri }).strict(),
    z.object({ subscribed: z.array(z.string()) }),
  ),
  'resources.unsubscribe': channel(
    z.object({ serverId: ServerIdSchema, uri: ResourceUri }).strict(),
    z.object({ subscribed: z.array(z.string()) }),
  ),
  'prompts.list': channel(
    z.object({ serverId: ServerIdSchema, refresh: z.boolean().default(false) }).strict(),
    PromptListViewSchema,
  ),
  /** Gets a prompt with its arguments (bounded for the GUI), recorded as a trace. */
  'prompts.get': channel(
    z
      .object({ serverId: ServerIdSchema, name: z.string().min(1).max(200), arguments: ArgumentValues.default({}) })
      .strict(),
    PromptResultViewSchema,
  ),
  /** Suggestions for a prompt argument or a template variable; `context`: the values already entered in the form. */
  'completion.complete': channel(
    z
      .object({
        serverId: ServerIdSchema,
        ref: CompletionRefSchema,
        argument: z.object({ name: z.string().min(1).max(200), value: z.string().max(4096) }).strict(),
        context: z.record(z.string().min(1).max(200), z.string().max(4096)).optional(),
      })
      .strict(),
    CompletionViewSchema,
  ),
  // The person's models and agent runs (issue 21), defined in their own file.
} as const satisfies DomainChannels;

export const featureEvents = {
  /** A server's resources or templates changed (it said so, or it connected again): reload them with 'resources.list'. */
  'resources.changed': z.object({ serverId: z.string() }),
  /** A resource the app subscribed to changed on the server. */
  'resources.updated': z.object({ serverId: z.string(), uri: z.string(), at: z.number() }),
  /** A server's prompts changed (it said so, or it connected again): reload them with 'prompts.list'. */
  'prompts.changed': z.object({ serverId: z.string() }),
} as const satisfies DomainEvents;
