/**
 * Events other processes must see (an approval asked or answered, a list that changed, a run's
 * update, an agent created or revoked), over PostgreSQL's LISTEN/NOTIFY: every process on the database hears what one
 * publishes, after the publishing transaction commits. A notification is a nudge with a small
 * JSON body (ids, never secrets or results — PostgreSQL caps a payload at 8,000 bytes, and
 * anything connected to the database may listen); the listener reads the state itself.
 *
 * One dedicated connection per process listens (LISTEN is per session: a pooled connection would
 * lose it when returned). If that connection drops, it reconnects and listens again, and
 * `onResync` tells the process to re-read what it shows: notifications sent meanwhile are lost.
 */
import pg from 'pg';
import { z } from 'zod';

/** The channels MiniHarness uses; a name is an SQL identifier, so only these are accepted. */
const CHANNELS = ['mh_approvals', 'mh_lists', 'mh_runs', 'mh_agents', 'mh_sessions', 'mh_people'] as const;
export type Channel = (typeof CHANNELS)[number];

const MAX_PAYLOAD_BYTES = 7_900;

/** What a notification carries: a kind and ids. Validated on receipt: anyone with database access can NOTIFY. */
const NoticeSchema = z.object({
  kind: z.string().min(1).max(64),
  ids: z.record(z.string().max(64), z.string().max(256)).optional(),
  /** The publishing process, so it can ignore its own echo. */
  from: z.string().max(64),
});
export type Notice = z.infer<typeof NoticeSchema>;

/** Publishes on any pooled connection (inside a transaction, it is sent when that commits). */
export async function publish(pool: pg.Pool, channel: Channel, notice: Notice): Promise<void> {
  if (!CHANNELS.includes(channel)) throw new TypeError(`publish: unknown channel ${String(channel)}`);
  const payload = JSON.stringify(NoticeSchema.parse(notice));
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new TypeError('publish: a notice carries ids, not data');
  await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * Listens to `channels` on a connection of its own; `onNotice` gets each valid notice (invalid
 * payloads are dropped), `onResync` is called after a reconnect. Resolves once LISTEN is in place.
 */
export async function listen(
  url: string,
  channels: readonly Channel[],
  onNotice: (channel: Channel, notice: Notice) => void,
  onResync: () => void = () => undefined,
): Promise<Listener> {
  let closed = false;
  let client: pg.Client | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      const channel = CHANNELS.find((c) => c === message.channel);
      if (!channel || message.payload === undefined) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.payload);
      } catch {
        return;
      }
      const notice = NoticeSchema.safeParse(parsed);
      if (notice.success) onNotice(channel, notice.data);
    });
    next.on('error', () => undefined);
    next.on('end', () => {
      if (closed) return;
      // The connection dropped: listen again, and have the process re-read what it shows.
      setTimeout(() => void connect().then(onResync, () => undefined), 500).unref();
    });
    await next.connect();
    for (const channel of channels) await next.query(`LISTEN ${channel}`); // names from CHANNELS only
    client = next;
  };
  await connect();
  return {
    close: async () => {
      closed = true;
      await client?.end();
    },
  };
}
