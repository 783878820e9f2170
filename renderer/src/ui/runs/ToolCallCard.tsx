/** One tool call of an agent run, inline in the conversation: the tool, its arguments, its status and what the model was told. */
import type { RunDetail } from '../../../../shared/contract/runs.js';

type ToolCall = RunDetail['toolCalls'][number];

function statusWords(call: ToolCall): string {
  if (call.status === 'pending') return 'waiting';
  if (call.status === 'running') return 'running (may be waiting for your approval)';
  if (call.result?.code === 'permission_denied') return 'denied';
  return call.result?.isError ? 'error' : 'done';
}

export function ToolCallCard({ call }: { call: ToolCall }) {
  return (
    <div
      className="card run-tool-call"
      data-testid="run-tool-call"
      data-status={call.status}
      aria-label={`Tool call ${call.toolName}`}
    >
      <div className="run-tool-call-head">
        <strong>{call.toolName}</strong>
        {call.serverId && <span className="muted"> on {call.serverId}</span>}
        <span
          className={`badge ${call.result?.isError ? 'status-error' : 'status-ready'}`}
          data-testid="run-tool-call-status"
        >
          {statusWords(call)}
        </span>
      </div>
      <pre className="run-tool-call-args">{JSON.stringify(call.args, null, 2)}</pre>
      {call.result && (
        <pre className="run-tool-call-result" data-testid="run-tool-call-result">
          {call.result.text}
        </pre>
      )}
    </div>
  );
}
