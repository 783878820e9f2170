/**
 * Settings → Desktop (the Electron app only): whether closing the window keeps the app running in
 * the tray (Windows, Linux) or the Dock (macOS), so servers, approvals and agents keep being
 * served; the app then tells about waiting approvals with OS notifications.
 */
import { useState } from 'react';
import { useAppStore } from '../../state/useAppStore.js';

export function KeepRunningCard() {
  const settings = useAppStore((s) => s.settings);
  const setKeepRunning = useAppStore((s) => s.setKeepRunning);
  const notify = useAppStore((s) => s.notify);
  const [saving, setSaving] = useState(false);
  if (!settings) return null;

  async function change(keepRunning: boolean): Promise<void> {
    setSaving(true);
    const failed = await setKeepRunning(keepRunning);
    setSaving(false);
    if (failed) notify('error', `Could not change the setting: ${failed.message}`);
  }

  return (
    <section className="card" aria-labelledby="settings-desktop">
      <h2 id="settings-desktop" className="card-title">
        Desktop
      </h2>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={settings.keepRunningOnClose}
          disabled={saving}
          onChange={(e) => void change(e.target.checked)}
        />
        <span>
          <span className="checkbox-label">Keep running when the window is closed</span>
          <span className="field-hint">
            The app stays in the tray (Windows, Linux) or the Dock (macOS): your servers and connected agents keep
            working, and a call that needs your approval shows a notification. Quit from the tray or Dock menu. When
            off, closing the window quits the app.
          </span>
        </span>
      </label>
    </section>
  );
}
