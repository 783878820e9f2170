/**
 * The contract's `people.*` part (issue 36, `miniharness serve` only): who has which role, and the
 * command line's API tokens. The admin page "People" uses them; every channel but `people.me` is
 * an admin's (electron/serve/roles.ts). The desktop app is one person's: there `people.me` says so
 * and the others answer `unavailable`.
 */
import { z } from 'zod';
import type { DomainChannels } from './common.js';
import { Empty, channel } from './common.js';

const TeamRoleSchema = z.enum(['viewer', 'approver', 'admin']);
export type TeamRole = z.infer<typeof TeamRoleSchema>;

const PersonKeySchema = z.object({ issuer: z.string().min(1).max(2000), subject: z.string().min(1).max(500) }).strict();

const PersonViewSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  /** The name, else the e-mail, else the subject. */
  label: z.string(),
  email: z.string().optional(),
  /** The role this person has now (null: none — they are refused at sign-in). */
  role: TeamRoleSchema.nullable(),
  /** The role the configuration file gives them: a floor the page cannot lower or remove. */
  configuredRole: TeamRoleSchema.nullable(),
  lastSignInAt: z.number().nullable(),
  /** The admin looking at the page. */
  you: z.boolean(),
});
export type PersonView = z.infer<typeof PersonViewSchema>;

const ApiTokenViewSchema = z.object({
  /** Made on the page: an id; configured in the file: null (it cannot be revoked here). */
  id: z.string().nullable(),
  name: z.string(),
  role: TeamRoleSchema,
  createdBy: z.string().nullable(),
  createdAt: z.number().nullable(),
  lastUsedAt: z.number().nullable(),
  revokedAt: z.number().nullable(),
});
export type ApiTokenView = z.infer<typeof ApiTokenViewSchema>;

export const peopleChannels = {
  /** Who is asking, in serve mode (the page shows "People" to an admin); the desktop app: `{ team: false }`. */
  'people.me': channel(
    Empty,
    z.discriminatedUnion('team', [
      z.object({ team: z.literal(false) }),
      z.object({ team: z.literal(true), name: z.string(), role: TeamRoleSchema }),
    ]),
  ),
  /** Everyone who signed in (with their role or none), and the API tokens. */
  'people.list': channel(Empty, z.object({ people: z.array(PersonViewSchema), tokens: z.array(ApiTokenViewSchema) })),
  /** Gives a person a role (their pages on every instance follow at once). */
  'people.setRole': channel(PersonKeySchema.extend({ role: TeamRoleSchema }).strict(), PersonViewSchema),
  /** Takes a person's role away: their sessions end; they are refused at their next sign-in. */
  'people.remove': channel(PersonKeySchema, z.object({ removed: z.boolean() })),
  /** A token for the command line (`MINIHARNESS_TOKEN`): its value is in the answer, once (only its SHA-256 is kept). */
  'people.createToken': channel(
    z
      .object({
        name: z
          .string()
          .trim()
          .min(1)
          .max(100)
          .regex(/^[\w .@-]+$/, 'letters, digits, spaces and . _ @ - only'),
        role: TeamRoleSchema,
      })
      .strict(),
    z.object({ token: ApiTokenViewSchema, secret: z.string() }),
  ),
  /** Revokes a token made on the page: refused by every instance from then on. */
  'people.revokeToken': channel(z.object({ id: z.string().min(1).max(100) }).strict(), ApiTokenViewSchema),
} as const satisfies DomainChannels;
