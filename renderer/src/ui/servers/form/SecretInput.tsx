/**
 * A write-only secret value. A stored value is never shown — only "Stored" with a Replace action;
 * a new value is typed into a password field and sent once. Optionally, the value can come from
 * an environment variable of the app's process instead (an advanced choice).
 */
import type { SecretValueState } from './formModel.js';
import { Icon } from '../../components/Icon.js';

export function SecretInput({
  id,
  label,
  state,
  stored,
  invalid,
  describedBy,
  autoFocus = false,
  onChange,
}: {
  id: string;
  /** Accessible name of the value input ("Bearer token", "Variable 1 value"). */
  label: string;
  state: SecretValueState;
  /** Whether main holds a value for this slot (edit only). */
  stored: 'set' | 'not_set' | undefined;
  invalid: boolean;
  describedBy: string | undefined;
  autoFocus?: boolean;
  onChange: (patch: Partial<SecretValueState>) => void;
}) {
  const common = { 'aria-invalid': invalid || undefined, 'aria-describedby': describedBy } as const;
  const sourcePicker = (
    <select
      className="input input-compact secret-source"
      aria-label={`${label} source`}
      value={state.source}
      onChange={(e) => onChange({ source: e.target.value === 'env' ? 'env' : 'store', replacing: false, value: '' })}
    >
      <option value="store">Stored</option>
      <option value="env">Env var</option>
    </select>
  );

  if (state.source === 'env') {
    return (
      <div className="secret-input">
        <input
          id={id}
          className="input mono"
          aria-label={`${label} environment variable`}
          placeholder="VARIABLE_NAME"
          value={state.envName}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange({ envName: e.target.value })}
          {...common}
        />
        {sourcePicker}
      </div>
    );
  }

  if (stored === 'set' && !state.replacing) {
    return (
      <div className="secret-input">
        <span className="secret-stored" id={id} role="status" aria-label={`${label}: stored`}>
          <Icon name="lock" size={14} />
          Stored
        </span>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onChange({ replacing: true, value: '' })}
          aria-label={`Replace ${label.toLowerCase()}`}
        >
          Replace
        </button>
        {sourcePicker}
      </div>
    );
  }

  return (
    <div className="secret-input">
      <input
        id={id}
        className="input mono"
        type="password"
        aria-label={label}
        placeholder={stored === 'set' ? 'New value' : 'Value (write-only)'}
        autoComplete="new-password"
        spellCheck={false}
        value={state.value}
        data-autofocus={autoFocus || undefined}
        onChange={(e) => onChange({ value: e.target.value })}
        {...common}
      />
      {stored === 'set' && (
        <button
          type="button"
          className="btn btn-small btn-ghost"
          onClick={() => onChange({ replacing: false, value: '' })}
        >
          Keep stored
        </button>
      )}
      {sourcePicker}
    </div>
  );
}
