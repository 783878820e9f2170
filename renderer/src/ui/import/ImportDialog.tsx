/**
 * "Import…": servers from a Claude Desktop, VS Code or Cursor MCP configuration file. The person
 * picks (or drops) the file; main reads it and says what it would import — the format, each
 * server with its command or URL, its problems, and how many secrets it carries (stored in the
 * secret store, never in the configuration file); VS Code `inputs` are asked for here. Import is
 * all or nothing; the new servers then connect by themselves. The flow's state (file, preview,
 * choices, values, failure) lives in state/slices/importSlice.ts; only the drop zone's hover look is here.
 */
import type { DragEvent } from 'react';
import { useState } from 'react';
import type { ImportPreview } from '../../../../shared/contract.js';
import { importableServers, neededImportInputs } from '../../state/slices/importSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ValidationBanner } from '../components/ValidationBanner.js';
import { Dialog } from '../components/Dialog.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ImportServerRow } from './ImportServerRow.js';

const FORMAT_NAMES: Record<ImportPreview['format'], string> = {
  claude: 'Claude Desktop',
  vscode: 'VS Code',
  cursor: 'Cursor',
};

/** The file picker and drop zone; only its hover look is kept here, no part of the flow. */
function FileDrop() {
  const readFile = useAppStore((s) => s.readImportFile);
  const file = useAppStore((s) => s.importFile);
  const reading = useAppStore((s) => s.importReading);
  const [dragging, setDragging] = useState(false);

  function onDrop(event: DragEvent<HTMLLabelElement>): void {
    event.preventDefault();
    setDragging(false);
    void readFile(event.dataTransfer.files[0]);
  }

  return (
    <label
      className={`file-drop ${dragging ? 'is-dragging' : ''} ${file ? 'has-file' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <input
        type="file"
        accept=".json,.jsonc,application/json"
        className="visually-hidden"
        aria-label="Configuration file"
        data-autofocus
        onChange={(e) => {
          void readFile(e.target.files?.[0]);
          e.target.value = ''; // choosing the same file again reads it again
        }}
      />
      <span className="file-drop-icon" aria-hidden="true">
        {reading ? <Spinner label="Reading" /> : <Icon name={file ? 'check' : 'up'} size={20} />}
      </span>
      <span className="file-drop-text">
        {file ? (
          <>
            <span className="file-drop-title">{file.name}</span>
            <span className="file-drop-hint">Choose another file, or drop it here</span>
          </>
        ) : (
          <>
            <span className="file-drop-title">Choose a configuration file, or drop it here</span>
            <span className="file-drop-hint">
              <code>claude_desktop_config.json</code> · <code>.vscode/mcp.json</code> · <code>~/.cursor/mcp.json</code>
            </span>
          </>
        )}
      </span>
      <span className="btn btn-small file-drop-button" aria-hidden="true">
        Browse…
      </span>
    </label>
  );
}

function ImportHelp() {
  return (
    <details className="raw-json import-help">
      <summary>Where are these files?</summary>
      <dl className="props import-help-list">
        <dt>Claude Desktop</dt>
        <dd>
          <code>~/Library/Application Support/Claude/claude_desktop_config.json</code> (macOS),{' '}
          <code>%APPDATA%\Claude\claude_desktop_config.json</code> (Windows),{' '}
          <code>~/.config/Claude/claude_desktop_config.json</code> (Linux)
        </dd>
        <dt>VS Code</dt>
        <dd>
          <code>.vscode/mcp.json</code> in a workspace, or <code>mcp.json</code> in your user settings folder
        </dd>
        <dt>Cursor</dt>
        <dd>
          <code>~/.cursor/mcp.json</code>, or <code>.cursor/mcp.json</code> in a project
        </dd>
      </dl>
    </details>
  );
}

/** VS Code `inputs` the chosen servers use: asked for here (a password one is stored as a secret). */
function NeededInputs() {
  const preview = useAppStore((s) => s.importPreview);
  const chosen = useAppStore((s) => s.importChosen);
  const inputs = useAppStore((s) => s.importInputs);
  const attempted = useAppStore((s) => s.importAttempted);
  const setInput = useAppStore((s) => s.setImportInput);
  const neededInputs = neededImportInputs(preview, chosen);
  if (neededInputs.length === 0) return null;
  return (
    <fieldset className="form-section import-inputs">
      <legend>Values the file asks for</legend>
      {neededInputs.map((input) => {
        const missing = attempted && (inputs[input.id] ?? '') === '';
        const id = `import-input-${input.id}`;
        return (
          <div key={input.id} className={`field ${missing ? 'has-error' : ''}`}>
            <label className="field-label" htmlFor={id}>
              {input.description}
            </label>
            <input
              id={id}
              className="input mono"
              type={input.password ? 'password' : 'text'}
              autoComplete={input.password ? 'new-password' : 'off'}
              spellCheck={false}
              value={inputs[input.id] ?? ''}
              onChange={(e) => setInput(input.id, e.target.value)}
              aria-invalid={missing || undefined}
              aria-describedby={`${id}-hint`}
            />
            <p id={`${id}-hint`} className="field-hint">
              <code>{`\${input:${input.id}}`}</code> {input.password ? '· stored as a secret, never shown again' : ''}
            </p>
            {missing && <p className="field-error">Enter a value to import the servers that use it.</p>}
          </div>
        );
      })}
    </fieldset>
  );
}

export function ImportDialog() {
  const close = useAppStore((s) => s.closeImport);
  const apply = useAppStore((s) => s.applyImport);
  const setChosen = useAppStore((s) => s.setImportChosen);
  const file = useAppStore((s) => s.importFile);
  const reading = useAppStore((s) => s.importReading);
  const preview = useAppStore((s) => s.importPreview);
  const chosen = useAppStore((s) => s.importChosen);
  const applying = useAppStore((s) => s.importApplying);
  const attempted = useAppStore((s) => s.importAttempted);
  const failure = useAppStore((s) => s.importFailure);
  const importable = preview ? importableServers(preview).length : 0;

  return (
    <Dialog
      title="Import servers"
      description="From Claude Desktop, VS Code or Cursor: pick its MCP configuration file."
      size="large"
      onClose={close}
      onSubmit={() => void apply()}
      footer={
        <>
          <span className="dialog-footer-note">
            <Icon name="lock" size={14} /> Secrets go to the secret store, never into the configuration file.
          </span>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!preview || chosen.length === 0 || applying}>
            {applying && <Spinner label="Importing" />}
            {chosen.length > 0 ? `Import selected (${chosen.length})` : 'Import selected'}
          </button>
        </>
      }
    >
      <FileDrop />

      {!file && !reading && <ImportHelp />}

      {failure && <ValidationBanner title={failure.title} message={failure.message} problems={failure.details} />}

      {preview && (
        <section className="import-preview" aria-label="What would be imported">
          <div className="import-summary">
            <span className="chip chip-format" data-testid="import-format">
              {FORMAT_NAMES[preview.format]}
            </span>
            <span className="muted">
              {preview.servers.length} {preview.servers.length === 1 ? 'server' : 'servers'} in the file · {importable}{' '}
              can be imported
            </span>
            {preview.servers.length > 1 && importable > 0 && (
              <button
                type="button"
                className="btn btn-small btn-ghost import-toggle-all"
                onClick={() => setChosen(chosen.length === importable ? [] : importableServers(preview))}
              >
                {chosen.length === importable ? 'Select none' : 'Select all'}
              </button>
            )}
          </div>
          {preview.servers.length === 0 ? (
            <p className="muted">The file lists no servers.</p>
          ) : (
            <ul className="import-servers" role="list">
              {preview.servers.map((server) => (
                <ImportServerRow
                  key={server.name}
                  server={server}
                  checked={chosen.includes(server.name)}
                  onChange={(checked) =>
                    setChosen(checked ? [...chosen, server.name] : chosen.filter((n) => n !== server.name))
                  }
                />
              ))}
            </ul>
          )}
          <NeededInputs />
          {attempted && chosen.length === 0 && <ValidationBanner title="Select at least one server." />}
        </section>
      )}
    </Dialog>
  );
}
