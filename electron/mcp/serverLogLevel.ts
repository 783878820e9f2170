/**
 * The level of the log messages a server sends, in both eras: a legacy connection asks once
 * (`logging/setLevel`, again on every new session); a modern (2026-07-28) connection has no such
 * request — the level travels in each request's `_meta` (`io.modelcontextprotocol/logLevel`),
 * which the SDK does not attach by itself, and without it the server sends no log messages.
 */
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import type { LogLevel } from './retiredFeatures.js';
import type { ProtocolEra } from './types.js';

export class ServerLogLevel {
  private perRequest: LogLevel | undefined;

  /**
   * Sets the level: sent now (`send`, legacy) or kept for the requests to come (modern). Returns
   * how it took effect, for the log.
   */
  async set(level: LogLevel, era: ProtocolEra, send: () => Promise<void>): Promise<'sent' | 'per request'> {
    if (era === 'modern') {
      this.perRequest = level;
      return 'per request';
    }
    await send();
    return 'sent';
  }

  /** The `_meta` a modern request carries beside the SDK's envelope (nothing on a legacy connection). */
  meta(era: ProtocolEra | undefined): { _meta?: Record<string, unknown> } {
    if (era !== 'modern' || !this.perRequest) return {};
    return { _meta: { [LOG_LEVEL_META_KEY]: this.perRequest } };
  }
}
