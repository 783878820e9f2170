/**
 * The Import flow in its slice: the file read and previewed, the importable servers chosen, only
 * the inputs the chosen servers use asked for, the import sent and the dialog closed; an answer
 * that arrives after the dialog closed leaves nothing of the file behind.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ImportPreview, ServerView } from '../../shared/contract.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { MAX_IMPORT_FILE_BYTES } from '../../renderer/src/state/slices/importSlice.js';
import { FakeClient, bridgeError, settle } from '../doubles/renderer/fakeClient.js';

const CONTENT = '{"mcpServers":{}}';
const file = (name = 'mcp.json', content = CONTENT) => ({
  name,
  size: content.length,
  text: () => Promise.resolve(content),
});

const PREVIEW: ImportPreview = {
  format: 'vscode',
  servers: [
    { name: 'alpha', config: { id: 'alpha' }, secretSlots: [], inputs: ['token'], exists: false, problems: [] },
    { name: 'beta', config: { id: 'beta' }, secretSlots: [], inputs: ['other'], exists: false, problems: [] },
    { name: 'there', config: { id: 'there' }, secretSlots: [], inputs: [], exists: true, problems: [] },
    { name: 'broken', secretSlots: [], inputs: [], exists: false, problems: ['no command'] },
  ],
  inputs: [
    { id: 'token', description: 'Token', password: true },
    { id: 'other', description: 'Other', password: false },
  ],
};

function server(id: string): ServerView {
  return {
    config: StdioServerConfigSchema.parse({ id, name: `Server ${id}`, transport: 'stdio', command: 'node' }),
    status: { state: 'idle' },
    secrets: {},
    toolCount: 0,
  };
}

describe('import slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    store.getState().openImport();
  });

  async function previewed(): Promise<void> {
    const reading = store.getState().readImportFile(file());
    await settle();
    expect(store.getState().importReading).toBe(true);
    client.next('import.preview').resolve(PREVIEW);
    await reading;
  }

  it('previews the file with the importable servers chosen, then imports them with only the values they use', async () => {
    await previewed();
    expect(client.latest('import.preview').request).toEqual({ content: CONTENT, fileName: 'mcp.json' });
    const state = store.getState();
    expect(state.importReading).toBe(false);
    expect(state.importChosen).toEqual(['alpha', 'beta']);
    expect(state.importInputs).toEqual({ token: '', other: '' });

    store.getState().setImportChosen(['alpha']);
    await store.getState().applyImport();
    expect(store.getState().importAttempted).toBe(true);
    expect(client.callsTo('import.apply')).toHaveLength(0); // the token is missing

    store.getState().setImportInput('token', 's3cret');
    const applying = store.getState().applyImport();
    expect(store.getState().importApplying).toBe(true);
    expect(client.latest('import.apply').request).toEqual({
      content: CONTENT,
      fileName: 'mcp.json',
      names: ['alpha'],
      inputs: { token: 's3cret' },
    });
    client.next('import.apply').resolve({ imported: [server('alpha')] });
    await applying;

    expect(store.getState().importOpen).toBe(false);
    expect(store.getState().selectedServerId).toBe('alpha');
    expect(store.getState().notices.at(-1)?.text).toMatch(/Imported Server alpha\. It connects by itself\./);
    expect(store.getState().importFile).toBeUndefined();
  });

  it('keeps the dialog open with the failure when main refuses the import', async () => {
    await previewed();
    store.getState().setImportInput('token', 'a');
    store.getState().setImportInput('other', 'b');
    const applying = store.getState().applyImport();
    client.next('import.apply').reject(bridgeError('import_malformed', 'the file changed'));
    await applying;
    expect(store.getState().importOpen).toBe(true);
    expect(store.getState().importApplying).toBe(false);
    expect(store.getState().importFailure?.message).toBe('the file changed');
  });

  it('drops a preview that arrives after the dialog closed: nothing of the file is kept', async () => {
    const reading = store.getState().readImportFile(file());
    await settle();
    store.getState().closeImport();
    client.next('import.preview').resolve(PREVIEW);
    await reading;
    const state = store.getState();
    expect([state.importOpen, state.importFile, state.importPreview, state.importChosen, state.importReading]).toEqual([
      false,
      undefined,
      undefined,
      [],
      false,
    ]);
  });

  it('refuses a file too large to be a configuration without asking main', async () => {
    await store
      .getState()
      .readImportFile({ name: 'huge.json', size: MAX_IMPORT_FILE_BYTES + 1, text: () => Promise.resolve('') });
    expect(client.callsTo('import.preview')).toHaveLength(0);
    expect(store.getState().importFailure?.message).toMatch(/“huge\.json” is \d+ KB/);
  });
});
