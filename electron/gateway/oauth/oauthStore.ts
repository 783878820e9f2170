/**
 * What the gateway's authorization server (oidc-provider) keeps, behind the library's Adapter
 * interface: registered clients, grants, access and refresh tokens — durable, in one file of the
 * data folder (`gateway-oauth.json`, written atomically, 0600) with the signing key — and the
 * short-lived rest (authorization codes, interactions, browser sessions) in memory only, bounded
 * (MAX_PENDING_RECORDS): a restart forgets a sign-in in progress, never a finished one.
 *
 * Tokens are never stored as they are: an access, refresh or authorization code is kept under its
 * SHA-256 and its value (`jti`) is dropped from the stored payload, given back only to whoever
 * presents the token itself (256 random bits: a fast hash suffices, as for the agents' tokens).
 * Nothing here is logged. A file that does not parse is moved aside and reported; the app starts
 * with no sign-ins (the agents stay listed; their clients sign in again).
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { jsonProblem, moveAside } from '../../storage/damagedFile.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../../storage/privateFiles.js';

/** Models kept across restarts. */
export const DURABLE = new Set(['Client', 'Grant', 'AccessToken', 'RefreshToken']);
/**
 * Registration is open (any local program, and any web page through CORS, may register a client):
 * beyond this many clients, the oldest that no grant uses are forgotten, so the file stays small.
 */
export const MAX_CLIENTS = 200;
/**
 * Records kept in memory (sign-ins in progress, browser sessions, codes) at most: any web page can
 * open `/authorize` in a loop, and each visit starts an interaction that lasts minutes. Beyond
 * this, the expired go, then the oldest (a sign-in flooded out is started again from the agent).
 */
export const MAX_PENDING_RECORDS = 5_000;
/**
 * Each refresh adds an access token (valid an hour) and a refresh token (the one it replaced is
 * kept, consumed, so that presenting it again ends the grant). A client that refreshes often would
 * grow the file without bound: per grant, at most this many of each are kept — the oldest go first,
 * consumed refresh tokens before the one in use. (A stolen refresh token used this many rotations
 * before its owner's is then refused as unknown rather than ending the grant.)
 */
export const MAX_TOKENS_PER_GRANT = 20;
/**
 * A durable note, per grant, that a token was issued under it once (so "expired" is told apart
 * from "never redeemed" after its tokens are gone); removed with the grant's other records.
 */
export const ISSUED = 'Issued';
/** Models whose id is a bearer secret: stored under its hash. */
export const SECRET_IDS = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);

interface StoredRecord {
  payload: AdapterPayload;
  /** Epoch ms; absent: kept until removed. */
  expiresAt?: number;
}

interface FileShape {
  version: 1;
  /** The private signing key (JWK) of ID tokens, made on first use. */
  signingKey?: Record<string, unknown>;
  records: Record<string, StoredRecord>;
}

export function hashOf(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

export type GrantState = 'waiting' | 'active' | 'expired' | 'ended';

/**
 * What the gateway's sign-in needs kept (this file's OAuthStore; PostgreSQL: postgresOAuthStore.ts,
 * shared by the instances on one database). The adapter is the library's, asynchronous; the grant
 * state is read synchronously (the Agents view), from what the store knows now.
 */
export interface OAuthStorage {
  /** Signs the browser's interaction cookies (per process: a sign-in finishes where it started). */
  readonly cookieKey: string;
  onGrantsChanged: (() => void) | undefined;
  adapterFor(model: string): Adapter;
  /** A grant and every token and code issued under it end now (PostgreSQL: once the delete is done). */
  revokeGrant(grantId: string): void | Promise<void>;
  grantState(grantId: string): GrantState;
  signingJwk(): Record<string, unknown>;
}

export class OAuthStore implements OAuthStorage {
  private durable = new Map<string, StoredRecord>();
  private readonly memory = new Map<string, StoredRecord>();
  private signingKey: Record<string, unknown> | undefined;
  /** A grant or its tokens changed (a code redeemed, a grant ended): the Agents view reads sign-in states again. */
  onGrantsChanged: (() => void) | undefined;
  /** Per process: signs the browser's interaction cookies, which last minutes. */
  readonly cookieKey = randomBytes(32).toString('base64url');

  constructor(
    /** The file; memory only when absent. */
    private readonly file: string | undefined,
    private readonly warn: (message: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.load();
  }

  /** The Adapter oidc-provider uses for one model. */
  adapterFor(model: string): Adapter {
    const keyOf = (id: string): string => `${model}:${SECRET_IDS.has(model) ? hashOf(id) : id}`;
    return {
      upsert: (id, payload, expiresIn) => {
        const kept: AdapterPayload = { ...payload };
        if (SECRET_IDS.has(model)) delete kept.jti;
        this.put(model, keyOf(id), {
          payload: kept,
          ...(typeof expiresIn === 'number' ? { expiresAt: this.now() + expiresIn * 1000 } : {}),
        });
        return Promise.resolve();
      },
      find: (id) => {
        const record = this.get(keyOf(id));
        if (!record) return Promise.resolve(undefined);
        return Promise.resolve(SECRET_IDS.has(model) ? { ...record.payload, jti: id } : { ...record.payload });
      },
      findByUid: (uid) => Promise.resolve(this.findWhere(model, (p) => p.uid === uid)),
      findByUserCode: (userCode) => Promise.resolve(this.findWhere(model, (p) => p.userCode === userCode)),
      consume: (id) => {
        const key = keyOf(id);
        const record = this.get(key);
        if (record)
          this.put(model, key, { ...record, payload: { ...record.payload, consumed: Math.floor(this.now() / 1000) } });
        return Promise.resolve();
      },
      destroy: (id) => {
        this.remove((key) => key === keyOf(id) || (model === 'Grant' && key === `${ISSUED}:${id}`));
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        this.remove((key, record) => key.startsWith(`${model}:`) && record.payload.grantId === grantId);
        return Promise.resolve();
      },
    };
  }

  /**
   * A grant and every token and code issued under it. Called when the person revokes or removes
   * the agent the grant made: its tokens stop working at once.
   */
  revokeGrant(grantId: string): void {
    this.remove((key, record) => key === `Grant:${grantId}` || record.payload.grantId === grantId);
  }

  /**
   * Where a grant stands (shared/agents.ts SignInState): gone → ended; a valid access token or an
   * unconsumed, unexpired refresh token → active; tokens issued once but none valid now → expired;
   * none ever issued (the consent allowed, the code never redeemed) → waiting.
   */
  grantState(grantId: string): GrantState {
    if (!this.get(`Grant:${grantId}`)) return 'ended';
    const now = this.now();
    for (const [key, record] of this.durable) {
      if (record.payload.grantId !== grantId) continue;
      const access = key.startsWith('AccessToken:');
      if (!access && !key.startsWith('RefreshToken:')) continue;
      const valid = record.expiresAt === undefined || record.expiresAt > now;
      if (valid && (access || record.payload.consumed === undefined)) return 'active';
    }
    return this.durable.has(`${ISSUED}:${grantId}`) ? 'expired' : 'waiting';
  }

  /** The private JWK that signs ID tokens (only a client asking for `openid` gets one): made once, then kept. */
  signingJwk(): Record<string, unknown> {
    if (!this.signingKey) {
      const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<
        string,
        unknown
      >;
      this.signingKey = { ...jwk, use: 'sig', alg: 'ES256', kid: randomBytes(8).toString('hex') };
      this.save();
    }
    return this.signingKey;
  }

  private get(key: string): StoredRecord | undefined {
    const record = this.durable.get(key) ?? this.memory.get(key);
    if (record?.expiresAt !== undefined && record.expiresAt <= this.now()) return undefined;
    return record;
  }

  private findWhere(model: string, match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined {
    for (const [key, record] of this.all()) {
      if (
        key.startsWith(`${model}:`) &&
        match(record.payload) &&
        (record.expiresAt === undefined || record.expiresAt > this.now())
      )
        return { ...record.payload };
    }
    return undefined;
  }

  private *all(): Iterable<[string, StoredRecord]> {
    yield* this.durable;
    yield* this.memory;
  }

  private put(model: string, key: string, record: StoredRecord): void {
    if (DURABLE.has(model)) {
      this.durable.set(key, record);
      if (model === 'Client') this.forgetUnusedClients();
      if (model === 'AccessToken' || model === 'RefreshToken') {
        this.keepNewestTokens(model, record.payload.grantId);
        const grantId = record.payload.grantId;
        if (typeof grantId === 'string') this.durable.set(`${ISSUED}:${grantId}`, { payload: { grantId } });
      }
      this.save();
      if (model === 'AccessToken' || model === 'RefreshToken' || model === 'Grant') this.onGrantsChanged?.();
    } else {
      // Re-inserted: the most recently written is the last to be dropped.
      this.memory.delete(key);
      this.memory.set(key, record);
      this.pruneMemory();
    }
  }

  private remove(match: (key: string, record: StoredRecord) => boolean): void {
    let changed = false;
    for (const [key, record] of [...this.durable]) {
      if (match(key, record)) changed = this.durable.delete(key) || changed;
    }
    for (const [key, record] of [...this.memory]) if (match(key, record)) this.memory.delete(key);
    if (changed) {
      this.save();
      this.onGrantsChanged?.();
    }
  }

  private forgetUnusedClients(): void {
    const clients = [...this.durable.keys()].filter((key) => key.startsWith('Client:'));
    if (clients.length <= MAX_CLIENTS) return;
    const used = new Set<unknown>();
    for (const [key, record] of this.durable) if (key.startsWith('Grant:')) used.add(record.payload.clientId);
    let excess = clients.length - MAX_CLIENTS;
    // Oldest first (a Map keeps insertion order); the one just registered is last, so it stays.
    for (const key of clients) {
      if (excess === 0) break;
      if (used.has(key.slice('Client:'.length))) continue;
      this.durable.delete(key);
      excess--;
    }
  }

  private keepNewestTokens(model: string, grantId: unknown): void {
    if (typeof grantId !== 'string') return;
    const now = this.now();
    const ofGrant = [...this.durable].filter(
      ([key, record]) => key.startsWith(`${model}:`) && record.payload.grantId === grantId,
    );
    let excess = ofGrant.length - MAX_TOKENS_PER_GRANT;
    if (excess <= 0) return;
    // Expired first, then consumed, then the oldest (a Map keeps insertion order); the newest is last, so it stays.
    const rank = ([, record]: [string, StoredRecord]): number =>
      record.expiresAt !== undefined && record.expiresAt <= now ? 0 : record.payload.consumed !== undefined ? 1 : 2;
    for (const [key] of ofGrant
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => rank(a.entry) - rank(b.entry) || a.index - b.index)
      .map(({ entry }) => entry)) {
      if (excess === 0) break;
      this.durable.delete(key);
      excess--;
    }
  }

  private pruneMemory(): void {
    if (this.memory.size <= MAX_PENDING_RECORDS) return;
    const now = this.now();
    for (const [key, record] of this.memory)
      if (record.expiresAt !== undefined && record.expiresAt <= now) this.memory.delete(key);
    // Oldest first (a Map keeps insertion order).
    for (const key of this.memory.keys()) {
      if (this.memory.size <= MAX_PENDING_RECORDS) break;
      this.memory.delete(key);
    }
  }

  private load(): void {
    if (!this.file) return;
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const json = jsonProblem(text);
    const value = 'value' in json ? (json.value as Partial<FileShape> | null) : undefined;
    if (
      !value ||
      typeof value !== 'object' ||
      value.version !== 1 ||
      typeof value.records !== 'object' ||
      value.records === null
    ) {
      const movedTo = moveAside(this.file);
      this.warn(
        `The agents' sign-in file could not be read${movedTo ? ` and was moved to "${movedTo}"` : ''}: agents that signed in must sign in again.`,
      );
      return;
    }
    const now = this.now();
    for (const [key, record] of Object.entries(value.records)) {
      if (
        record &&
        typeof record === 'object' &&
        typeof record.payload === 'object' &&
        (record.expiresAt === undefined || record.expiresAt > now)
      )
        this.durable.set(key, record);
    }
    if (value.signingKey && typeof value.signingKey === 'object') this.signingKey = value.signingKey;
  }

  private save(): void {
    if (!this.file) return;
    const now = this.now();
    for (const [key, record] of this.durable)
      if (record.expiresAt !== undefined && record.expiresAt <= now) this.durable.delete(key);
    const shape: FileShape = {
      version: 1,
      ...(this.signingKey ? { signingKey: this.signingKey } : {}),
      records: Object.fromEntries(this.durable),
    };
    ensurePrivateDir(dirname(this.file));
    writeFileAtomic.sync(this.file, JSON.stringify(shape), { mode: PRIVATE_FILE_MODE });
  }
}
