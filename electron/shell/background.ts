/**
 * Running on with the window closed (Settings → "Keep running when the window is closed"): the
 * decisions, pure. Closing the window then hides it, and the app — its MCP servers, pending
 * approvals and the gateway agents talk to — runs on in the tray (Windows, Linux) or the dock
 * (macOS). Quitting (tray menu, Cmd+Q, a signal) always closes for real.
 */
import { PRODUCT_NAME } from '../../shared/product.js';
import type { NotificationText } from '../../shared/approvalNotice.js';
import { pendingLabel } from './approvalAttention.js';

export type BackgroundHost = 'tray' | 'dock';

export function backgroundHost(platform: string): BackgroundHost {
  return platform === 'darwin' ? 'dock' : 'tray';
}

/** What a click on the window's close button does. */
export function closeAction(input: { quitting: boolean; keepRunning: boolean }): 'hide' | 'close' {
  return !input.quitting && input.keepRunning ? 'hide' : 'close';
}

/** Whether the tray icon should exist: only where it is the background host, and while the setting is on. */
export function wantsTray(input: { platform: string; keepRunning: boolean }): boolean {
  return input.keepRunning && backgroundHost(input.platform) === 'tray';
}

/** Said once per run, the first time closing the window only hides it. */
export function backgroundNotice(host: BackgroundHost): NotificationText {
  const where = host === 'dock' ? 'in the Dock' : 'in the tray (notification area)';
  const quit = host === 'dock' ? 'Quit it from the Dock menu or with ⌘Q' : 'Quit it from the tray icon’s menu';
  return {
    title: `${PRODUCT_NAME} is still running`,
    body: `It keeps serving your servers and agents ${where}, and tells you when a call needs approval. ${quit}, or turn this off in Settings.`,
  };
}

export type TrayAction = 'show' | 'approvals' | 'quit';

export interface TrayItem {
  action: TrayAction;
  label: string;
}

/** The tray icon's menu: open the window, the waiting approvals (when any), quit. */
export function trayMenuItems(pendingCount: number): TrayItem[] {
  const items: TrayItem[] = [{ action: 'show', label: `Open ${PRODUCT_NAME}` }];
  const label = pendingLabel(pendingCount);
  if (label) items.push({ action: 'approvals', label: `Review ${label}…` });
  items.push({ action: 'quit', label: `Quit ${PRODUCT_NAME}` });
  return items;
}
