/**
 * Install from the catalog: exactly the fields the entry's package or remote needs (required
 * first, secrets as password fields that go to the secret store), the command or URL it will
 * run, and the id. Nothing is saved until main validates everything; its messages show at the
 * fields.
 */
import type { InstallField } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Dialog } from '../components/Dialog.js';
import { Field, FieldErrorText, controlProps } from '../components/Field.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';

export function FieldInput({
  field,
  value,
  errors,
  onChange,
  idPrefix,
}: {
  field: InstallField;
  value: string;
  errors: string[];
  onChange: (value: string) => void;
  idPrefix: string;
}) {
  const id = `${idPrefix}-${field.key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const choices = field.choices ?? (field.format === 'boolean' ? ['true', 'false'] : undefined);
  const hint = [field.description, field.secret ? 'Stored in the secret store, never in the configuration file.' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <Field id={id} label={field.label} hint={hint || undefined} errors={[]} optional={!field.required}>
      {choices ? (
        <select {...controlProps(id, errors, !!hint)} value={value} onChange={(e) => onChange(e.target.value)}>
          {!field.required && <option value="">(none)</option>}
          {field.required && value === '' && <option value="">Choose…</option>}
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...controlProps(id, errors, !!hint)}
          type={field.secret ? 'password' : field.format === 'number' ? 'number' : 'text'}
          autoComplete="off"
          placeholder={field.placeholder}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      <FieldErrorText id={id} errors={errors} />
    </Field>
  );
}

export function InstallDialog() {
  const install = useAppStore((s) => s.catalogInstall)!;
  const close = useAppStore((s) => s.closeCatalogInstall);
  const submit = useAppStore((s) => s.submitCatalogInstall);
  const setValue = useAppStore((s) => s.setCatalogInstallValue);
  const setId = useAppStore((s) => s.setCatalogInstallId);
  const { plan } = install;
  const errorsOf = (key: string) => install.fieldErrors[key] ?? [];
  return (
    <Dialog
      title={`Install ${install.name}`}
      description={plan ? `Version ${plan.version}. It starts sandboxed and untrusted; its tools ask.` : undefined}
      size="large"
      onClose={close}
      onSubmit={() => void submit()}
      footer={
        <>
          <span className="dialog-footer-note">
            <Icon name="lock" size={14} /> Secrets go to the secret store, never into the configuration file.
          </span>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!plan || !!plan.blocker || install.busy}>
            {install.busy && <Spinner label="Installing" />}
            Install
          </button>
        </>
      }
    >
      {!plan && install.busy && <Spinner label="Reading the entry" />}
      {install.failure && <Callout tone="error">{install.failure}</Callout>}
      {plan?.blocker && <Callout tone="warning">{plan.blocker}</Callout>}
      {plan && (
        <>
          <p className="field-hint">
            Runs: <code data-testid="install-summary">{plan.summary}</code>
          </p>
          <Field id="catalog-install-id" label="Server id" errors={[]}>
            <input
              {...controlProps('catalog-install-id', errorsOf('id'))}
              value={install.id}
              onChange={(e) => setId(e.target.value)}
            />
            <FieldErrorText id="catalog-install-id" errors={errorsOf('id')} />
          </Field>
          {plan.fields.length === 0 && <p>This entry needs no settings.</p>}
          {plan.fields.map((field) => (
            <FieldInput
              key={field.key}
              idPrefix="catalog-install"
              field={field}
              value={install.values[field.key] ?? ''}
              errors={errorsOf(field.key)}
              onChange={(v) => setValue(field.key, v)}
            />
          ))}
        </>
      )}
    </Dialog>
  );
}
