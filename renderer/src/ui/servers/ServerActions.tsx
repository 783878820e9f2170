/** What can be done to one server; the action in progress shows a spinner and locks the others. */
import type { ReactNode } from 'react';
import { useEffect, useState } from 'react';
import type { ServerView } from '../../../../shared/contract.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { selectBusy } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';

/** Remove, after a confirmation that lists the permission rules made for the server (removed too, if ticked). */
function RemoveServer({ view, busy }: { view: ServerView; busy: string | undefined }) {
  const id = serverIdOf(view);
  const remove = useAppStore((s) => s.removeServer);
  const notify = useAppStore((s) => s.notify);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [removeRules, setRemoveRules] = useState(true);
  const loadPermissions = useAppStore((s) => s.loadPermissions);
  const allRules = useAppStore((s) => s.permissions?.rules);
  // The rules made for this server (not those left by an earlier server of the same id).
  const rules = (allRules ?? []).filter((r) => r.match.serverId === id && r.staleReason !== 'server_replaced');
  useEffect(() => {
    if (confirmRemove) void loadPermissions();
  }, [confirmRemove, loadPermissions]);

  return (
    <>
      <button
        type="button"
        className="btn btn-danger-ghost"
        onClick={() => {
          setRemoveRules(true);
          setConfirmRemove(true);
        }}
        disabled={!!busy}
      >
        <Icon name="trash" />
        Remove
      </button>
      {confirmRemove && (
        <ConfirmDialog
          title={`Remove “${serverNameOf(view)}”?`}
          confirmLabel="Remove server"
          danger
          busy={busy === 'remove'}
          onCancel={() => setConfirmRemove(false)}
          onConfirm={() => {
            void remove(id, removeRules && rules.length > 0).then((removed) => {
              setConfirmRemove(false);
              if (removed) notify('success', `Removed ${serverNameOf(view)}.`);
            });
          }}
        >
          It is disconnected, its configuration and its stored secrets are deleted, and its tools are no longer offered.
          This cannot be undone.
          {rules.length > 0 && (
            <div className="remove-rules">
              <p>Permission rules made for this server:</p>
              <ul className="plain-list" aria-label="Rules of this server">
                {rules.map((rule) => (
                  <li key={rule.id}>
                    <strong>{rule.level}</strong>{' '}
                    <code>{rule.match.toolName ?? rule.match.toolPattern ?? 'every tool'}</code>
                    {rule.fromApproval ? ' · always allow from an approval' : ' · set in Permissions'}
                  </li>
                ))}
              </ul>
              <label className="check-field">
                <input type="checkbox" checked={removeRules} onChange={(e) => setRemoveRules(e.target.checked)} />
                Also remove {rules.length === 1 ? 'this rule' : `these ${rules.length} rules`}
              </label>
            </div>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}

export function ServerActions({ view }: { view: ServerView }) {
  const id = serverIdOf(view);
  const busy = useAppStore(selectBusy(id));
  const connect = useAppStore((s) => s.connectServer);
  const disconnect = useAppStore((s) => s.disconnectServer);
  const signIn = useAppStore((s) => s.signInServer);
  const signOut = useAppStore((s) => s.signOutServer);
  const setEnabled = useAppStore((s) => s.setServerEnabled);
  const openEditor = useAppStore((s) => s.openEditor);

  const state = view.status.state;
  const disabled = state === 'disabled';
  // Disconnecting a server that is reconnecting by itself stops the attempts.
  const live = state === 'ready' || state === 'connecting' || state === 'reconnecting';
  const mark = (action: string) => (busy === action ? <Spinner label="Working" /> : null);

  return (
    <div className="detail-actions" role="group" aria-label="Server actions">
      {!disabled && (
        // Primary only when connecting is what the server needs; on a ready server Reconnect is one action among others.
        <button
          type="button"
          className={state === 'ready' ? 'btn' : 'btn btn-primary'}
          onClick={() => void connect(id)}
          disabled={!!busy || state === 'connecting'}
        >
          {mark('connect') ?? <Icon name="plug" />}
          {state === 'ready' || state === 'error' || state === 'reconnecting' ? 'Reconnect' : 'Connect'}
        </button>
      )}
      {live && (
        <button type="button" className="btn" onClick={() => void disconnect(id)} disabled={!!busy}>
          {mark('disconnect') ?? <Icon name="unplug" />}
          Disconnect
        </button>
      )}
      {view.oauth && !disabled && (
        <SignInButtons
          view={view}
          busy={busy}
          mark={mark}
          onSignIn={() => void signIn(id)}
          onSignOut={() => void signOut(id)}
        />
      )}
      <button type="button" className="btn" onClick={() => void setEnabled(id, disabled)} disabled={!!busy}>
        {mark(disabled ? 'enable' : 'disable') ?? <Icon name="power" />}
        {disabled ? 'Enable' : 'Disable'}
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => openEditor({ mode: 'edit', serverId: id })}
        disabled={!!busy}
      >
        <Icon name="edit" />
        Edit
      </button>
      <RemoveServer view={view} busy={busy} />
    </div>
  );
}

/**
 * OAuth servers: Sign in (again) and Sign out, and while a browser sign-in waits, the
 * page as a link (a blocked pop-up, or a browser that did not open, loses nothing).
 */
function SignInButtons({
  view,
  busy,
  mark,
  onSignIn,
  onSignOut,
}: {
  view: ServerView;
  busy: string | undefined;
  mark: (action: string) => ReactNode;
  onSignIn: () => void;
  onSignOut: () => void;
}) {
  const oauth = view.oauth;
  if (!oauth) return null;
  const status = view.status;
  const needsSignIn =
    status.state === 'error' && (status.code === 'sign_in_required' || status.code === 'oauth_failed');
  const waiting = oauth.authorizationUrl !== undefined && /^https?:\/\//i.test(oauth.authorizationUrl);
  const browser = oauth.grant === 'authorization_code';
  return (
    <>
      <button
        type="button"
        className={`btn ${needsSignIn ? 'btn-primary' : ''}`}
        onClick={onSignIn}
        disabled={!!busy || waiting}
      >
        {mark('signIn') ?? <Icon name="lock" />}
        {!browser ? 'Get a new token' : oauth.signedIn ? 'Sign in again' : 'Sign in'}
      </button>
      {(oauth.signedIn || waiting) && (
        <button type="button" className="btn" onClick={onSignOut} disabled={!!busy}>
          {mark('signOut') ?? <Icon name="unplug" />}
          {waiting && !oauth.signedIn ? 'Cancel sign-in' : 'Sign out'}
        </button>
      )}
      {waiting && (
        <p className="sign-in-waiting" role="status">
          Waiting for you to sign in in your browser.{' '}
          <a href={oauth.authorizationUrl} target="_blank" rel="noopener noreferrer">
            Open the sign-in page
          </a>
        </p>
      )}
    </>
  );
}
