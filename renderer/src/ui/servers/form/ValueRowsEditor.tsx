/**
 * Environment variables or headers: one row per name, each value plain or secret. A secret row's
 * value is write-only (see SecretInput); its slot is `env.NAME` / `headers.NAME`.
 */
import { useId } from 'react';
import type { SecretStates } from './buildRequest.js';
import type { ErrorLookup } from './fieldErrors.js';
import { FieldErrorText, errorId } from '../../components/Field.js';
import type { ValueRow } from './formModel.js';
import { emptyValueRow, rowErrorKey, slotOf } from './formModel.js';
import { SecretInput } from './SecretInput.js';
import { Icon } from '../../components/Icon.js';

function rowErrorPaths(kind: 'env' | 'headers', row: ValueRow): string[] {
  return [`${kind}.${row.name.trim()}`, rowErrorKey(row)];
}

/** One name and its value (plain or secret), with its errors. */
function ValueRowItem({
  kind,
  row,
  n,
  id,
  states,
  errors,
  focusSlot,
  onUpdate,
  onRemove,
}: {
  kind: 'env' | 'headers';
  row: ValueRow;
  /** Its place in the list, from 1 (the accessible names count). */
  n: number;
  id: string;
  states: SecretStates;
  errors: ErrorLookup;
  focusSlot: string | undefined;
  onUpdate: (patch: Partial<ValueRow>) => void;
  onRemove: () => void;
}) {
  const noun = kind === 'env' ? 'Variable' : 'Header';
  const name = row.name.trim();
  const rowErrors = [...errors.at(rowErrorKey(row)), ...(name ? errors.under(`${kind}.${name}`) : [])];
  const invalid = rowErrors.length > 0;
  const slot = slotOf(kind, name);
  return (
    <li className={`value-row ${invalid ? 'has-error' : ''}`}>
      <input
        className="input mono"
        aria-label={`${noun} ${n} name`}
        placeholder={kind === 'env' ? 'NAME' : 'X-Header-Name'}
        value={row.name}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId(id) : undefined}
        onChange={(e) => onUpdate({ name: e.target.value, replacing: false })}
      />
      {row.secret ? (
        <SecretInput
          id={`${id}-value`}
          label={`${noun} ${n} value`}
          state={row}
          stored={name ? states[slot] : undefined}
          invalid={invalid}
          describedBy={invalid ? errorId(id) : undefined}
          autoFocus={focusSlot !== undefined && focusSlot === slot}
          onChange={onUpdate}
        />
      ) : (
        <input
          className="input mono"
          aria-label={`${noun} ${n} value`}
          placeholder="value"
          value={row.value}
          spellCheck={false}
          autoComplete="off"
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorId(id) : undefined}
          onChange={(e) => onUpdate({ value: e.target.value })}
        />
      )}
      <label className="checkbox secret-toggle">
        <input
          type="checkbox"
          checked={row.secret}
          onChange={(e) =>
            onUpdate({
              secret: e.target.checked,
              source: 'store',
              replacing: false,
              value: e.target.checked ? row.value : '',
            })
          }
        />
        <span className="visually-hidden">{`${noun} ${n} is secret`}</span>
        <Icon name="lock" size={14} />
      </label>
      <button
        type="button"
        className="btn btn-icon btn-ghost"
        aria-label={`Remove ${noun.toLowerCase()} ${n}`}
        onClick={onRemove}
      >
        <Icon name="close" size={14} />
      </button>
      <div className="value-row-error">
        <FieldErrorText id={id} errors={rowErrors} />
      </div>
    </li>
  );
}

export function ValueRowsEditor({
  kind,
  rows,
  states,
  errors,
  focusSlot,
  onChange,
}: {
  kind: 'env' | 'headers';
  rows: ValueRow[];
  states: SecretStates;
  errors: ErrorLookup;
  focusSlot: string | undefined;
  /** The new rows, and the error paths the edit touched. */
  onChange: (rows: ValueRow[], touched: string[]) => void;
}) {
  const baseId = useId();
  const update = (index: number, patch: Partial<ValueRow>) => {
    const row = rows[index];
    if (!row) return;
    onChange(
      rows.map((r, i) => (i === index ? { ...r, ...patch } : r)),
      rowErrorPaths(kind, row),
    );
  };

  return (
    <div className="rows-editor">
      {rows.length > 0 && (
        <div className="rows-head" aria-hidden="true">
          <span>Name</span>
          <span>Value</span>
          <span>Secret</span>
          <span />
        </div>
      )}
      <ul className="rows" aria-label={kind === 'env' ? 'Environment variables' : 'Headers'}>
        {rows.map((row, index) => (
          <ValueRowItem
            key={row.key}
            kind={kind}
            row={row}
            n={index + 1}
            id={`${baseId}-${row.key}`}
            states={states}
            errors={errors}
            focusSlot={focusSlot}
            onUpdate={(patch) => update(index, patch)}
            onRemove={() =>
              onChange(
                rows.filter((_, i) => i !== index),
                rowErrorPaths(kind, row),
              )
            }
          />
        ))}
      </ul>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        onClick={() => onChange([...rows, emptyValueRow()], [])}
      >
        <Icon name="plus" size={14} />
        Add {kind === 'env' ? 'variable' : 'header'}
      </button>
    </div>
  );
}
