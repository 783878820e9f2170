/** The form's General part: name, id (derived from the name while creating) and transport. */
import { Field, FieldErrorText, controlProps } from '../../components/Field.js';
import { Icon } from '../../components/Icon.js';
import type { TransportKind } from './formModel.js';
import type { SectionProps } from './useServerForm.js';

export function GeneralSection({
  form,
  errors,
  focusSlot,
  update,
  onName,
}: Omit<SectionProps, 'states'> & { onName: (name: string) => void }) {
  const isEdit = form.mode === 'edit';
  const nameErrors = errors.at('name');
  const idErrors = errors.at('id');
  return (
    <fieldset className="form-section">
      <legend>General</legend>
      <div className="form-grid">
        <Field id="server-name" label="Name" errors={nameErrors}>
          <input
            className="input"
            value={form.name}
            onChange={(e) => onName(e.target.value)}
            autoComplete="off"
            data-autofocus={!focusSlot || undefined}
            {...controlProps('server-name', nameErrors)}
          />
        </Field>
        <Field
          id="server-id"
          label="ID"
          errors={idErrors}
          hint={isEdit ? 'The id cannot change.' : 'Names its tools and logs; derived from the name.'}
        >
          <input
            className="input mono"
            value={form.id}
            readOnly={isEdit}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => update({ id: e.target.value, idEdited: true }, ['id'])}
            {...controlProps('server-id', idErrors, true)}
          />
        </Field>
      </div>
      <TransportPicker
        value={form.transport}
        onChange={(transport) => update({ transport }, ['transport'])}
        errors={errors.at('transport')}
      />
    </fieldset>
  );
}

function TransportPicker({
  value,
  onChange,
  errors,
}: {
  value: TransportKind;
  onChange: (t: TransportKind) => void;
  errors: string[];
}) {
  const options: { key: TransportKind; title: string; text: string; icon: 'terminal' | 'globe' }[] = [
    { key: 'stdio', title: 'Local process (stdio)', text: 'Starts a program on this machine.', icon: 'terminal' },
    { key: 'streamable_http', title: 'Remote (Streamable HTTP)', text: 'Talks to a server at a URL.', icon: 'globe' },
  ];
  return (
    <div className="field">
      <div className="choice-group" role="radiogroup" aria-label="Transport">
        {options.map((o) => (
          <label key={o.key} className={`choice ${value === o.key ? 'is-selected' : ''}`}>
            <input
              type="radio"
              name="transport"
              value={o.key}
              checked={value === o.key}
              onChange={() => onChange(o.key)}
            />
            <Icon name={o.icon} size={20} />
            <span>
              <span className="choice-title">{o.title}</span>
              <span className="choice-text">{o.text}</span>
            </span>
          </label>
        ))}
      </div>
      <FieldErrorText id="server-transport" errors={errors} />
    </div>
  );
}
