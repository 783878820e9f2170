/**
 * The body of the one `ipcMain.handle(IPC_INVOKE_CHANNEL, …)` handler, free of Electron so it is
 * tested in plain Node: the sender check comes first, and a refused message never reaches the
 * dispatcher. Everything else (channel name, payload) is validated by the core's dispatcher.
 */
import type { DispatchResult } from '../../shared/bridge.js';
import type { AppLocation } from './appLocation.js';
import { isAppUrl } from './appLocation.js';
import type { SenderInfo } from './sender.js';
import { FORBIDDEN_SENDER, checkSender } from './sender.js';

export interface InvokeHandlerDeps<E> {
  location: AppLocation;
  /** Reads the sender's frame from the IPC event; null when the frame is gone. */
  describeSender(event: E): SenderInfo | null;
  dispatch(channel: unknown, payload: unknown): Promise<DispatchResult>;
  /** Told about refused senders and unexpected failures (no payloads: they may hold secrets). */
  log?: (message: string) => void;
}

const INTERNAL: DispatchResult = {
  ok: false,
  error: { code: 'internal', message: 'The call failed unexpectedly in the main process.' },
};

export function createInvokeHandler<E>(
  deps: InvokeHandlerDeps<E>,
): (event: E, channel: unknown, payload: unknown) => Promise<DispatchResult> {
  return async (event, channel, payload) => {
    let sender: SenderInfo | null;
    try {
      sender = deps.describeSender(event);
    } catch {
      sender = null;
    }
    const verdict = checkSender(sender, deps.location);
    if (!verdict.ok) {
      deps.log?.(`IPC call refused: ${verdict.reason}.`);
      return FORBIDDEN_SENDER;
    }
    try {
      return await deps.dispatch(channel, payload);
    } catch {
      // dispatch promises never to throw; if it does, the renderer still gets the contract's shape.
      deps.log?.(`IPC call ${typeof channel === 'string' ? channel.slice(0, 100) : '?'} threw in the dispatcher.`);
      return INTERNAL;
    }
  };
}

/** Where core events go: the app window's webContents. */
export interface EventWindow {
  url(): string;
  send(ipcChannel: string, ...args: unknown[]): void;
}

/** Forwards core events to the app window, and only while it shows the app's own page. */
export function createEventForwarder(
  location: AppLocation,
  ipcChannel: string,
  target: () => EventWindow | undefined,
): (event: string, payload: unknown) => void {
  return (event, payload) => {
    const window = target();
    if (!window) return;
    try {
      if (isAppUrl(window.url(), location)) window.send(ipcChannel, event, payload);
    } catch {
      // The window was destroyed between the lookup and the send: nobody to tell.
    }
  };
}
