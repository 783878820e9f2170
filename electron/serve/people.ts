/**
 * Who has which role: the configuration's `people` (by e-mail or subject), and the admins made by
 * the one-time bootstrap token (kept in people.json in the data folder; the token itself only as
 * its SHA-256, and deleted once used).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken } from '../security/tokenHash.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
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

const StoredSchema = z.object({
  admins: z.array(z.object({ issuer: z.string(), subject: z.string() })).default([]),
  bootstrapSha256: z.string().optional(),
});
type Stored = z.infer<typeof StoredSchema>;

export class People {
  private stored: Stored;
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly configured: Record<string, Role>,
  ) {
    this.file = join(dataDir, 'people.json');
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      raw = {};
    }
    this.stored = StoredSchema.parse(raw);
  }

  /**
   * At first start (no admin configured or bootstrapped yet) a new one-time token, else undefined.
   * A restart before it was used replaces it (the old one stops working).
   */
  bootstrapToken(): string | undefined {
    const hasAdmin = Object.values(this.configured).includes('admin') || this.stored.admins.length > 0;
    if (hasAdmin) return undefined;
    const token = randomBytes(24).toString('base64url');
    this.save({ ...this.stored, bootstrapSha256: hashToken(token) });
    return token;
  }

  /** Makes `person` an admin when `token` is the pending bootstrap token (it is then used up). */
  redeemBootstrap(person: Person, token: string): boolean {
    const expected = this.stored.bootstrapSha256;
    if (!expected || !timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(hashToken(token), 'hex'))) return false;
    this.save({ admins: [...this.stored.admins, { issuer: person.issuer, subject: person.subject }] });
    return true;
  }

  roleOf(person: Person): Role | undefined {
    const byConfig = (person.email && this.configured[person.email]) || this.configured[person.subject];
    if (byConfig) return byConfig;
    const admin = this.stored.admins.some((a) => a.issuer === person.issuer && a.subject === person.subject);
    return admin ? 'admin' : undefined;
  }

  private save(next: Stored): void {
    this.stored = next;
    writeFileAtomic.sync(this.file, JSON.stringify(next, null, 2), { mode: 0o600 });
  }
}
