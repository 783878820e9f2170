/**
 * Where a server's OAuth credentials live: its tokens and the client registrations the
 * authorization servers gave (a dynamically registered client's secret included), one per
 * authorization server. Only in the
 * secret store — never in the configuration file, the database, a log, a trace or an event.
 *
 * Each record is bound to the server it was made for (its `uid`) and the URL it was issued for:
 * a record of another server that reused the id, or of a URL the server no longer has, is never
 * presented (it is deleted instead). A record that does not parse is deleted and reported once.
 */
import { OAuthTokensSchema } from '@modelcontextprotocol/core';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { SecretValue } from '../../secrets/secretValue.js';
import type { SecretStore } from '../../secrets/types.js';

export type CredentialKind = 'tokens' | 'client';

/** The secret-store keys of one server's OAuth records. */
export type CredentialKeys = (serverId: string, kind: CredentialKind) => string;

const Binding = z.object({ v: z.literal(1), uid: z.string().optional(), url: z.string() });
/**
 * The tokens as the SDK stamped them: `issuer` names the authorization server that issued them
 * (SEP-2352). Records saved before the stamp existed have none; they are carried over as they are.
 */
const TokensRecord = Binding.extend({
  tokens: OAuthTokensSchema.extend({ issuer: z.string().optional() }),
  savedAt: z.number(),
});
/** What the SDK hands to saveClientInformation, kept as given (its `issuer` binds it to one authorization server). */
const Registration = z.looseObject({
  client_id: z.string(),
  client_secret: z.string().optional(),
  issuer: z.string().optional(),
});
/**
 * The registrations, keyed by the authorization server that made them (SEP-2352: a protected
 * resource may move to another one, and back); `client` is the latest (its redirect port is the
 * one to listen on). Records saved before `clients` existed hold `client` alone.
 */
const ClientRecord = Binding.extend({
  client: Registration,
  clients: z.record(z.string(), Registration).optional(),
});

/** How many authorization servers' registrations are kept for one server (the oldest is forgotten first). */
export const MAX_REGISTRATIONS = 8;

export interface StoredTokens {
  tokens: OAuthTokens;
  savedAt: number;
}

/** The server a record belongs to. */
export interface CredentialOwner {
  serverId: string;
  uid: string | undefined;
  url: string;
}

export class OAuthCredentials {
  constructor(
    private readonly store: SecretStore,
    private readonly keyOf: CredentialKeys,
    private readonly note: (text: string) => void = () => undefined,
  ) {}

  async tokens(owner: CredentialOwner): Promise<StoredTokens | undefined> {
    const record = await this.read(owner, 'tokens', TokensRecord);
    return record ? { tokens: record.tokens, savedAt: record.savedAt } : undefined;
  }

  async saveTokens(owner: CredentialOwner, tokens: OAuthTokens, savedAt: number): Promise<void> {
    await this.write(owner, 'tokens', { tokens, savedAt });
  }

  /** The latest registration, whichever authorization server made it. */
  async client(owner: CredentialOwner): Promise<OAuthClientInformationMixed | undefined> {
    const record = await this.read(owner, 'client', ClientRecord);
    return record?.client as OAuthClientInformationMixed | undefined;
  }

  /**
   * The registration made with `issuer`; else one saved before registrations named their issuer
   * (the SDK stamps it at its next use); else none — a registration with another authorization
   * server is never presented to this one.
   */
  async clientFor(owner: CredentialOwner, issuer: string): Promise<OAuthClientInformationMixed | undefined> {
    const record = await this.read(owner, 'client', ClientRecord);
    if (!record) return undefined;
    const found = record.clients?.[issuer] ?? (record.client.issuer === undefined ? record.client : undefined);
    return found as OAuthClientInformationMixed | undefined;
  }

  /** Keeps `client` as the registration with its issuer (beside those with other issuers) and as the latest. */
  async saveClient(owner: CredentialOwner, client: OAuthClientInformationMixed): Promise<void> {
    const record = await this.read(owner, 'client', ClientRecord);
    const issuer = (client as { issuer?: unknown }).issuer;
    const clients = { ...(record?.clients ?? {}) };
    if (typeof issuer === 'string') {
      delete clients[issuer]; // re-inserted last: the newest
      clients[issuer] = client as z.infer<typeof Registration>;
    }
    const kept = Object.entries(clients).slice(-MAX_REGISTRATIONS);
    await this.write(owner, 'client', { client, ...(kept.length ? { clients: Object.fromEntries(kept) } : {}) });
  }

  async delete(serverId: string, kind: CredentialKind): Promise<void> {
    await this.store.delete(this.keyOf(serverId, kind));
  }

  /** Every OAuth record of a server (it was removed, or its identity changed). */
  async forget(serverId: string): Promise<void> {
    await this.delete(serverId, 'tokens');
    await this.delete(serverId, 'client');
  }

  private async write(owner: CredentialOwner, kind: CredentialKind, body: Record<string, unknown>): Promise<void> {
    const record = { v: 1, ...(owner.uid !== undefined ? { uid: owner.uid } : {}), url: owner.url, ...body };
    await this.store.set(this.keyOf(owner.serverId, kind), new SecretValue(JSON.stringify(record)));
  }

  private async read<T extends z.infer<typeof Binding>>(
    owner: CredentialOwner,
    kind: CredentialKind,
    schema: z.ZodType<T>,
  ): Promise<T | undefined> {
    const key = this.keyOf(owner.serverId, kind);
    const stored = await this.store.get(key);
    if (!stored) return undefined;
    let parsed: z.ZodSafeParseResult<T>;
    try {
      parsed = schema.safeParse(JSON.parse(stored.reveal()));
    } catch {
      parsed = { success: false } as z.ZodSafeParseResult<T>;
    }
    if (!parsed.success) {
      this.note(
        `the saved OAuth ${kind === 'tokens' ? 'sign-in' : 'client registration'} could not be read; it was deleted (sign in again)`,
      );
      await this.store.delete(key);
      return undefined;
    }
    const record = parsed.data;
    if (record.url !== owner.url || (owner.uid !== undefined && record.uid !== undefined && record.uid !== owner.uid)) {
      // Issued for another URL or another server under this id: never sent, and not kept.
      await this.store.delete(key);
      return undefined;
    }
    return record;
  }
}
