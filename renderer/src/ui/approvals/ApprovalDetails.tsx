/**
 * What a person needs to decide on one approval request: who asks (you, or an agent through the
 * gateway), which tool on which server, why it
 * asks, the exact arguments, the tool's annotations (marked as unverified hints when the server
 * is not trusted), how long the request stays open, and — when main knows it — how long the
 * agent's own client will wait for the answer.
 */
import type { ApprovalView } from '../../../../shared/contract.js';
import { isAppCaller } from '../../../../shared/contract.js';
import { callerLabel, isAgentCaller, isRunCaller } from '../../lib/callers.js';
import { configOf, serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';
import { annotationChips } from '../../lib/annotations.js';
import { CopyButton } from '../components/CopyButton.js';
import { SandboxNote, runsInSandbox } from '../components/SandboxNote.js';
import { formatLeft } from '../components/ExpiryCountdown.js';
import { useNow } from '../components/useNow.js';
import { PoisonFlags } from '../components/PoisonFlags.js';
import { ToolChangedDiff } from '../components/ToolChangedDiff.js';

/** Local tools are the app's own; a server is trusted when its configuration says so. */
function useServerFacts(serverId: string): { name: string; trusted: boolean } {
  const name = useAppStore((s) => {
    if (serverId === 'local') return 'Local tools';
    const view = s.servers.find((v) => serverIdOf(v) === serverId);
    return view ? serverNameOf(view) : serverId;
  });
  const trusted = useAppStore((s) => {
    if (serverId === 'local') return true;
    const fromPermissions = s.permissions?.servers.find((p) => p.serverId === serverId)?.trusted;
    if (fromPermissions !== undefined) return fromPermissions;
    const view = s.servers.find((v) => serverIdOf(v) === serverId);
    return view ? configOf(view)?.trusted === true : false;
  });
  return { name, trusted };
}

/** How long the agent's own client will still wait for this call, as far as main knows (callerWait.ts). */
function CallerWaitLeft({ until }: { until: number }) {
  const now = useNow(true, 1000);
  const left = until - now;
  return (
    <span>
      {left > 0
        ? `probably about ${formatLeft(left)} more`
        : 'probably no longer: its client may have given up on this call'}
    </span>
  );
}

export function ApprovalDetails({ view, headingLevel = 3 }: { view: ApprovalView; headingLevel?: 2 | 3 }) {
  const { name, trusted } = useServerFacts(view.serverId);
  const chips = annotationChips(view.annotations);
  const args = JSON.stringify(view.args, null, 2);
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <div className="approval-details">
      <dl className="props approval-props">
        <dt>Asked by</dt>
        <dd className="approval-caller" data-caller={view.userId}>
          {isAgentCaller(view.userId) ? (
            <>
              <strong>{view.userId}</strong>
              {/* An app's caller ends in "'s app" and a run's starts with "agent run": a chip would say it twice. */}
              {!isAppCaller(view.userId) && !isRunCaller(view.userId) && (
                <>
                  {' '}
                  <span className="chip chip-warning">agent</span>
                </>
              )}
            </>
          ) : (
            callerLabel(view.userId)
          )}
        </dd>
        <dt>Tool</dt>
        <dd>
          <code className="approval-tool">{view.toolName}</code>
        </dd>
        <dt>Server</dt>
        <dd>
          {name}
          {view.serverId !== 'local' && name !== view.serverId && (
            <>
              {' '}
              <code className="muted">{view.serverId}</code>
            </>
          )}
          {view.serverId !== 'local' && (
            <span className={trusted ? 'chip chip-positive' : 'chip chip-warning'}>
              {trusted ? 'trusted' : 'not trusted'}
            </span>
          )}
        </dd>
        <dt>Why it asks</dt>
        <dd className="approval-reason">{view.reason}</dd>
        {view.callerWait && (
          <>
            <dt>The agent waits</dt>
            <dd className="approval-caller-wait">
              <CallerWaitLeft until={view.callerWait.until} /> <span className="muted">({view.callerWait.basis})</span>
            </dd>
          </>
        )}
        {runsInSandbox(view.toolName, view.serverId) && (
          <>
            <dt>Sandbox</dt>
            <dd>
              <SandboxNote toolName={view.toolName} serverId={view.serverId} as="span" />
            </dd>
          </>
        )}
        {chips.length > 0 && (
          <>
            <dt>{trusted ? 'Annotations' : 'Hints from the server'}</dt>
            <dd>
              <ul className="chips" aria-label={trusted ? 'Annotations' : 'Hints from the server (unverified)'}>
                {chips.map((chip) => (
                  <li key={chip.label} className={`chip chip-${chip.tone}`} title={chip.title}>
                    {chip.label}
                  </li>
                ))}
              </ul>
              {!trusted && (
                <p className="approval-hint-note">
                  The server is not trusted, so these are its own claims, not verified.
                </p>
              )}
            </dd>
          </>
        )}
      </dl>
      {view.flags && <PoisonFlags flags={view.flags} />}
      {view.change && <ToolChangedDiff change={view.change} />}
      <div className="approval-args">
        <div className="approval-args-head">
          <Heading className="approval-args-title">Arguments</Heading>
          <CopyButton text={args} />
        </div>
        {Object.keys(view.args).length === 0 ? (
          <p className="muted">No arguments.</p>
        ) : (
          <pre className="code-block approval-args-json">{args}</pre>
        )}
      </div>
    </div>
  );
}
