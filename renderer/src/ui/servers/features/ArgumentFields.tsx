/**
 * The fields of a prompt's arguments or a resource template's variables, each completed by the
 * server while typed (when it offers completion), with the values of the others as context.
 */
import { useId } from 'react';
import type { CompletionRef, CompletionView } from '../../../../../shared/contract.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { CompletionInput } from './CompletionInput.js';

export interface ArgumentField {
  name: string;
  description?: string;
  required: boolean;
}

/** The values entered, without the empty ones (what a request and a completion's context carry). */
export function filledValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
}

export function ArgumentFields({
  serverId,
  target,
  fields,
  values,
  onChange,
  canComplete,
  missing,
}: {
  serverId: string;
  /** What the values are for (the completion's reference). */
  target: CompletionRef;
  fields: ArgumentField[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  canComplete: boolean;
  /** Required fields left empty at the last attempt. */
  missing: string[];
}) {
  const baseId = useId();
  const complete = useAppStore((s) => s.complete);

  function completer(name: string): ((value: string) => Promise<CompletionView>) | undefined {
    if (!canComplete) return undefined;
    return (value) => {
      const { [name]: _self, ...others } = filledValues(values);
      return complete({
        serverId,
        ref: target,
        argument: { name, value },
        ...(Object.keys(others).length > 0 ? { context: others } : {}),
      });
    };
  }

  return (
    <div className="feature-fields">
      {fields.map((field, index) => {
        const id = `${baseId}-${index}`;
        const hintId = `${id}-hint`;
        const isMissing = missing.includes(field.name);
        return (
          <div key={field.name} className="field">
            <label className="field-label" htmlFor={id}>
              {field.name}
              {!field.required && <span className="field-optional">optional</span>}
            </label>
            <CompletionInput
              id={id}
              value={values[field.name] ?? ''}
              onChange={(value) => onChange(field.name, value)}
              complete={completer(field.name)}
              invalid={isMissing}
              describedBy={field.description || isMissing ? hintId : undefined}
              required={field.required}
            />
            {(field.description || isMissing) && (
              <span id={hintId} className={isMissing ? 'field-error' : 'field-hint'}>
                {isMissing ? 'Required.' : field.description}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}
