/**
 * Settings → Folders: where the local tools (read_file, write_file, list_directory, run_command)
 * may work. The workspace is first and fixed; more folders can be added and removed here, and
 * apply to the next call at once. A folder that overlaps the app's data folder is refused by main.
 */
import { useEffect, useState } from 'react';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Spinner } from '../components/Spinner.js';
import { CommandSandboxFields } from './CommandSandboxFields.js';

/** The form that adds a folder; main's reason shows under it when the folder is refused. */
function AddFolder({ extra, busy }: { extra: string[]; busy: boolean }) {
  const setRoots = useAppStore((s) => s.setRoots);
  const notify = useAppStore((s) => s.notify);
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | undefined>();

  async function add(): Promise<void> {
    const wanted = path.trim();
    if (!wanted) return;
    const next = [...extra, wanted];
    const failed = await setRoots(next);
    if (!failed) {
      setPath('');
      setError(undefined);
      notify('success', `Local tools may now use ${wanted}.`);
      return;
    }
    const mine = failed.details?.fieldErrors?.[`roots.${next.length - 1}`];
    setError(mine ? `This folder ${mine.join('; ')}.` : failed.message);
  }

  return (
    <form
      className="folder-add"
      onSubmit={(event) => {
        event.preventDefault();
        void add();
      }}
    >
      <label className="field">
        <span className="field-label">Add a folder (absolute path)</span>
        <input
          className="input"
          value={path}
          placeholder="/home/me/projects"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'folder-add-error' : undefined}
          onChange={(e) => {
            setPath(e.target.value);
            setError(undefined);
          }}
        />
      </label>
      <button type="submit" className="btn" disabled={busy || !path.trim()}>
        {busy && <Spinner label="Saving" />}
        Add folder
      </button>
      {error && (
        <p id="folder-add-error" className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function FoldersCard() {
  const settings = useAppStore((s) => s.settings);
  const loadError = useAppStore((s) => s.settingsError);
  const busy = useAppStore((s) => s.settingsBusy);
  const load = useAppStore((s) => s.loadSettings);
  const setRoots = useAppStore((s) => s.setRoots);
  const notify = useAppStore((s) => s.notify);

  useEffect(() => {
    void load();
  }, [load]);

  const extra = settings?.roots.filter((r) => !r.workspace).map((r) => r.path) ?? [];

  async function remove(root: string): Promise<void> {
    const failed = await setRoots(extra.filter((r) => r !== root));
    if (failed) notify('error', `Could not remove the folder: ${failed.message}`);
  }

  return (
    <section className="card" aria-labelledby="settings-folders">
      <h2 id="settings-folders" className="card-title">
        Folders
      </h2>
      <p className="card-note">
        The local tools (read, write and list files, run commands) work only inside these folders. Relative paths start
        in the workspace. The app’s own data folder is never reachable.
      </p>
      {!settings && loadError && (
        <Callout tone="error" title="Could not load the folders">
          {loadError}
        </Callout>
      )}
      {settings && (
        <ul className="plain-list folder-list" aria-label="Local tool folders">
          {settings.roots.map((root) => (
            <li key={root.path} className="folder-row" data-path={root.path}>
              <code>{root.path}</code>
              {root.workspace ? (
                <span className="chip" title="Set with --workspace or MINIHARNESS_WORKSPACE">
                  workspace · always first
                </span>
              ) : (
                <button
                  type="button"
                  className="btn btn-small btn-danger-ghost"
                  disabled={busy}
                  onClick={() => void remove(root.path)}
                  aria-label={`Remove folder ${root.path}`}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <AddFolder extra={extra} busy={busy} />
      {settings && (
        <CommandSandboxFields key={JSON.stringify(settings.commandSandbox)} current={settings.commandSandbox} />
      )}
    </section>
  );
}
