/**
 * A labelled form field with its hint and its errors; the control gets `aria-describedby` and
 * `aria-invalid` from `controlProps` so screen readers (and tests) find the message at the field.
 */
import type { ReactNode } from 'react';

function hintId(id: string): string {
  return `${id}-hint`;
}
export function errorId(id: string): string {
  return `${id}-error`;
}

export function controlProps(id: string, errors: string[], hasHint = false) {
  const describedBy = [hasHint ? hintId(id) : '', errors.length ? errorId(id) : ''].filter(Boolean).join(' ');
  return {
    id,
    'aria-invalid': errors.length > 0 ? true : undefined,
    'aria-describedby': describedBy || undefined,
  } as const;
}

/** Messages from the schema read "must not be empty"; at a field they start with a capital. */
function sentenceCase(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}

export function FieldErrorText({ id, errors }: { id: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <p id={errorId(id)} className="field-error">
      {errors.map(sentenceCase).join(' · ')}
    </p>
  );
}

export function Field({
  id,
  label,
  hint,
  errors,
  optional = false,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  errors: string[];
  optional?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`field ${errors.length ? 'has-error' : ''}`}>
      <label className="field-label" htmlFor={id}>
        {label}
        {optional && <span className="field-optional">optional</span>}
      </label>
      {children}
      {hint && (
        <p id={hintId(id)} className="field-hint">
          {hint}
        </p>
      )}
      <FieldErrorText id={id} errors={errors} />
    </div>
  );
}
