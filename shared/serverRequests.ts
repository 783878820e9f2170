/**
 * What a server asks of the person, as the contract carries it: elicitation (a form built from
 * the server's `requestedSchema`, or a link to open) and sampling (a model response the person
 * writes or rejects). Main shows a request only once it fits these schemas; the renderer builds its
 * dialog from them; the person's answer comes back as an `ServerRequestAnswer`.
 *
 * `requestedSchema` is the spec's restricted subset of JSON Schema: one flat object whose
 * properties are primitives (string with an optional format, number / integer, boolean, a single
 * choice from a list, several choices from a list). Sizes are bounded so a dialog stays a dialog.
 */
import { z } from 'zod';

/** The most fields one elicitation form may have. */
const MAX_ELICITATION_FIELDS = 100;
/** The most choices one list field may offer. */
const MAX_ELICITATION_CHOICES = 500;
/** The longest message, title or description shown in a request, in characters. */
const MAX_SERVER_REQUEST_TEXT_CHARS = 20_000;
/** The longest text one answer field (or a sampling response) may hold, in characters. */
const MAX_SERVER_REQUEST_ANSWER_CHARS = 1_000_000;

const Text = z.string().max(MAX_SERVER_REQUEST_TEXT_CHARS);
const Choice = z.string().max(1_000);
const Described = { title: Text.optional(), description: Text.optional() };
const Count = z.number().int().nonnegative();

const StringField = z.object({
  type: z.literal('string'),
  ...Described,
  minLength: Count.optional(),
  maxLength: Count.optional(),
  format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
  default: z.string().max(MAX_SERVER_REQUEST_ANSWER_CHARS).optional(),
});
const NumberField = z.object({
  type: z.enum(['number', 'integer']),
  ...Described,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
const BooleanField = z.object({ type: z.literal('boolean'), ...Described, default: z.boolean().optional() });
const Choices = z.array(Choice).min(1).max(MAX_ELICITATION_CHOICES);
const TitledChoices = z
  .array(z.object({ const: Choice, title: Text }))
  .min(1)
  .max(MAX_ELICITATION_CHOICES);
/** One choice: `enum` (with the legacy `enumNames` for its titles) or `oneOf` of titled constants. */
const SingleChoiceField = z.union([
  z.object({
    type: z.literal('string'),
    ...Described,
    enum: Choices,
    enumNames: z.array(Text).max(MAX_ELICITATION_CHOICES).optional(),
    default: Choice.optional(),
  }),
  z.object({ type: z.literal('string'), ...Described, oneOf: TitledChoices, default: Choice.optional() }),
]);
/** Several choices: an array of strings from `items.enum` or `items.anyOf`. */
const MultiChoiceField = z.object({
  type: z.literal('array'),
  ...Described,
  minItems: Count.optional(),
  maxItems: Count.optional(),
  items: z.union([z.object({ type: z.literal('string'), enum: Choices }), z.object({ anyOf: TitledChoices })]),
  default: z.array(Choice).max(MAX_ELICITATION_CHOICES).optional(),
});

/** One field of an elicitation form. The choice fields come first: a plain string field would also match them. */
const ElicitationFieldSchema = z.union([SingleChoiceField, MultiChoiceField, BooleanField, StringField, NumberField]);
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>;

const ElicitationSchemaSchema = z
  .object({
    type: z.literal('object'),
    properties: z.record(z.string().min(1).max(200), ElicitationFieldSchema),
    required: z.array(z.string().max(200)).max(MAX_ELICITATION_FIELDS).optional(),
  })
  .refine(
    (schema) => Object.keys(schema.properties).length <= MAX_ELICITATION_FIELDS,
    `at most ${MAX_ELICITATION_FIELDS} fields`,
  );
export type ElicitationSchema = z.infer<typeof ElicitationSchemaSchema>;

/** A content block of a sampling message as the dialog shows it (text, image, audio; others by type). */
const SamplingContentSchema = z.looseObject({ type: z.string() });

const SamplingMessageViewSchema = z.object({
  role: z.enum(['user', 'assistant']),
  /** Always a list here (the protocol allows one block or a list). */
  content: z.array(SamplingContentSchema),
});

const Common = {
  /** Random, for this request only: the answer names it, once. */
  requestId: z.string(),
  serverId: z.string(),
  /** The server's name as the person configured it (the dialog names the server). */
  serverName: z.string(),
  /** Epoch ms after which the request closes without an answer. */
  expiresAt: z.number(),
};

export const ServerRequestViewSchema = z.discriminatedUnion('kind', [
  /** Elicitation, form mode: fields to fill; accept (with the values), decline or cancel. */
  z.object({ kind: z.literal('elicitation-form'), ...Common, message: Text, requestedSchema: ElicitationSchemaSchema }),
  /** Elicitation, URL mode: a link (http or https) the person may open; accept means "I opened it". */
  z.object({ kind: z.literal('elicitation-url'), ...Common, message: Text, url: z.string().max(8_192) }),
  /** Sampling: what the server would send a model; the person writes the response or rejects it. */
  z.object({
    kind: z.literal('sampling'),
    ...Common,
    messages: z.array(SamplingMessageViewSchema).max(1_000),
    systemPrompt: z.string().max(MAX_SERVER_REQUEST_ANSWER_CHARS).optional(),
    maxTokens: z.number().int(),
    temperature: z.number().optional(),
    stopSequences: z.array(Text).max(100).optional(),
    modelPreferences: z
      .object({
        hints: z
          .array(z.object({ name: Text.optional() }))
          .max(100)
          .optional(),
        costPriority: z.number().optional(),
        speedPriority: z.number().optional(),
        intelligencePriority: z.number().optional(),
      })
      .optional(),
    /** `thisServer` / `allServers`: context the server asked to include; this client includes none. */
    includeContext: z.enum(['none', 'thisServer', 'allServers']).optional(),
  }),
]);
export type ServerRequestView = z.infer<typeof ServerRequestViewSchema>;
export type ServerRequestKind = ServerRequestView['kind'];

/** One value of an accepted form: what the field types allow. */
const ElicitationValueSchema = z.union([
  z.string().max(MAX_SERVER_REQUEST_ANSWER_CHARS),
  z.number(),
  z.boolean(),
  z.array(Choice).max(MAX_ELICITATION_CHOICES),
]);

/**
 * The person's answer. Elicitation: `accept` (form values; none for a link), `decline` (said no)
 * or `cancel` (dismissed). Sampling: `respond` with the response text and the model name to
 * report, or `reject`.
 */
export const ServerRequestAnswerSchema = z.discriminatedUnion('action', [
  z
    .object({ action: z.literal('accept'), content: z.record(z.string().max(200), ElicitationValueSchema).optional() })
    .strict(),
  z.object({ action: z.literal('decline') }).strict(),
  z.object({ action: z.literal('cancel') }).strict(),
  z
    .object({
      action: z.literal('respond'),
      text: z.string().max(MAX_SERVER_REQUEST_ANSWER_CHARS),
      model: z.string().trim().min(1).max(200),
    })
    .strict(),
  z.object({ action: z.literal('reject') }).strict(),
]);
export type ServerRequestAnswer = z.infer<typeof ServerRequestAnswerSchema>;

/** Which answers fit which ask. */
export const ANSWERS_OF: Record<ServerRequestKind, ReadonlyArray<ServerRequestAnswer['action']>> = {
  'elicitation-form': ['accept', 'decline', 'cancel'],
  'elicitation-url': ['accept', 'decline', 'cancel'],
  sampling: ['respond', 'reject'],
};

/**
 * Why a request closed: answered, nobody answered in time, the server (or its connection) withdrew
 * it, or the tool call that asked ended first (`call_ended`: nobody waits for the answer).
 */
export const ServerRequestClosedSchema = z.object({
  requestId: z.string(),
  outcome: z.enum(['answered', 'expired', 'cancelled', 'call_ended']),
});
