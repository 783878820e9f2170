/**
 * Who may call main over IPC (as VS Code's validated ipcMain): the main frame of the app window,
 * showing the app's own page. A subframe, another window or webContents, a page the window was
 * somehow navigated to, or a frame already gone (senderFrame null) is refused before anything
 * else looks at the message.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { AppLocation } from './appLocation.js';
import { isAppUrl } from './appLocation.js';

export interface SenderInfo {
  /** The frame's URL (WebFrameMain.url). */
  url: string;
  /** The frame's serialized origin (WebFrameMain.origin). */
  origin: string;
  /** True for the top-level frame of its webContents. */
  isMainFrame: boolean;
  /** True when the message came from the app window's webContents. */
  fromAppWindow: boolean;
}

export type SenderVerdict = { ok: true } | { ok: false; reason: string };

export function checkSender(sender: SenderInfo | null | undefined, location: AppLocation): SenderVerdict {
  if (!sender) return { ok: false, reason: 'no sender frame (it navigated away or was destroyed)' };
  if (!sender.fromAppWindow) return { ok: false, reason: 'not the app window' };
  if (!sender.isMainFrame) return { ok: false, reason: 'not the main frame' };
  if (!isAppUrl(sender.url, location)) return { ok: false, reason: 'not the app page' };
  // A file: page has an opaque origin that other local pages share; the URL check above is the
  // one that counts there. A dev-server page has a real origin, which must match too.
  if (location.kind === 'dev' && sender.origin !== location.origin) return { ok: false, reason: 'wrong origin' };
  return { ok: true };
}

export const FORBIDDEN_SENDER: DispatchResult = Object.freeze({
  ok: false,
  error: Object.freeze({
    code: 'forbidden_sender',
    message: 'The call was refused: it did not come from the app window.',
  }),
}) as DispatchResult;
