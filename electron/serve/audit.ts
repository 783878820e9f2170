/**
 * The record of who did what on a shared instance: every sign-in (and refusal), every change and
 * decision, with the person. One JSON line each, appended to audit.jsonl in the data folder
 * (a log shipper or `jq` reads it); never a secret, never a tool's arguments.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Person } from './people.js';
import { personLabel } from './people.js';

export interface AuditEntry {
  action:
    | 'sign-in'
    | 'sign-in refused'
    | 'sign-out'
    | 'bootstrap admin'
    | 'request'
    // The People page's changes: `person` made them, `target` names whom or which token.
    | 'role changed'
    | 'person removed'
    | 'api token created'
    | 'api token revoked';
  person?: Person;
  target?: string;
  role?: string;
  channel?: string;
  ok?: boolean;
  reason?: string;
}

export class AuditLog {
  private readonly file: string;
  /** A failing write was reported to the operator, and none succeeded since: it is not reported again. */
  private failing = false;

  /** `warn`: the operator's channel (the serve's output) for a write that fails. */
  constructor(
    dataDir: string,
    private readonly warn: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  ) {
    this.file = join(dataDir, 'audit.jsonl');
  }

  record(entry: AuditEntry): void {
    const { person, ...rest } = entry;
    const line = {
      at: new Date().toISOString(),
      ...rest,
      ...(person ? { person: personLabel(person), subject: person.subject, issuer: person.issuer } : {}),
    };
    try {
      appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      this.failing = false;
    } catch (error) {
      // Never the caller's failure: a request whose audit line cannot be written is still answered.
      if (this.failing) return;
      this.failing = true;
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      this.warn(`MiniHarness serve: cannot write the audit log ${this.file} (${why}); entries are lost until it can.`);
    }
  }
}
