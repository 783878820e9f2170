/**
 * A running call: a bar (determinate when the server reports a total, otherwise moving), the
 * server's progress message — or who the call waits for (your approval, your answer to the
 * server's question) —, the time so far, and Cancel — which really cancels: main aborts the
 * call and tells the server, and the call then ends as cancelled.
 */
import type { ToolView } from '../../../../shared/contract.js';
import { formatDuration } from '../../lib/format.js';
import type { CallTask, ToolRun } from '../../state/slices/toolsSlice.js';
import { toolKeyOf } from '../../state/slices/toolsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { useNow } from '../components/useNow.js';

const TASK_STATUS = {
  working: 'working',
  input_required: 'waiting for input',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;

/** "Running as task 1a2b3c4d…: <the server's message, or the status>". */
function taskLabel(task: CallTask): string {
  const id = task.taskId.length > 12 ? `${task.taskId.slice(0, 8)}…` : task.taskId;
  return `Running as task ${id}: ${task.statusMessage ?? TASK_STATUS[task.status]}`;
}

export function RunProgress({ tool, run }: { tool: ToolView; run: Extract<ToolRun, { status: 'running' }> }) {
  const cancel = useAppStore((s) => s.cancelToolRun);
  const navigate = useAppStore((s) => s.navigate);
  const waiting = useAppStore((s) =>
    s.approvals.some((p) => !p.ended && p.view.toolName === tool.name && p.view.serverId === tool.serverId),
  );
  // The server asks the person something (its dialog is open): the call waits for them, not for the server.
  const asked = useAppStore((s) => s.serverRequests.some((p) => !p.ended && p.view.serverId === tool.serverId));
  const now = useNow(true);
  const progress = run.progress;
  const total = progress?.total && progress.total > 0 ? progress.total : undefined;
  const percent =
    total !== undefined && progress ? Math.min(100, Math.max(0, (progress.progress / total) * 100)) : undefined;

  const label = run.cancelling
    ? 'Cancelling…'
    : waiting
      ? 'Waiting for your approval…'
      : asked
        ? 'Waiting for your answer to the server’s question…'
        : (progress?.message ??
          (run.task ? taskLabel(run.task) : percent !== undefined ? `${Math.round(percent)} %` : 'Running…'));

  return (
    <div className="run-progress" role="status" aria-label="Call in progress">
      <div className="run-progress-row">
        <Spinner label="Running" />
        <span className="run-progress-label">{label}</span>
        {waiting && !run.cancelling && (
          <button type="button" className="btn btn-small btn-ghost" onClick={() => navigate('approvals')}>
            Open Approvals
          </button>
        )}
        <span className="run-progress-time">{formatDuration(Math.max(0, now - run.startedAt))}</span>
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          onClick={() => void cancel(toolKeyOf(tool))}
          disabled={run.cancelling}
        >
          <Icon name="close" size={14} />
          {run.cancelling ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
      <div
        className={`progress ${percent === undefined ? 'progress-indeterminate' : ''}`}
        role="progressbar"
        aria-label="Progress"
        aria-valuemin={percent === undefined ? undefined : 0}
        aria-valuemax={percent === undefined ? undefined : 100}
        aria-valuenow={percent === undefined ? undefined : Math.round(percent)}
        aria-valuetext={percent === undefined ? 'In progress' : `${Math.round(percent)} %`}
      >
        <div className="progress-fill" style={percent === undefined ? undefined : { width: `${percent}%` }} />
      </div>
      {progress && total !== undefined && (
        <p className="run-progress-detail muted">
          {progress.progress} of {total}
        </p>
      )}
    </div>
  );
}
