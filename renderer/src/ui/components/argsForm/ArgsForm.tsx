/**
 * The two ways to enter a call's arguments: a form generated from the tool's inputSchema (rjsf,
 * in the app's theme, without client-side validation — see validator.ts), and raw JSON as a
 * fallback for schemas a form cannot express well.
 */
// Deep import (see argsForm/theme.tsx): the package index pulls in the ajv8 validator, which the app does not ship.
import Form from '@rjsf/core/lib/components/Form.js';
import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';
import type { ReactNode } from 'react';
import { Component, useId } from 'react';
import { FORM_TEMPLATES } from './theme.js';
import { formValidator } from './validator.js';

const UI_SCHEMA: UiSchema = {
  'ui:submitButtonOptions': { norender: true },
  'ui:globalOptions': { copyable: false },
};

/** Optional fields stay absent unless the person fills them (the server applies its defaults). */
const DEFAULT_FORM_STATE = {
  arrayMinItems: { populate: 'requiredOnly' as const },
  emptyObjectFields: 'populateRequiredDefaults' as const,
};
/** Every field starts at its default (a form whose defaults are suggestions to accept as they stand). */
const ALL_DEFAULTS_FORM_STATE = {
  arrayMinItems: { populate: 'requiredOnly' as const },
  emptyObjectFields: 'populateAllDefaults' as const,
};

export function hasParameters(schema: Record<string, unknown>): boolean {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null && Object.keys(properties).length > 0;
}

/** Parses the raw JSON tab: an object, or a message saying where it went wrong. */
export function parseArgs(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    if (position && !/line \d+/.test(message)) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split('\n').length;
      const column = before.length - before.lastIndexOf('\n');
      return { ok: false, message: `Not valid JSON (line ${line}, column ${column}): ${message}` };
    }
    return { ok: false, message: `Not valid JSON: ${message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'The arguments must be a JSON object, like {"name": "value"}.' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** If rjsf cannot render a schema, say so and point to the JSON tab instead of breaking the view. */
class FormBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

export function ArgsSchemaForm({
  schema,
  value,
  disabled,
  onChange,
  onSubmit,
  onCannotRender,
  uiSchema,
  extraErrors,
  emptyText = 'This tool takes no arguments. Press Run to call it.',
  allDefaults = false,
}: {
  schema: Record<string, unknown>;
  value: Record<string, unknown>;
  disabled: boolean;
  onChange: (value: Record<string, unknown>) => void;
  onSubmit: () => void;
  onCannotRender: () => void;
  /** Per-field options besides the form's own (e.g. a widget for a field). */
  uiSchema?: UiSchema;
  /** Errors main reported, shown at their fields. */
  extraErrors?: ErrorSchema;
  /** Shown instead of a form when the schema has no fields. */
  emptyText?: string;
  /** Start every field at its default, optional ones too. */
  allDefaults?: boolean;
}) {
  const idPrefix = useId().replace(/[^A-Za-z0-9_-]/g, '');
  if (!hasParameters(schema)) {
    return <p className="muted args-none">{emptyText}</p>;
  }
  return (
    <FormBoundary
      fallback={
        <p className="muted args-none">
          This schema cannot be shown as a form.{' '}
          <button type="button" className="btn btn-small" onClick={onCannotRender}>
            Use Raw JSON
          </button>
        </p>
      }
    >
      <Form
        className="tool-form"
        schema={schema as RJSFSchema}
        uiSchema={uiSchema ? { ...uiSchema, ...UI_SCHEMA } : UI_SCHEMA}
        {...(extraErrors ? { extraErrors } : {})}
        validator={formValidator}
        noValidate
        showErrorList={false}
        templates={FORM_TEMPLATES}
        formData={value}
        idPrefix={`args${idPrefix}`}
        disabled={disabled}
        experimental_defaultFormStateBehavior={allDefaults ? ALL_DEFAULTS_FORM_STATE : DEFAULT_FORM_STATE}
        onChange={(event) => onChange((event.formData ?? {}) as Record<string, unknown>)}
        onSubmit={() => onSubmit()}
      />
    </FormBoundary>
  );
}

export function ArgsJsonEditor({
  text,
  error,
  disabled,
  onChange,
  onSubmit,
}: {
  text: string;
  error: string | undefined;
  disabled: boolean;
  onChange: (text: string) => void;
  onSubmit: () => void;
}) {
  const id = useId();
  return (
    <div className="field args-json">
      <label className="field-label" htmlFor={`${id}-json`}>
        Arguments (JSON object)
      </label>
      <textarea
        id={`${id}-json`}
        className="input code-input"
        spellCheck={false}
        rows={10}
        value={text}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            onSubmit();
          }
        }}
      />
      <p id={`${id}-hint`} className="field-hint">
        Sent as the call’s <code>arguments</code>; the server checks them against its schema. Ctrl+Enter runs.
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
