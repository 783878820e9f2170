/**
 * A trace's events as a vertical timeline: the time since the trace started, what happened in
 * words, how long it took, and the raw event data one click away. Errors stand out. An approval
 * request's reason the decision above already gives reads "Same as above." (full words in the tooltip).
 */
import type { TraceEvent } from '../../../../shared/traces.js';
import { formatDuration } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { describeEvent, formatOffset, repeatsReasonAbove } from '../../lib/traceFormat.js';
import { SentenceOrSameAsAbove } from '../components/SameAsAbove.js';

const TYPE_LABELS: Record<TraceEvent['type'], string> = {
  decision: 'decision',
  guardrail: 'guardrail',
  approval_requested: 'approval',
  approval_answered: 'approval',
  claim: 'checkpoint',
  attempt_started: 'attempt',
  attempt_finished: 'attempt',
  retry_scheduled: 'retry',
  input_requested: 'input',
  task: 'task',
  task_check: 'task',
  replay: 'replay',
  sandbox_violation: 'sandbox',
  completed: 'result',
  failed: 'result',
};

function spanOf(event: TraceEvent): number | undefined {
  if (event.durationMs !== undefined) return event.durationMs;
  if (event.type === 'attempt_finished') return event.data.durationMs;
  if (event.type === 'approval_answered') return event.data.waitedMs;
  return undefined;
}

export function TraceTimeline({ startedAt, events }: { startedAt: number; events: TraceEvent[] }) {
  const openTrace = useAppStore((s) => s.openTrace);
  if (events.length === 0) return <p className="muted">No events recorded yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {events.map((event, index) => {
        const words = describeEvent(event, events[index + 1]);
        const span = spanOf(event);
        const original = event.type === 'replay' ? event.data.originalTraceId : undefined;
        return (
          <li key={event.seq} className={`tl-item tl-${words.tone}`} data-event-type={event.type}>
            <span className="tl-offset" title={new Date(event.at).toISOString()}>
              {formatOffset(event.at - startedAt)}
            </span>
            <span className="tl-rail" aria-hidden="true">
              <span className="tl-dot" />
            </span>
            <div className="tl-body">
              <p className="tl-title">{words.title}</p>
              {words.detail && (
                <p className="tl-detail">
                  <SentenceOrSameAsAbove
                    className="tl-detail-text"
                    text={words.detail}
                    same={repeatsReasonAbove(event, events[index - 1])}
                  />
                </p>
              )}
              {original && (
                <p className="tl-detail">
                  <button type="button" className="link-button" onClick={() => openTrace(original)}>
                    Open the original call’s trace
                  </button>
                </p>
              )}
              <details className="raw-json tl-raw">
                <summary>
                  {span !== undefined && <span className="tl-span">took {formatDuration(span)}</span>}
                  <span className="tl-type">{TYPE_LABELS[event.type]}</span>
                  <span className="tl-raw-label">Raw data</span>
                </summary>
                <pre className="code-block">{JSON.stringify(event, null, 2)}</pre>
              </details>
            </div>
          </li>
        );
      })}
    </ol>
  );
}
