/**
 * The command's arguments, one per row — each row is exactly one argv entry, passed to the
 * process as-is (there is no shell, so no quoting or splitting happens anywhere). The same rows
 * edit other lists of strings (a server's root folders) through `words`.
 */
import type { ErrorLookup } from './fieldErrors.js';
import { FieldErrorText } from '../../components/Field.js';
import type { ArgRow } from './formModel.js';
import { emptyArgRow } from './formModel.js';
import { Icon } from '../../components/Icon.js';

/** Row index → index in the sent argument list (-1 for an empty row, which is not sent). */
function sentIndexesOf(rows: ArgRow[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (const row of rows) out.push(row.value !== '' ? next++ : -1);
  return out;
}

/** How one list names itself and its rows, and the field its errors are reported under. */
export interface RowWords {
  field: string;
  list: string;
  item: string;
  add: string;
  placeholder?: string;
}

const ARGUMENT_WORDS: RowWords = { field: 'args', list: 'Arguments', item: 'Argument', add: 'Add argument' };

export function ArgsEditor({
  rows,
  errors,
  onChange,
  words = ARGUMENT_WORDS,
}: {
  rows: ArgRow[];
  errors: ErrorLookup;
  onChange: (rows: ArgRow[]) => void;
  words?: RowWords;
}) {
  // Errors from the schema count only the arguments that are sent (empty rows are left out).
  const sentIndexes = sentIndexesOf(rows);
  const move = (from: number, to: number) => {
    const next = rows.slice();
    const [row] = next.splice(from, 1);
    if (row) next.splice(to, 0, row);
    onChange(next);
  };
  return (
    <div className="rows-editor">
      <ol className="rows" aria-label={words.list}>
        {rows.map((row, index) => {
          const sent = sentIndexes[index];
          const rowErrors = sent !== undefined && sent >= 0 ? errors.under(`${words.field}.${sent}`) : [];
          const id = `${words.field}-${row.key}`;
          return (
            <li key={row.key} className="arg-row">
              <span className="arg-index" aria-hidden="true">
                {index + 1}
              </span>
              <input
                id={id}
                className="input mono"
                aria-label={`${words.item} ${index + 1}`}
                value={row.value}
                placeholder={words.placeholder}
                spellCheck={false}
                autoComplete="off"
                aria-invalid={rowErrors.length > 0 || undefined}
                onChange={(e) => onChange(rows.map((r, i) => (i === index ? { ...r, value: e.target.value } : r)))}
              />
              <button
                type="button"
                className="btn btn-icon btn-ghost"
                aria-label={`Move ${words.item.toLowerCase()} ${index + 1} up`}
                disabled={index === 0}
                onClick={() => move(index, index - 1)}
              >
                <Icon name="up" size={14} />
              </button>
              <button
                type="button"
                className="btn btn-icon btn-ghost"
                aria-label={`Move ${words.item.toLowerCase()} ${index + 1} down`}
                disabled={index === rows.length - 1}
                onClick={() => move(index, index + 1)}
              >
                <Icon name="down" size={14} />
              </button>
              <button
                type="button"
                className="btn btn-icon btn-ghost"
                aria-label={`Remove ${words.item.toLowerCase()} ${index + 1}`}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              >
                <Icon name="close" size={14} />
              </button>
              <FieldErrorText id={id} errors={rowErrors} />
            </li>
          );
        })}
      </ol>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange([...rows, emptyArgRow()])}>
        <Icon name="plus" size={14} />
        {words.add}
      </button>
    </div>
  );
}
