/** Words and short forms for traces and history: statuses, times, ids, and each event in a sentence. */
import type { TraceError, TraceEvent, TraceStatus } from '../../../shared/traces.js';
import { formatDuration } from './format.js';

export const TRACE_STATUS_LABELS: Record<TraceStatus, string> = {
  running: 'Running',
  ok: 'OK',
  error: 'Error',
  denied: 'Denied',
  replayed: 'Replayed',
  interrupted: 'Interrupted',
  cancelled: 'Cancelled',
};

const sameDayFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const otherDayFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A list time: the clock time today, the date and time otherwise. */
export function formatWhen(at: number, now = Date.now()): string {
  const a = new Date(at);
  const b = new Date(now);
  const sameDay = a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  return sameDay ? sameDayFormat.format(at) : otherDayFormat.format(at);
}

/** "+0 ms", "+12 ms", "+2.31 s" from the start of a trace. */
export function formatOffset(ms: number): string {
  return `+${formatDuration(Math.max(0, ms))}`;
}

/** The first characters of a long id, enough to tell ids apart at a glance. */
export function shortId(id: string, length = 8): string {
  const tail = id.replace(/^(gui|call|trace)-/, '');
  return tail.length > length ? `${tail.slice(0, length)}…` : tail;
}

export function errorText(error: TraceError | undefined): string {
  if (!error) return 'unknown error';
  return error.code && !error.message.toLowerCase().includes(error.code.toLowerCase())
    ? `${error.message} (${error.code})`
    : error.message;
}

type EventTone = 'neutral' | 'positive' | 'warning' | 'error' | 'info';

export interface DescribedEvent {
  title: string;
  /** A second line with detail, when there is one. */
  detail?: string;
  tone: EventTone;
}

const CLAIM_WORDS = {
  owner: { title: 'Checkpoint claimed — this call runs', tone: 'neutral' },
  replay: { title: 'Checkpoint: already completed — the stored result is returned', tone: 'info' },
  in_progress: { title: 'Checkpoint: the same call is in progress, or its result is unknown', tone: 'warning' },
  arguments_mismatch: { title: 'Checkpoint: this call id was used before with other arguments', tone: 'error' },
  failed: { title: 'Checkpoint: this call was resolved as failed before', tone: 'error' },
} as const;

const ANSWER_WORDS: Record<string, string> = {
  'allow-once': 'allow once',
  'allow-session': 'allow for this session',
  'allow-always': 'always allow',
  deny: 'deny',
};

type EventOfType<T extends TraceEvent['type']> = Extract<TraceEvent, { type: T }>;

function describeApprovalAnswered(event: EventOfType<'approval_answered'>): DescribedEvent {
  const data = event.data as typeof event.data & { timedOut?: unknown; cancelled?: unknown };
  const waited = data.waitedMs ?? event.durationMs;
  const after = waited !== undefined ? ` after ${formatDuration(waited)}` : '';
  if (data.timedOut === true) return { title: `Approval timed out${after} — nothing ran`, tone: 'error' };
  if (data.cancelled === true) return { title: `Approval cancelled${after} — nothing ran`, tone: 'error' };
  const answer = data.answeredBy
    ? (ANSWER_WORDS[data.answeredBy] ?? data.answeredBy)
    : data.approved
      ? 'allow'
      : 'deny';
  return { title: `Approval answered: ${answer}${after}`, tone: data.approved ? 'positive' : 'error' };
}

function describeAttemptFinished(event: EventOfType<'attempt_finished'>, next?: TraceEvent): DescribedEvent {
  const { attempt, outcome, error } = event.data;
  const took = event.data.durationMs ?? event.durationMs;
  if (outcome === 'ok')
    return {
      title: `Attempt ${attempt} succeeded${took !== undefined ? ` in ${formatDuration(took)}` : ''}`,
      tone: 'positive',
    };
  const retry = next?.type === 'retry_scheduled' ? ` — retry in ${formatDuration(next.data.delayMs)}` : '';
  return {
    title: `Attempt ${attempt} failed: ${errorText(error)}${retry}`,
    ...(event.data.recoverable === false && !retry
      ? { detail: 'Not retried: the tool may have acted before it failed.' }
      : {}),
    tone: 'error',
  };
}

function describeTask(event: EventOfType<'task'>): DescribedEvent {
  const { taskId, status, statusMessage } = event.data;
  const STATUS = {
    working: 'working',
    input_required: 'waiting for input',
    completed: 'completed',
    failed: 'failed',
    cancelled: 'cancelled',
  } as const;
  return {
    title: `Server task ${taskId}: ${STATUS[status]}`,
    ...(statusMessage ? { detail: statusMessage } : {}),
    tone:
      status === 'failed' ? 'error' : status === 'cancelled' ? 'warning' : status === 'completed' ? 'positive' : 'info',
  };
}

function describeTaskCheck(event: EventOfType<'task_check'>): DescribedEvent {
  const { taskId, trigger, outcome, reason, waitedMs } = event.data;
  const WHY = {
    start: 'at start',
    server_ready: 'when the server became ready',
    person: 'on your request',
  } as const;
  const OUTCOME = {
    answered: { title: 'the server answered', tone: 'info' },
    server_unavailable: { title: 'the server was not ready — asked again when it is', tone: 'warning' },
    unknown_to_server: {
      title: 'the server no longer knows the task — whether the tool acted is unknown',
      tone: 'warning',
    },
    not_supported: { title: 'the server’s connection cannot be asked about tasks', tone: 'warning' },
    no_answer: { title: 'asking failed', tone: 'error' },
  } as const;
  const waited = waitedMs !== undefined && waitedMs >= 100 ? ` after waiting ${formatDuration(waitedMs)}` : '';
  return {
    title: `Asked the server about task ${taskId} ${WHY[trigger]}${waited}: ${OUTCOME[outcome].title}`,
    ...(reason ? { detail: reason } : {}),
    tone: OUTCOME[outcome].tone,
  };
}

/** One event as a sentence ("Decision: ASK — untrusted server"), with the next event for context. */
export function describeEvent(event: TraceEvent, next?: TraceEvent): DescribedEvent {
  switch (event.type) {
    case 'decision': {
      const { outcome, reason } = event.data;
      return {
        title: `Decision: ${outcome.toUpperCase()}${reason ? ` — ${reason}` : ''}`,
        tone: outcome === 'allow' ? 'positive' : outcome === 'deny' ? 'error' : 'warning',
      };
    }
    case 'guardrail': {
      const { name, outcome, reason } = event.data;
      return {
        title: `Guardrail “${name}”: ${outcome}${reason ? ` — ${reason}` : ''}`,
        tone: outcome === 'blocked' ? 'error' : outcome === 'modified' ? 'warning' : 'neutral',
      };
    }
    case 'approval_requested':
      return {
        title: 'Approval requested',
        ...(event.data.reason ? { detail: event.data.reason } : {}),
        tone: 'warning',
      };
    case 'approval_answered':
      return describeApprovalAnswered(event);
    case 'claim':
      return { ...CLAIM_WORDS[event.data.outcome] };
    case 'attempt_started':
      return { title: `Attempt ${event.data.attempt} started`, tone: 'neutral' };
    case 'attempt_finished':
      return describeAttemptFinished(event, next);
    case 'retry_scheduled':
      return {
        title: `Retry scheduled: attempt ${event.data.nextAttempt} in ${formatDuration(event.data.delayMs)}`,
        detail: event.data.reason,
        tone: 'warning',
      };
    case 'input_requested': {
      const WHO = { agent: 'the agent', person: 'you', client: 'MiniHarness' } as const;
      const asked = event.data.requests
        .map((request) => `${request.kind} (answered by ${WHO[request.answeredBy]})`)
        .join(', ');
      return {
        title: `The server asked for input, round ${event.data.round}`,
        ...(asked ? { detail: asked } : {}),
        tone: 'info',
      };
    }
    case 'task':
      return describeTask(event);
    case 'task_check':
      return describeTaskCheck(event);
    case 'sandbox_violation':
      return { title: 'The sandbox refused an access while this call ran', detail: event.data.line, tone: 'warning' };
    case 'replay':
      return {
        title: 'Replayed the stored result — nothing was executed',
        ...(event.data.completedAt !== undefined
          ? {
              detail: `The call completed ${new Date(event.data.completedAt).toLocaleString()}${event.data.resolvedBy === 'manual' ? ' (resolved by hand)' : ''}.`,
            }
          : {}),
        tone: 'info',
      };
    case 'completed': {
      const blocks = event.data.contentBlocks;
      const count = blocks !== undefined ? ` · ${blocks} content ${blocks === 1 ? 'block' : 'blocks'}` : '';
      return event.data.isError
        ? {
            title: `Completed with a tool error${count}`,
            detail: 'The tool ran and reported an error in its result.',
            tone: 'error',
          }
        : { title: `Completed${count}`, tone: 'positive' };
    }
    case 'failed':
      return { title: `Failed: ${errorText(event.data.error)}`, tone: 'error' };
  }
}

/**
 * The approval request's reason when the decision just above already says it (the executor asks
 * for the very reason it decided ASK): the timeline then shows "Same as above." instead.
 */
export function repeatsReasonAbove(event: TraceEvent, above: TraceEvent | undefined): boolean {
  return (
    event.type === 'approval_requested' &&
    above?.type === 'decision' &&
    !!event.data.reason &&
    event.data.reason === above.data.reason
  );
}
