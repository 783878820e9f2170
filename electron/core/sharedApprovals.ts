/**
 * Approvals shared by every `miniharness serve` instance on one PostgreSQL database (issue 36).
 * The instance whose call waits writes the request's view (redacted, as its pages show it) to
 * `mh_approvals` and NOTIFYs; every other instance shows it to its approvers. A decision, made
 * on any instance, is one conditional UPDATE — the first wins, a later one finds the row decided
 * and learns by whom — then a NOTIFY, on which the waiting instance resolves its call. A request
 * that expires or is cancelled is marked closed and withdrawn everywhere the same way.
 * The desktop (SQLite) never builds this: its broker stays in its process.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalView } from '../../shared/contract.js';
import { ApprovalViewSchema } from '../../shared/contract.js';
import type { ApprovalAnswer } from '../security/approvals.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import type { Listener, Notice } from '../storage/postgres/notify.js';
import { listen, publish } from '../storage/postgres/notify.js';
import type { PgPool } from '../storage/postgres/pool.js';

/** The `approvals` component's tables (its own version in miniharness_schema). */
export const POSTGRES_APPROVAL_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'pending approvals shared by instances',
    sql: `CREATE TABLE mh_approvals (
      request_id text PRIMARY KEY,
      origin text NOT NULL,
      view jsonb NOT NULL,
      expires_at bigint NOT NULL,
      answer text,
      decided_by text,
      closed text,
      created_at bigint NOT NULL
    );
    CREATE INDEX mh_approvals_open ON mh_approvals (expires_at) WHERE answer IS NULL AND closed IS NULL;`,
  },
];

const AnswerSchema = z.enum(['allow-once', 'allow-session', 'allow-always', 'deny']);
const ClosedSchema = z.enum(['expired', 'cancelled']);
/** Decided rows are kept this long, so a late decision still learns who decided; then removed. */
const KEEP_DECIDED_MS = 24 * 60 * 60_000;

type Decision =
  | { won: true }
  /**
   * `known`: the request is in the table (decided or closed); else it was never written there.
   * `closed`: the waiting instance closed it first (expired or cancelled), and the call was denied;
   * `past_expiry`: no one decided or closed it, but its time ran out (the waiting instance has not
   * closed it yet, or is gone) — how the call ended is not known here.
   */
  | {
      won: false;
      known: boolean;
      decidedBy: string | undefined;
      answer: ApprovalAnswer | undefined;
      closed: 'expired' | 'cancelled' | 'past_expiry' | undefined;
    };

/** Who won the close of a request: this instance's close (the call is denied), or a decision made first. */
export type Withdrawal = { closed: true } | { closed: false; answer: ApprovalAnswer; decidedBy: string | undefined };

/** What the broker hears from the other instances. */
export interface SharedApprovalEvents {
  requested(view: ApprovalView): void;
  decided(requestId: string, answer: ApprovalAnswer, decidedBy: string | undefined): void;
  closed(requestId: string, outcome: 'expired' | 'cancelled'): void;
  /** The listening connection came back: re-read what is open. */
  resync(): void;
}

export class SharedApprovals {
  private readonly origin = randomUUID();
  private listener: Listener | undefined;

  private constructor(private readonly pool: PgPool) {}

  /** Listens on `mh_approvals`; resolves once LISTEN is in place. */
  static async open(pool: PgPool, url: string, events: SharedApprovalEvents): Promise<SharedApprovals> {
    const shared = new SharedApprovals(pool);
    await pool.query('DELETE FROM mh_approvals WHERE expires_at < $1', [Date.now() - KEEP_DECIDED_MS]);
    shared.listener = await listen(
      url,
      ['mh_approvals'],
      (_channel, notice) => void shared.onNotice(notice, events).catch(() => undefined),
      () => events.resync(),
    );
    return shared;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  /** A call on this instance waits: the others show it. */
  async offer(view: ApprovalView): Promise<void> {
    await this.pool.query(
      `INSERT INTO mh_approvals (request_id, origin, view, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (request_id) DO NOTHING`,
      [view.requestId, this.origin, JSON.stringify(view), view.expiresAt, Date.now()],
    );
    await this.notify('requested', view.requestId);
  }

  /** The first decision wins (one conditional UPDATE); a later one is told who decided. */
  async decide(requestId: string, answer: ApprovalAnswer, decidedBy: string | undefined): Promise<Decision> {
    const won = await this.pool.query(
      `UPDATE mh_approvals SET answer = $2, decided_by = $3
       WHERE request_id = $1 AND answer IS NULL AND closed IS NULL AND expires_at > $4`,
      [requestId, answer, decidedBy ?? null, Date.now()],
    );
    if (won.rowCount === 1) {
      await this.notify('decided', requestId);
      return { won: true };
    }
    const row = await this.row(requestId);
    // Neither decided nor closed, yet the UPDATE found it not open: only its expiry can have refused it.
    const closed = row?.closed ?? (row && !row.answer ? 'past_expiry' : undefined);
    return { won: false, known: row !== undefined, decidedBy: row?.decidedBy, answer: row?.answer, closed };
  }

  /**
   * This instance stopped waiting (expired or cancelled): closed by the same kind of conditional
   * UPDATE as a decision, so exactly one wins. Closed: withdrawn everywhere. Else the decision that
   * won (the call does what it says); a request never written here counts as closed.
   */
  async withdraw(requestId: string, outcome: 'expired' | 'cancelled'): Promise<Withdrawal> {
    const closed = await this.pool.query(
      `UPDATE mh_approvals SET closed = $2 WHERE request_id = $1 AND answer IS NULL AND closed IS NULL`,
      [requestId, outcome],
    );
    if (closed.rowCount === 1) {
      await this.notify('closed', requestId);
      return { closed: true };
    }
    const row = await this.row(requestId);
    return row?.answer ? { closed: false, answer: row.answer, decidedBy: row.decidedBy } : { closed: true };
  }

  /** The open requests of the other instances. */
  async openElsewhere(): Promise<ApprovalView[]> {
    const rows = await this.pool.query<{ view: unknown }>(
      `SELECT view FROM mh_approvals WHERE answer IS NULL AND closed IS NULL AND expires_at > $1 AND origin <> $2`,
      [Date.now(), this.origin],
    );
    return rows.rows.flatMap((r) => {
      const view = ApprovalViewSchema.safeParse(r.view);
      return view.success ? [view.data] : [];
    });
  }

  private async notify(kind: 'requested' | 'decided' | 'closed', requestId: string): Promise<void> {
    await publish(this.pool, 'mh_approvals', { kind, ids: { requestId }, from: this.origin });
  }

  private async row(requestId: string) {
    const found = await this.pool.query<{
      view: unknown;
      answer: string | null;
      decided_by: string | null;
      closed: string | null;
    }>('SELECT view, answer, decided_by, closed FROM mh_approvals WHERE request_id = $1', [requestId]);
    const row = found.rows[0];
    if (!row) return undefined;
    const answer = AnswerSchema.safeParse(row.answer);
    const closed = ClosedSchema.safeParse(row.closed);
    return {
      view: row.view,
      answer: answer.success ? answer.data : undefined,
      decidedBy: row.decided_by ?? undefined,
      closed: closed.success ? closed.data : undefined,
    };
  }

  /** A nudge carries the id only; the state is read from the table (anyone on the database may NOTIFY). */
  private async onNotice(notice: Notice, events: SharedApprovalEvents): Promise<void> {
    const requestId = notice.ids?.requestId;
    if (notice.from === this.origin || !requestId) return;
    const row = await this.row(requestId);
    if (!row) return;
    if (row.answer) return events.decided(requestId, row.answer, row.decidedBy);
    if (row.closed) return events.closed(requestId, row.closed);
    if (notice.kind !== 'requested') return;
    const view = ApprovalViewSchema.safeParse(row.view);
    if (view.success) events.requested(view.data);
  }
}
