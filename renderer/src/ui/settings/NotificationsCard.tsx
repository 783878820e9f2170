/**
 * Settings → Browser notifications (browser mode only): asks the browser's permission to show a
 * notification when a call waits for approval while this tab is in the background
 * (state/bindNotifications.ts sends them). The browser asks the person; nothing is sent before.
 */
import { useState } from 'react';
import { Callout } from '../components/Callout.js';

type Permission = NotificationPermission | 'unsupported';

function currentPermission(): Permission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export function NotificationsCard() {
  const [permission, setPermission] = useState<Permission>(currentPermission);
  const [asking, setAsking] = useState(false);

  async function ask(): Promise<void> {
    setAsking(true);
    try {
      setPermission(await Notification.requestPermission());
    } finally {
      setAsking(false);
    }
  }

  return (
    <section className="card" aria-labelledby="settings-notifications">
      <h2 id="settings-notifications" className="card-title">
        Browser notifications
      </h2>
      <p className="card-note">
        When a tool call waits for your approval while this tab is in the background, the browser can notify you. A
        click brings you to the request.
      </p>
      {permission === 'granted' && (
        <p className="card-note" role="status">
          <span className="chip chip-positive">On</span> This browser will notify you about waiting approvals.
        </p>
      )}
      {permission === 'default' && (
        <button type="button" className="btn" disabled={asking} onClick={() => void ask()}>
          Allow notifications
        </button>
      )}
      {permission === 'denied' && (
        <Callout tone="warning" title="Notifications are blocked for this page">
          Allow them in the browser’s site settings for this address, then reload the page.
        </Callout>
      )}
      {permission === 'unsupported' && <Callout tone="info" title="This browser cannot show notifications" />}
    </section>
  );
}
