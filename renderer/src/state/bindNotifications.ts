/**
 * Browser mode: a Web Notification for an approval that arrives while this page is in the
 * background (another tab, another window in front), once the person allowed notifications
 * (Settings → Browser notifications). A click brings the page forward on the request; the notification
 * goes away when the request closes. The desktop app does the same with OS notifications from
 * the main process (electron/shell/desktopIntegration.ts), so this stays off there.
 */
import { approvalNotification } from '../../../shared/approvalNotice.js';
import type { BridgeClient } from '../bridge/index.js';
import type { AppStoreApi } from './store.js';

/** The parts of the Web Notification API used here (a double stands in for it in the tests). */
export interface PageNotification {
  onclick: ((event: Event) => void) | null;
  close(): void;
}
interface PageNotificationApi {
  readonly permission: NotificationPermission;
  new (title: string, options: { body: string; tag: string }): PageNotification;
}
export interface PageEnvironment {
  /** `globalThis.Notification`, undefined where the browser has none. */
  Notification: PageNotificationApi | undefined;
  document: { readonly visibilityState: DocumentVisibilityState; hasFocus(): boolean };
  focusWindow(): void;
}

/** Whether a request arriving now deserves a page notification. */
export function shouldNotifyPage(input: {
  mode: 'electron' | 'browser' | undefined;
  permission: NotificationPermission | undefined;
  hidden: boolean;
  focused: boolean;
}): boolean {
  return input.mode === 'browser' && input.permission === 'granted' && (input.hidden || !input.focused);
}

export function bindApprovalNotifications(client: BridgeClient, store: AppStoreApi, page: PageEnvironment): () => void {
  const shown = new Map<string, PageNotification>();
  const unsubscribers = [
    client.on('approval.requested', (view) => {
      const api = page.Notification;
      const go = shouldNotifyPage({
        mode: store.getState().info?.mode,
        permission: api?.permission,
        hidden: page.document.visibilityState === 'hidden',
        focused: page.document.hasFocus(),
      });
      if (!api || !go || shown.has(view.requestId)) return;
      const waiting = store.getState().approvals.filter((p) => !p.ended).length;
      const text = approvalNotification(view, Math.max(waiting, 1));
      const notification = new api(text.title, { body: text.body, tag: view.requestId });
      notification.onclick = () => {
        page.focusWindow();
        store.getState().revealApproval(view.requestId);
        notification.close();
      };
      shown.set(view.requestId, notification);
    }),
    client.on('approval.closed', ({ requestId }) => {
      shown.get(requestId)?.close();
      shown.delete(requestId);
    }),
  ];
  return () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    for (const notification of shown.values()) notification.close();
    shown.clear();
  };
}
