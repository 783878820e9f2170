/**
 * What a server's card says of its sandbox (issue 29): "Not sandboxed" when the person chose to
 * run it without one, and — where the platform cannot sandbox it (`sandbox_unavailable`) — the
 * "Run unsandboxed" action, after a confirmation that says what that means.
 */
import { useState } from 'react';
import type { ServerView } from '../../../../shared/contract.js';
import { sandboxReasonWords } from '../../lib/sandboxWords.js';
import { configOf, serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';

/** The person turned this stdio server's sandbox off (a saved choice, never a fallback). */
export function NotSandboxedChip({ view }: { view: ServerView }) {
  const config = configOf(view);
  if (config?.transport !== 'stdio' || config.sandbox?.enabled !== false) return null;
  return (
    <span
      className="chip chip-warning not-sandboxed"
      title="You chose to run this server without its sandbox: it has all your rights."
    >
      Not sandboxed
    </span>
  );
}

export function RunUnsandboxedAction({ view }: { view: ServerView }) {
  const runUnsandboxed = useAppStore((s) => s.runUnsandboxed);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const status = view.status;
  if (status.state !== 'error' || status.code !== 'sandbox_unavailable' || configOf(view)?.transport !== 'stdio')
    return null;
  const name = serverNameOf(view);
  return (
    <>
      <button type="button" className="btn btn-small" onClick={() => setConfirming(true)}>
        Run unsandboxed
      </button>
      {confirming && (
        <ConfirmDialog
          title={`Run ${name} unsandboxed?`}
          confirmLabel="Run unsandboxed"
          danger
          busy={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setBusy(true);
            void runUnsandboxed(serverIdOf(view)).then((done) => {
              setBusy(false);
              if (done) setConfirming(false);
            });
          }}
        >
          <p>
            This machine cannot run the server’s sandbox (
            {status.sandbox ? sandboxReasonWords(status.sandbox.reason) : status.reason}). Unsandboxed, it runs with all
            your rights: it can read your files — SSH keys, this app’s secrets — write anywhere you can and reach any
            host, without making a tool call. Its tool calls still ask as your permissions say.
          </p>
          <p>
            The choice is saved for this server and shown on its card as “Not sandboxed”; turn the sandbox back on in
            its settings.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
