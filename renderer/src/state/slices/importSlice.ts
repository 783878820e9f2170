/**
 * Import of MCP servers from a Claude Desktop, VS Code or Cursor configuration file: whether the
 * dialog is open, and the flow inside it — the file read, main's preview of what it would import,
 * the servers chosen, the values the file asks for, and the import itself (all or nothing).
 *
 * The file's text lives here only while the dialog is open: opening and closing it start over
 * (`INITIAL`), and an answer that arrives after the dialog closed or another file was chosen is
 * dropped, so nothing of the file is kept after it closes.
 */
import type { ImportPreview } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import { describeFailure, errorTitle } from '../../lib/describeError.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

export const MAX_IMPORT_FILE_BYTES = 1_000_000;

interface ImportFailure {
  title: string;
  message: string;
  details: string[];
}

interface ImportFile {
  name: string;
  content: string;
}

/** What the flow needs of a picked or dropped file (a DOM `File`). */
type PickedFile = Pick<File, 'name' | 'size' | 'text'>;

type ImportInput = ImportPreview['inputs'][number];

export interface ImportSlice {
  importOpen: boolean;
  /** The file read, while the dialog is open. */
  importFile: ImportFile | undefined;
  /** What main says the file would import. */
  importPreview: ImportPreview | undefined;
  /** Names of the servers chosen to import. */
  importChosen: string[];
  /** Values for the file's inputs (VS Code `${input:…}`), by input id. */
  importInputs: Record<string, string>;
  importReading: boolean;
  importApplying: boolean;
  /** An import was tried: an empty choice and missing values now show as errors. */
  importAttempted: boolean;
  importFailure: ImportFailure | undefined;

  openImport(): void;
  closeImport(): void;
  /** Reads the file and asks main what it would import; the importable servers start chosen. */
  readImportFile(file: PickedFile | undefined): Promise<void>;
  setImportChosen(names: string[]): void;
  setImportInput(id: string, value: string): void;
  /** Imports the chosen servers; on success notifies, selects the first one and closes. */
  applyImport(): Promise<void>;
}

/** The servers of a preview that can be imported (they have a configuration and are not there yet). */
export function importableServers(preview: ImportPreview): string[] {
  return preview.servers.filter((s) => s.config && !s.exists).map((s) => s.name);
}

/** The inputs the chosen servers use: only those are asked for. */
export function neededImportInputs(preview: ImportPreview | undefined, chosen: string[]): ImportInput[] {
  return preview
    ? preview.inputs.filter((input) =>
        preview.servers.some((s) => chosen.includes(s.name) && s.inputs.includes(input.id)),
      )
    : [];
}

function missingImportInputs(needed: ImportInput[], inputs: Record<string, string>): ImportInput[] {
  return needed.filter((input) => (inputs[input.id] ?? '') === '');
}

function failureOf(error: unknown, fallback: string): ImportFailure {
  const fieldErrors = error instanceof BridgeError ? error.fieldErrors : {};
  const details = Object.entries(fieldErrors).map(([field, messages]) =>
    field ? `${field}: ${messages.join(', ')}` : messages.join(', '),
  );
  return { title: describeFailure(error, fallback).title, message: messageOf(error), details };
}

const INITIAL: StateOf<ImportSlice> = {
  importOpen: false,
  importFile: undefined,
  importPreview: undefined,
  importChosen: [],
  importInputs: {},
  importReading: false,
  importApplying: false,
  importAttempted: false,
  importFailure: undefined,
};

export const createImportSlice: ClientSliceCreator<ImportSlice> = (client) => (set, get) => {
  /** Bumped when the dialog opens or closes and when a file is picked: older answers are dropped. */
  let generation = 0;

  return {
    ...INITIAL,
    openImport: () => {
      generation++;
      set({ ...INITIAL, importOpen: true }, false, 'import/open');
    },
    closeImport: () => {
      generation++;
      set(INITIAL, false, 'import/close');
    },

    async readImportFile(picked) {
      if (!picked) return;
      const mine = ++generation;
      set({ importFailure: undefined, importPreview: undefined, importAttempted: false }, false, 'import/pick');
      if (picked.size > MAX_IMPORT_FILE_BYTES) {
        const message = `“${picked.name}” is ${Math.round(picked.size / 1024)} KB; MCP configuration files are far smaller. Nothing was imported.`;
        set(
          { importFile: undefined, importFailure: { title: errorTitle('import_too_large'), message, details: [] } },
          false,
          'import/tooLarge',
        );
        return;
      }
      set({ importReading: true }, false, 'import/reading');
      try {
        const loaded = { name: picked.name, content: await picked.text() };
        if (mine !== generation) return;
        set({ importFile: loaded }, false, 'import/read');
        const preview = await client.call('import.preview', { content: loaded.content, fileName: loaded.name });
        if (mine !== generation) return;
        set(
          {
            importPreview: preview,
            importChosen: importableServers(preview),
            importInputs: Object.fromEntries(preview.inputs.map((i) => [i.id, ''])),
          },
          false,
          'import/preview',
        );
      } catch (error) {
        if (mine !== generation) return;
        set({ importFailure: failureOf(error, 'The file could not be read') }, false, 'import/readError');
      } finally {
        if (mine === generation) set({ importReading: false }, false, 'import/readDone');
      }
    },

    setImportChosen(importChosen) {
      set({ importChosen }, false, 'import/choose');
    },

    setImportInput(id, value) {
      set({ importInputs: { ...get().importInputs, [id]: value } }, false, 'import/input');
    },

    async applyImport() {
      set({ importAttempted: true }, false, 'import/attempt');
      const { importFile: file, importPreview: preview, importChosen: chosen, importInputs: inputs } = get();
      const needed = neededImportInputs(preview, chosen);
      if (!file || !preview || chosen.length === 0 || missingImportInputs(needed, inputs).length > 0) return;
      const mine = generation;
      set({ importApplying: true, importFailure: undefined }, false, 'import/apply');
      try {
        const values = Object.fromEntries(needed.map((input) => [input.id, inputs[input.id] ?? '']));
        const { imported } = await client.call('import.apply', {
          content: file.content,
          fileName: file.name,
          names: chosen,
          inputs: values,
        });
        // 'servers.changed' follows; load the list too so the new rows show even if that event is late.
        void get().loadServers();
        get().notify(
          'success',
          `Imported ${imported.length === 1 ? serverNameOf(imported[0]!) : `${imported.length} servers`}. ${imported.length === 1 ? 'It connects' : 'They connect'} by ${imported.length === 1 ? 'itself' : 'themselves'}.`,
        );
        const first = imported[0];
        if (first) get().selectServer(serverIdOf(first));
        get().closeImport();
      } catch (error) {
        if (mine !== generation) return;
        set(
          { importFailure: failureOf(error, 'Nothing was imported'), importApplying: false },
          false,
          'import/applyError',
        );
      }
    },
  };
};
