/**
 * Import of MCP servers from a Claude Desktop, VS Code or Cursor configuration file: whether the
 * dialog is open, and the two calls (preview, apply). The file's text and the person's choices
 * live in the dialog while it is open; nothing of the file is kept after it closes.
 */
import type { ImportPreview, RequestOf, ServerView } from '../../../../shared/contract.js';
import type { ClientSliceCreator } from '../types.js';

export interface ImportSlice {
  importOpen: boolean;
  openImport(): void;
  closeImport(): void;
  /** What the file would import. Throws the BridgeError (import_malformed, import_unrecognized, …). */
  previewImport(request: RequestOf<'import.preview'>): Promise<ImportPreview>;
  /** Imports the chosen servers (all or nothing); they then connect by themselves. Throws the BridgeError. */
  applyImport(request: RequestOf<'import.apply'>): Promise<ServerView[]>;
}

export const createImportSlice: ClientSliceCreator<ImportSlice> = (client) => (set, get) => ({
  importOpen: false,
  openImport: () => set({ importOpen: true }, false, 'import/open'),
  closeImport: () => set({ importOpen: false }, false, 'import/close'),

  previewImport(request) {
    return client.call('import.preview', request);
  },

  async applyImport(request) {
    const { imported } = await client.call('import.apply', request);
    // 'servers.changed' follows; load the list too so the new rows show even if that event is late.
    void get().loadServers();
    return imported;
  },
});
