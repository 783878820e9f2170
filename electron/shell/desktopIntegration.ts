/**
 * The desktop around the window: OS notifications for approvals while the window is not in front
 * (a click opens the window on the request; where they fail — Electron's 'failed' event, e.g. an
 * unsigned macOS build — the window's own dialog is brought into view instead), the number pending
 * on the dock / taskbar badge and the tray, and closing the window into the tray or the dock when
 * the setting says so. The
 * decisions are pure (approvalAttention.ts, background.ts); this file makes the Electron calls.
 */
import type { BrowserWindow, Event as ElectronEvent, NativeImage } from 'electron';
import { Menu, Notification, Tray, app, nativeImage } from 'electron';
import type { EventName, EventOf } from '../../shared/contract.js';
import { approvalNotification } from '../../shared/approvalNotice.js';
import {
  PendingApprovals,
  fallbackAttention,
  pendingLabel,
  shouldNotify,
  trayTooltip,
  windowStateOf,
} from './approvalAttention.js';
import type { TrayAction } from './background.js';
import { backgroundHost, backgroundNotice, closeAction, trayMenuItems, wantsTray } from './background.js';
import { ACCENT, ALERT, discBitmap } from './icons.js';

export interface DesktopIntegrationDeps {
  platform: NodeJS.Platform;
  window(): BrowserWindow | undefined;
  /** Restores, shows and focuses the app window. */
  showWindow(): void;
  /** Sends a contract event to the app window (only `approval.show` here). */
  sendToWindow<E extends EventName>(event: E, payload: EventOf<E>): void;
  quit(): void;
  log(message: string): void;
}

export interface DesktopIntegration {
  /** Every core event (the same the window gets): approvals and settings matter here. */
  onCoreEvent(event: string, payload: unknown): void;
  setKeepRunning(keepRunning: boolean): void;
  /** The app is quitting: closing the window must close it. */
  onBeforeQuit(): void;
  /** The window's 'close' event: hidden instead when the app keeps running. */
  onWindowClose(event: ElectronEvent): void;
  onWindowFocus(): void;
  dispose(): void;
}

/** OS notifications for approvals, and the in-window notice where they do not work. */
function createApprovalNotifier(deps: DesktopIntegrationDeps, pending: PendingApprovals) {
  // Kept referenced until closed: a collected Notification loses its click handler.
  const notifications = new Map<string, Notification>();
  // Set by the first 'failed' notification: the rest of the session goes without OS notifications.
  let notificationsFailed = false;

  function showApproval(requestId: string | undefined): void {
    deps.showWindow();
    if (requestId) deps.sendToWindow('approval.show', { requestId });
  }

  function notificationsWork(): boolean {
    return !notificationsFailed && Notification.isSupported();
  }

  /** The in-app notice instead of the OS one: the window's approval dialog, in view, flashing. */
  function attentionWithoutNotification(): void {
    const window = deps.window();
    const plan = fallbackAttention(windowStateOf(window));
    if (!window || window.isDestroyed() || plan === 'none') return;
    if (plan === 'show-and-flash') window.showInactive();
    window.flashFrame(true);
  }

  function notify(requestId: string, text: { title: string; body: string }): void {
    if (!notificationsWork()) {
      attentionWithoutNotification();
      return;
    }
    const notification = new Notification({ title: text.title, body: text.body });
    notification.on('click', () => showApproval(requestId));
    notification.on('close', () => notifications.delete(requestId));
    notification.on('failed', (_event, error) => {
      notifications.delete(requestId);
      if (!notificationsFailed) {
        notificationsFailed = true;
        deps.log(
          `OS notifications failed (${error}): approvals are shown in the window and on the badge instead. On macOS they need a signed build.`,
        );
      }
      if (pending.has(requestId)) attentionWithoutNotification();
    });
    notifications.set(requestId, notification);
    notification.show();
  }

  /** The request was answered or withdrawn: its notification goes. */
  function close(requestId: string): void {
    notifications.get(requestId)?.close();
    notifications.delete(requestId);
  }

  function dispose(): void {
    for (const notification of notifications.values()) notification.close();
    notifications.clear();
  }

  return { showApproval, notificationsWork, notify, close, dispose };
}

/** The pending count on the dock / taskbar badge, and the tray (shown while the app keeps running). */
function createTrayAndBadge(
  deps: DesktopIntegrationDeps,
  pending: PendingApprovals,
  showApproval: (requestId: string | undefined) => void,
) {
  let tray: Tray | undefined;
  let badgeImage: NativeImage | undefined;

  function updateBadge(): void {
    const count = pending.count;
    const label = pendingLabel(count);
    // macOS dock and Linux launchers (Unity API); Windows has no count badge, so an overlay icon.
    if (deps.platform === 'win32') {
      const window = deps.window();
      if (window && !window.isDestroyed())
        window.setOverlayIcon(label ? (badgeImage ??= imageOf(discBitmap(16, ALERT), 16)) : null, label ?? '');
    } else {
      app.setBadgeCount(count);
    }
    if (tray) {
      tray.setToolTip(trayTooltip(count));
      tray.setContextMenu(trayMenu());
    }
  }

  function trayMenu(): Menu {
    const run: Record<TrayAction, () => void> = {
      show: () => deps.showWindow(),
      approvals: () => showApproval(pending.oldest()),
      quit: () => deps.quit(),
    };
    return Menu.buildFromTemplate(
      trayMenuItems(pending.count).map((item) => ({ label: item.label, click: run[item.action] })),
    );
  }

  function syncTray(keepRunning: boolean): void {
    if (wantsTray({ platform: deps.platform, keepRunning })) {
      if (tray) return;
      tray = new Tray(imageOf(discBitmap(32, ACCENT, true), 32, 2));
      tray.setToolTip(trayTooltip(pending.count));
      tray.setContextMenu(trayMenu());
      // Windows: a click on the icon opens the window (Linux indicators only show the menu).
      tray.on('click', () => deps.showWindow());
    } else if (tray) {
      tray.destroy();
      tray = undefined;
    }
  }

  function dispose(): void {
    tray?.destroy();
    tray = undefined;
  }

  return { updateBadge, syncTray, dispose };
}

export function createDesktopIntegration(deps: DesktopIntegrationDeps): DesktopIntegration {
  const pending = new PendingApprovals();
  const notifier = createApprovalNotifier(deps, pending);
  const trayAndBadge = createTrayAndBadge(deps, pending, notifier.showApproval);
  const host = backgroundHost(deps.platform);
  let keepRunning = false;
  let quitting = false;
  let explained = false;

  function setKeepRunning(value: boolean): void {
    keepRunning = value;
    trayAndBadge.syncTray(keepRunning);
  }

  return {
    onCoreEvent(event, payload) {
      if (event === 'settings.changed') {
        setKeepRunning((payload as EventOf<'settings.changed'>).settings.keepRunningOnClose);
        return;
      }
      const change = pending.apply(event, payload);
      if (!change.changed) return;
      if (change.requested) {
        const window = deps.window();
        if (shouldNotify(windowStateOf(window))) {
          notifier.notify(change.requested.requestId, approvalNotification(change.requested, pending.count));
          if (window && !window.isDestroyed()) window.flashFrame(true);
        }
      }
      if (change.closed) notifier.close(change.closed);
      trayAndBadge.updateBadge();
    },

    setKeepRunning,

    onBeforeQuit() {
      quitting = true;
    },

    onWindowClose(event) {
      if (closeAction({ quitting, keepRunning }) === 'close') return;
      event.preventDefault();
      deps.window()?.hide();
      if (explained) return;
      explained = true;
      const notice = backgroundNotice(host);
      if (notifier.notificationsWork()) new Notification(notice).show();
      deps.log(`${notice.title}: ${notice.body}`);
    },

    onWindowFocus() {
      deps.window()?.flashFrame(false);
    },

    dispose() {
      notifier.dispose();
      trayAndBadge.dispose();
    },
  };
}

function imageOf(bitmap: Buffer, size: number, scaleFactor = 1): NativeImage {
  return nativeImage.createFromBitmap(bitmap, { width: size, height: size, scaleFactor });
}
