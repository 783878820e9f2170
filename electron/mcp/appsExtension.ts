/**
 * The client's declaration of MCP Apps (`io.modelcontextprotocol/ui`) in its capabilities'
 * `extensions`, with the one MIME type this host renders — in one place, for both eras (the
 * legacy `initialize` carries the capabilities as given; a modern request carries them in its
 * `_meta` envelope).
 */
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { APP_HTML_MIME_TYPE, APPS_EXTENSION_ID } from '../../shared/contract/toolApp.js';

export function withAppsExtension(capabilities: ClientCapabilities): ClientCapabilities {
  return {
    ...capabilities,
    extensions: { ...(capabilities.extensions ?? {}), [APPS_EXTENSION_ID]: { mimeTypes: [APP_HTML_MIME_TYPE] } },
  };
}
