/** App-wide state: what main says about itself, the link to it, and transient notices. */
import type { AppInfo, AppWarning } from '../../../../shared/contract.js';
import type { ConnectionState } from '../../bridge/index.js';
import { messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';

type NoticeTone = 'info' | 'success' | 'error';
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
  /** Keys (see lib/appWarnings.ts) of the warnings the person dismissed. */
  dismissedWarnings: string[];
  notices: Notice[];
  loadInfo(): Promise<void>;
  /** Main found more (e.g. a damaged tool cache after start): the whole list. */
  applyWarnings(warnings: AppWarning[]): void;
  setConnection(state: ConnectionState): void;
  /** Skips the reconnect backoff. */
  retryConnection(): void;
  dismissWarning(key: string): void;
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

  applyWarnings(warnings) {
    const info = get().info;
    if (info) set({ info: { ...info, warnings } }, false, 'app/warnings');
  },

  setConnection(connection) {
    set({ connection, everConnected: get().everConnected || connection.status === 'open' }, false, 'app/connection');
  },

  retryConnection() {
    client.retryNow();
  },

  dismissWarning(key) {
    set({ dismissedWarnings: [...get().dismissedWarnings, key] }, false, 'app/dismissWarning');
  },

  notify(tone, text) {
    const notice = { id: nextNoticeId++, tone, text };
    set({ notices: [...get().notices, notice].slice(-NOTICE_LIMIT) }, false, 'app/notify');
  },

  dismissNotice(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) }, false, 'app/dismissNotice');
  },
});
