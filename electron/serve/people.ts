/**
 * Who has which role on `miniharness serve`, and the command line's API tokens.
 *
 * A role comes from the configuration's `people` (by e-mail or subject) or from the People page
 * (stored in peopleStore.ts: people.json, or PostgreSQL shared by every instance). The configured
 * role is a floor: the page may raise it, never lower or remove it. The first admin comes from
 * the one-time bootstrap token (kept only as its SHA-256, used up by the first sign-in with it).
 * API tokens are the configuration's (`apiTokens`, by SHA-256) and those an admin made on the
 * page (revocable there). The rules the page follows (errors as codes) are here; the audit lines
 * are written by the channels (peopleChannels.ts).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ApiTokenView, PersonView } from '../../shared/contract.js';
import { CodedError } from '../util/codedError.js';
import { hashToken } from '../security/tokenHash.js';
import type { PeopleStorage, PersonKey, StoredApiToken, StoredPerson } from './peopleStore.js';
import { sameKey } from './peopleStore.js';
import type { Role } from './roles.js';

export interface Person {
  issuer: string;
  subject: string;
  email?: string;
  name?: string;
}

/** How a person is named in records and on pages. */
export function personLabel(person: Person): string {
  return person.name ?? person.email ?? person.subject;
}

export interface ConfiguredApiToken {
  name: string;
  role: Role;
  sha256: string;
}

/** Who an API token is: its name, role, and its id when made on the page (a configured one has none). */
export interface ApiTokenCaller {
  name: string;
  role: Role;
  id?: string;
}

type PeopleErrorCode = 'person_configured' | 'last_admin' | 'token_name_taken' | 'not_found';

/** A change the People page asked for and that is refused; the message is a sentence for the admin. */
class PeopleError extends CodedError<PeopleErrorCode> {
  constructor(
    readonly code: PeopleErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };
/** A token's last use is written at most this often (each use is a request; the page shows minutes). */
const TOUCH_EVERY_MS = 60_000;

export class People {
  constructor(
    private readonly storage: PeopleStorage,
    private readonly configured: Record<string, Role>,
    private readonly configuredTokens: readonly ConfiguredApiToken[] = [],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * At first start (no admin configured or given yet) a new one-time token, else undefined. A
   * restart before it was used replaces it (the old one stops working); on PostgreSQL the token is
   * one per database: the last instance started prints the one that works.
   */
  async bootstrapToken(): Promise<string | undefined> {
    if (this.hasAdmin()) return undefined;
    const token = randomBytes(24).toString('base64url');
    await this.storage.setBootstrap(hashToken(token));
    return token;
  }

  /**
   * Makes `person` an admin when `tokenSha256` is the SHA-256 of the pending bootstrap token (it is then used
   * up); the sign-in kept only the hash while it was pending.
   */
  redeemBootstrap(person: Person, tokenSha256: string): Promise<boolean> {
    return this.storage.redeemBootstrap(tokenSha256, { ...person, lastSignInAt: this.now() });
  }

  configuredRoleOf(person: Person): Role | undefined {
    return (person.email && this.configured[person.email]) || this.configured[person.subject] || undefined;
  }

  /** The higher of the configured role and the page's. */
  roleOf(person: Person): Role | undefined {
    const configured = this.configuredRoleOf(person);
    const stored = this.storage.people().find((p) => sameKey(p, person))?.role;
    if (!configured) return stored;
    if (!stored) return configured;
    return RANK[stored] > RANK[configured] ? stored : configured;
  }

  /** Records a sign-in, with or without a role: the People page lists them, so an admin can give one. */
  seen(person: Person): Promise<void> {
    return this.storage.seen({ ...person, lastSignInAt: this.now() });
  }

  /** The caller an API token is, compared by SHA-256 in constant time; a revoked one is nobody. */
  apiCaller(token: string | undefined): ApiTokenCaller | undefined {
    if (!token) return undefined;
    const hash = Buffer.from(hashToken(token), 'hex');
    const equal = (sha256: string): boolean => timingSafeEqual(Buffer.from(sha256, 'hex'), hash);
    const configured = this.configuredTokens.find((t) => equal(t.sha256));
    if (configured) return { name: configured.name, role: configured.role };
    const made = this.storage.tokens().find((t) => t.revokedAt === undefined && equal(t.sha256));
    if (!made) return undefined;
    this.touch(made);
    return { name: made.name, role: made.role, id: made.id };
  }

  /** Whether a token made on the page is still live (checked on each request of a connection it opened). */
  tokenLive(id: string): boolean {
    return this.storage.tokens().some((t) => t.id === id && t.revokedAt === undefined);
  }

  list(viewer: Person): { people: PersonView[]; tokens: ApiTokenView[] } {
    const people = this.storage.people().map((p) => this.view(p, viewer));
    people.sort((a, b) => (b.lastSignInAt ?? 0) - (a.lastSignInAt ?? 0) || a.label.localeCompare(b.label));
    const configured: ApiTokenView[] = this.configuredTokens.map((t) => ({
      id: null,
      name: t.name,
      role: t.role,
      createdBy: null,
      createdAt: null,
      lastUsedAt: null,
      revokedAt: null,
    }));
    return { people, tokens: [...configured, ...this.storage.tokens().map(tokenView)] };
  }

  async setRole(viewer: Person, key: PersonKey, role: Role): Promise<PersonView> {
    const person = this.find(key);
    const configured = this.configuredRoleOf(person);
    if (configured && RANK[role] < RANK[configured])
      throw new PeopleError(
        'person_configured',
        `${personLabel(person)} is ${configured} by the configuration file; a lower role is set there, not here.`,
      );
    const guard = role !== 'admin' && this.keepAnAdmin(person);
    const changed = await this.storage.setRole(key, role, guard);
    if (changed === 'last_admin') throw lastAdmin(person);
    if (!changed) throw notFound();
    return this.view(changed, viewer);
  }

  async remove(key: PersonKey): Promise<boolean> {
    const person = this.storage.people().find((p) => sameKey(p, key));
    if (!person) return false;
    if (this.configuredRoleOf(person))
      throw new PeopleError(
        'person_configured',
        `${personLabel(person)} is named in the configuration file; remove them there and restart.`,
      );
    const removed = await this.storage.remove(key, this.keepAnAdmin(person));
    if (removed === 'last_admin') throw lastAdmin(person);
    return removed;
  }

  async createToken(by: Person, name: string, role: Role): Promise<{ token: ApiTokenView; secret: string }> {
    const taken = (): PeopleError =>
      new PeopleError('token_name_taken', `A token named "${name}" exists already; choose another name.`);
    if (this.configuredTokens.some((t) => t.name.toLowerCase() === name.toLowerCase())) throw taken();
    const secret = `mh_${randomBytes(32).toString('base64url')}`;
    const token: StoredApiToken = {
      id: randomUUID(),
      name,
      role,
      sha256: hashToken(secret),
      createdBy: personLabel(by),
      createdAt: this.now(),
    };
    if (!(await this.storage.addToken(token))) throw taken();
    return { token: tokenView(token), secret };
  }

  async revokeToken(id: string): Promise<ApiTokenView> {
    const revoked = await this.storage.revokeToken(id, this.now());
    if (!revoked) throw new PeopleError('not_found', 'There is no such API token (it may have been removed).');
    return tokenView(revoked);
  }

  close(): Promise<void> {
    return this.storage.close();
  }

  private hasAdmin(): boolean {
    return (
      Object.values(this.configured).includes('admin') || this.storage.people().some((p) => this.roleOf(p) === 'admin')
    );
  }

  /**
   * Refuses a change that would leave nobody able to manage people — taking the admin role from the last admin
   * as this instance knows them (an admin of the file always stays); true when the storage
   * must check it again with the write (no admin is configured in the file: another instance may be demoting
   * the other admin at this moment).
   */
  private keepAnAdmin(changing: StoredPerson): boolean {
    if (this.roleOf(changing) !== 'admin' || Object.values(this.configured).includes('admin')) return false;
    const others = this.storage.people().filter((p) => !sameKey(p, changing) && this.roleOf(p) === 'admin');
    if (others.length === 0) throw lastAdmin(changing);
    return true;
  }

  private find(key: PersonKey): StoredPerson {
    const person = this.storage.people().find((p) => sameKey(p, key));
    if (!person) throw notFound();
    return person;
  }

  private view(person: StoredPerson, viewer: Person): PersonView {
    return {
      issuer: person.issuer,
      subject: person.subject,
      label: personLabel(person),
      ...(person.email !== undefined ? { email: person.email } : {}),
      role: this.roleOf(person) ?? null,
      configuredRole: this.configuredRoleOf(person) ?? null,
      lastSignInAt: person.lastSignInAt ?? null,
      you: sameKey(person, viewer),
    };
  }

  private readonly touched = new Map<string, number>();

  private touch(token: StoredApiToken): void {
    const at = this.now();
    if (at - (this.touched.get(token.id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(token.id, at);
    // Best effort: a failed write only leaves "last used" older on the page.
    this.storage.touchToken(token.id, at).catch(() => undefined);
  }
}

function lastAdmin(person: StoredPerson): PeopleError {
  return new PeopleError(
    'last_admin',
    `${personLabel(person)} is the last admin; give someone else the admin role first.`,
  );
}

function notFound(): PeopleError {
  return new PeopleError('not_found', 'This person has not signed in here (or was removed meanwhile).');
}

function tokenView(token: StoredApiToken): ApiTokenView {
  return {
    id: token.id,
    name: token.name,
    role: token.role,
    createdBy: token.createdBy,
    createdAt: token.createdAt,
    lastUsedAt: token.lastUsedAt ?? null,
    revokedAt: token.revokedAt ?? null,
  };
}
