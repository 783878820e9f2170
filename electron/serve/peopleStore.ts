/**
 * Where `miniharness serve` keeps who has which role, the pending bootstrap token and the API
 * tokens made on the People page: one interface, two implementations. A serve on SQLite keeps
 * them in people.json in its data folder (this file); a serve on PostgreSQL in the database
 * (postgresPeopleStore.ts), shared by every instance there — one first admin per database, and a
 * role change or a revoked token seen by all at once.
 *
 * Reads are from memory (a role is checked on every request, a token on every connection);
 * writes are stored before they are used. Tokens only as their SHA-256 (hex).
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { ROLES } from './roles.js';
import type { Role } from './roles.js';

export interface PersonKey {
  issuer: string;
  subject: string;
}

export interface StoredPerson extends PersonKey {
  email?: string;
  name?: string;
  /** Absent: signed in, no role given here (the configuration may still give one). */
  role?: Role;
  lastSignInAt?: number;
}

export interface StoredApiToken {
  id: string;
  name: string;
  role: Role;
  sha256: string;
  createdBy: string;
  createdAt: number;
  lastUsedAt?: number;
  revokedAt?: number;
}

export interface PeopleStorage {
  people(): readonly StoredPerson[];
  tokens(): readonly StoredApiToken[];
  /** Replaces the pending bootstrap token (a restart before it was used prints a new one). */
  setBootstrap(sha256: string): Promise<void>;
  /** Uses up the pending token when `sha256` is its hash and makes the person an admin, in one step; false otherwise. */
  redeemBootstrap(sha256: string, person: StoredPerson): Promise<boolean>;
  /** Records a sign-in (name, e-mail, time), keeping the person's role. */
  seen(person: StoredPerson): Promise<void>;
  /**
   * undefined: no such person. With `keepAnotherAdmin`, refused ('last_admin') unless another person keeps the admin role — checked
   * with the write, so two admins demoting each other at once (two instances) cannot both succeed.
   */
  setRole(key: PersonKey, role: Role, keepAnotherAdmin?: boolean): Promise<StoredPerson | undefined | 'last_admin'>;
  remove(key: PersonKey, keepAnotherAdmin?: boolean): Promise<boolean | 'last_admin'>;
  /** false: a live token has this name (names are compared lower-cased). */
  addToken(token: StoredApiToken): Promise<boolean>;
  /** The token as revoked (the first revocation's time stays); undefined: no such token. */
  revokeToken(id: string, at: number): Promise<StoredApiToken | undefined>;
  /** Notes a token's use (not announced: another instance sees it at its next read). */
  touchToken(id: string, at: number): Promise<void>;
  /** After another instance's change was read. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

export const sameKey = (a: PersonKey, b: PersonKey): boolean => a.issuer === b.issuer && a.subject === b.subject;

const RoleSchema = z.enum(ROLES);
const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const FileSchema = z.object({
  people: z
    .array(
      z.object({
        issuer: z.string(),
        subject: z.string(),
        email: z.string().optional(),
        name: z.string().optional(),
        role: RoleSchema.optional(),
        lastSignInAt: z.number().optional(),
      }),
    )
    .default([]),
  tokens: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        role: RoleSchema,
        sha256: Hex64,
        createdBy: z.string(),
        createdAt: z.number(),
        lastUsedAt: z.number().optional(),
        revokedAt: z.number().optional(),
      }),
    )
    .default([]),
  /** Before the People page: the bootstrap's admins only (read as people with the admin role). */
  admins: z.array(z.object({ issuer: z.string(), subject: z.string() })).optional(),
  bootstrapSha256: Hex64.optional(),
});
type FileState = Omit<z.infer<typeof FileSchema>, 'admins'>;

/** people.json in the data folder (mode 0600), written whole and atomically on each change. */
export class FilePeopleStore implements PeopleStorage {
  private state: FileState;
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'people.json');
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      raw = {};
    }
    const { admins, ...state } = FileSchema.parse(raw);
    for (const admin of admins ?? [])
      if (!state.people.some((p) => sameKey(p, admin))) state.people.push({ ...admin, role: 'admin' });
    this.state = state;
  }

  people(): readonly StoredPerson[] {
    return this.state.people;
  }

  tokens(): readonly StoredApiToken[] {
    return this.state.tokens;
  }

  setBootstrap(sha256: string): Promise<void> {
    this.save({ ...this.state, bootstrapSha256: sha256 });
    return Promise.resolve();
  }

  redeemBootstrap(sha256: string, person: StoredPerson): Promise<boolean> {
    const expected = this.state.bootstrapSha256;
    if (!expected || !timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(sha256, 'hex')))
      return Promise.resolve(false);
    const { bootstrapSha256: _used, ...rest } = this.state;
    this.save({ ...rest, people: [...rest.people.filter((p) => !sameKey(p, person)), { ...person, role: 'admin' }] });
    return Promise.resolve(true);
  }

  seen(person: StoredPerson): Promise<void> {
    const before = this.state.people.find((p) => sameKey(p, person));
    const next = { ...person, ...(before?.role ? { role: before.role } : {}) };
    this.save({ ...this.state, people: [...this.state.people.filter((p) => !sameKey(p, person)), next] });
    return Promise.resolve();
  }

  setRole(key: PersonKey, role: Role): Promise<StoredPerson | undefined> {
    const before = this.state.people.find((p) => sameKey(p, key));
    if (!before) return Promise.resolve(undefined);
    const next = { ...before, role };
    this.save({ ...this.state, people: this.state.people.map((p) => (p === before ? next : p)) });
    return Promise.resolve(next);
  }

  remove(key: PersonKey): Promise<boolean> {
    const people = this.state.people.filter((p) => !sameKey(p, key));
    if (people.length === this.state.people.length) return Promise.resolve(false);
    this.save({ ...this.state, people });
    return Promise.resolve(true);
  }

  addToken(token: StoredApiToken): Promise<boolean> {
    const name = token.name.toLowerCase();
    if (this.state.tokens.some((t) => t.revokedAt === undefined && t.name.toLowerCase() === name))
      return Promise.resolve(false);
    this.save({ ...this.state, tokens: [...this.state.tokens, token] });
    return Promise.resolve(true);
  }

  revokeToken(id: string, at: number): Promise<StoredApiToken | undefined> {
    const before = this.state.tokens.find((t) => t.id === id);
    if (!before) return Promise.resolve(undefined);
    const next = { ...before, revokedAt: before.revokedAt ?? at };
    this.save({ ...this.state, tokens: this.state.tokens.map((t) => (t === before ? next : t)) });
    return Promise.resolve(next);
  }

  touchToken(id: string, at: number): Promise<void> {
    this.save({ ...this.state, tokens: this.state.tokens.map((t) => (t.id === id ? { ...t, lastUsedAt: at } : t)) });
    return Promise.resolve();
  }

  onChange(): () => void {
    // One instance per data folder: nobody else changes the file.
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private save(next: FileState): void {
    writeFileAtomic.sync(this.file, JSON.stringify(next, null, 2), { mode: 0o600 });
    this.state = next;
  }
}
