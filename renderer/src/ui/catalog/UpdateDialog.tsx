/** An update of a server installed from the catalog: what changes (version, command, arguments, environment or URL and headers), and the fields the new version newly needs, before it is applied. */
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Dialog } from '../components/Dialog.js';
import { Spinner } from '../components/Spinner.js';
import { FieldInput } from './InstallDialog.js';

export function UpdateDialog() {
  const update = useAppStore((s) => s.catalogUpdate)!;
  const close = useAppStore((s) => s.closeCatalogUpdate);
  const apply = useAppStore((s) => s.applyCatalogUpdate);
  const setValue = useAppStore((s) => s.setCatalogUpdateValue);
  const { preview } = update;
  return (
    <Dialog
      title={`Update ${update.serverId}`}
      description={preview ? `From ${preview.from} to ${preview.to}. Nothing changes until you apply it.` : undefined}
      size="large"
      onClose={close}
      onSubmit={() => void apply()}
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!preview || update.busy}>
            {update.busy && <Spinner label="Updating" />}
            Apply update
          </button>
        </>
      }
    >
      {!preview && update.busy && <Spinner label="Reading the new version" />}
      {update.failure && <Callout tone="error">{update.failure}</Callout>}
      {preview && (
        <table className="catalog-diff" aria-label="What changes">
          <thead>
            <tr>
              <th>What</th>
              <th>Now</th>
              <th>After the update</th>
            </tr>
          </thead>
          <tbody>
            {preview.changes.map((c) => (
              <tr key={c.what}>
                <th scope="row">{c.what}</th>
                <td>
                  <code>{c.before}</code>
                </td>
                <td>
                  <code>{c.after}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {preview?.fields.map((field) => (
        <FieldInput
          key={field.key}
          idPrefix="catalog-update"
          field={field}
          value={update.values[field.key] ?? ''}
          errors={update.fieldErrors[field.key] ?? []}
          onChange={(v) => setValue(field.key, v)}
        />
      ))}
    </Dialog>
  );
}
