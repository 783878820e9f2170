/**
 * Settings → Folders, run_command's sandbox: the folders every command may also read and write,
 * and the hosts it may reach (none by default), one per line. Main checks each entry
 * ('settings.setCommandSandbox'); a refused one is named by its field and line. The parent keys it
 * by the saved lists, so a change from elsewhere ('settings.changed') starts it afresh.
 */
import { useState } from 'react';
import type { SettingsView } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';

type Lists = SettingsView['commandSandbox'];
const FIELDS = [
  {
    key: 'read',
    label: 'Folders commands may also read (one absolute path a line)',
    placeholder: '/home/me/.config/tool',
  },
  { key: 'write', label: 'Folders commands may also write', placeholder: '/home/me/.cache/tool' },
  {
    key: 'hosts',
    label: 'Hosts commands may reach (host[:port]; none by default)',
    placeholder: 'registry.npmjs.org:443',
  },
] as const;

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

export function CommandSandboxFields({ current }: { current: Lists }) {
  const busy = useAppStore((s) => s.settingsBusy);
  const save = useAppStore((s) => s.setCommandSandbox);
  const notify = useAppStore((s) => s.notify);
  const [text, setText] = useState(() => ({
    read: current.read.join('\n'),
    write: current.write.join('\n'),
    hosts: current.hosts.join('\n'),
  }));
  const [error, setError] = useState<string | undefined>();
  async function submit(): Promise<void> {
    const failed = await save({ read: lines(text.read), write: lines(text.write), hosts: lines(text.hosts) });
    if (!failed) {
      setError(undefined);
      notify('success', 'run_command’s sandbox lists are saved; they apply from the next command.');
      return;
    }
    const fields = Object.entries(failed.details?.fieldErrors ?? {});
    setError(
      fields.length
        ? fields
            .map(
              ([field, messages]) =>
                `${field.replace(/\.(\d+)$/, (_, n: string) => ` line ${Number(n) + 1}`)}: ${messages.join('; ')}`,
            )
            .join(' · ')
        : failed.message,
    );
  }

  return (
    <form
      className="command-sandbox"
      aria-label="run_command sandbox"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {FIELDS.map((field) => (
        <label key={field.key} className="field">
          <span className="field-label">{field.label}</span>
          <textarea
            className="input"
            rows={2}
            value={text[field.key]}
            placeholder={field.placeholder}
            aria-invalid={error ? true : undefined}
            onChange={(e) => {
              setText({ ...text, [field.key]: e.target.value });
              setError(undefined);
            }}
          />
        </label>
      ))}
      <button type="submit" className="btn" disabled={busy}>
        Save sandbox lists
      </button>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
