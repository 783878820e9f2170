/** App-wide state: what main says about itself, the link to it, and transient notices. */
import type { AppInfo } from '../../../../shared/contract.js';
import type { ConnectionState } from '../../bridge/index.js';
import { messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

export type NoticeTone = 'info' | 'success' | 'error';
export interface Notice {
  id: number;
  tone: NoticeTone;
  text: string;
}

export interface AppSlice {
  info: AppInfo | undefined;
  infoError: string | undefined;
  connection: ConnectionState;
  /** Has the link ever been open in this page (a reconnect is then shown as such, not as a start). */
  everConnected: boolean;
  dismissedWarnings: string[];
  notices: Notice[];
  loadInfo(): Promise<void>;
  setConnection(state: ConnectionState): void;
  /** Skips the reconnect backoff. */
  retryConnection(): void;
  dismissWarning(text: string): void;
  notify(tone: NoticeTone, text: string): void;
  dismissNotice(id: number): void;
}

let nextNoticeId = 1;
const NOTICE_LIMIT = 4;

export const createAppSlice: ClientSliceCreator<AppSlice> = (client) => (set, get) => ({
  info: undefined,
  infoError: undefined,
  connection: client.connection.get(),
  everConnected: false,
  dismissedWarnings: [],
  notices: [],

  async loadInfo() {
    try {
      const info = await client.call('app.info', {});
      set({ info, infoError: undefined }, false, 'app/info');
    } catch (error) {
      set({ infoError: messageOf(error) }, false, 'app/infoError');
    }
  },

  setConnection(connection) {
    set({ connection, everConnected: get().everConnected || connection.status === 'open' }, false, 'app/connection');
  },

  retryConnection() {
    client.retryNow();
  },

  dismissWarning(text) {
    set({ dismissedWarnings: [...get().dismissedWarnings, text] }, false, 'app/dismissWarning');
  },

  notify(tone, text) {
    const notice = { id: nextNoticeId++, tone, text };
    set({ notices: [...get().notices, notice].slice(-NOTICE_LIMIT) }, false, 'app/notify');
  },

  dismissNotice(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) }, false, 'app/dismissNotice');
  },
});
