/**
 * Getting the person's attention for approvals while the window is not in front: which requests
 * are pending (from the core's events, the same the window gets), whether a request deserves an
 * OS notification, and what the badge and the tray say (the notification's own words are shared
 * with browser mode: shared/approvalNotice.ts). Pure: shell/desktopIntegration.ts makes the
 * Electron calls.
 */
import type { ApprovalView, EventOf } from '../../shared/contract.js';
import { PRODUCT_NAME } from '../../shared/product.js';

/** How the app window is, as far as getting attention goes. */
export type WindowState = 'focused' | 'visible' | 'minimized' | 'hidden';

export interface WindowProbe {
  isDestroyed(): boolean;
  isVisible(): boolean;
  isMinimized(): boolean;
  isFocused(): boolean;
}

export function windowStateOf(window: WindowProbe | undefined): WindowState {
  if (!window || window.isDestroyed() || !window.isVisible()) return 'hidden';
  if (window.isMinimized()) return 'minimized';
  return window.isFocused() ? 'focused' : 'visible';
}

/** The dialog in a focused window is enough; anywhere else the request could go unseen until it expires. */
export function shouldNotify(state: WindowState): boolean {
  return state !== 'focused';
}

/**
 * What gets the person's attention when the OS notification cannot be shown, or failed
 * (Electron's Notification 'failed': Windows, and macOS for a build that is not signed): the
 * window's own approval dialog — the in-app notice — brought into view without taking focus, the
 * taskbar / Dock flashing, and the badge (which counts every request anyway).
 */
export type FallbackAttention = 'none' | 'flash' | 'show-and-flash';

export function fallbackAttention(state: WindowState): FallbackAttention {
  if (state === 'focused') return 'none';
  return state === 'hidden' ? 'show-and-flash' : 'flash';
}

/** The approvals waiting for a decision, kept from the core's `approval.*` events. */
export class PendingApprovals {
  private readonly pending = new Map<string, ApprovalView>();

  /** Applies one core event. Returns the request when it is a new one, and whether the count changed. */
  apply(event: string, payload: unknown): { changed: boolean; requested?: ApprovalView; closed?: string } {
    if (event === 'approval.requested') {
      const view = payload as EventOf<'approval.requested'>;
      if (this.pending.has(view.requestId)) return { changed: false };
      this.pending.set(view.requestId, view);
      return { changed: true, requested: view };
    }
    if (event === 'approval.closed') {
      const { requestId } = payload as EventOf<'approval.closed'>;
      return this.pending.delete(requestId) ? { changed: true, closed: requestId } : { changed: false };
    }
    return { changed: false };
  }

  has(requestId: string): boolean {
    return this.pending.has(requestId);
  }

  get count(): number {
    return this.pending.size;
  }

  /** The request that has waited longest (the one the window's dialog shows first). */
  oldest(): string | undefined {
    return this.pending.keys().next().value;
  }
}

/** "2 approvals waiting", or undefined when none: the tray tooltip, the Windows overlay's description. */
export function pendingLabel(count: number): string | undefined {
  if (count <= 0) return undefined;
  return `${count} ${count === 1 ? 'approval' : 'approvals'} waiting`;
}

export function trayTooltip(count: number): string {
  const label = pendingLabel(count);
  return label ? `${PRODUCT_NAME} — ${label}` : PRODUCT_NAME;
}
