/** The form's Process part, for a local (stdio) server: command, arguments, working directory, environment. */
import { Field, FieldErrorText, controlProps } from '../../components/Field.js';
import { ArgsEditor } from './ArgsEditor.js';
import type { SectionProps } from './useServerForm.js';
import { ValueRowsEditor } from './ValueRowsEditor.js';

export function StdioFields({ form, errors, states, focusSlot, update }: SectionProps) {
  return (
    <fieldset className="form-section">
      <legend>Process</legend>
      <Field
        id="server-command"
        label="Command"
        errors={errors.at('command')}
        hint="The program to run — a path or a name on PATH. It is started directly, never through a shell."
      >
        <input
          className="input mono"
          value={form.command}
          spellCheck={false}
          autoComplete="off"
          placeholder="/usr/bin/node"
          onChange={(e) => update({ command: e.target.value }, ['command'])}
          {...controlProps('server-command', errors.at('command'), true)}
        />
      </Field>
      <div className="field">
        <span className="field-label" id="args-label">
          Arguments
        </span>
        <p className="field-hint">One argument per row, exactly as the program receives it — no quoting needed.</p>
        <ArgsEditor rows={form.args} errors={errors} onChange={(args) => update({ args }, ['args'])} />
        <FieldErrorText id="server-args" errors={errors.at('args')} />
      </div>
      <Field id="server-cwd" label="Working directory" optional errors={errors.under('cwd')}>
        <input
          className="input mono"
          value={form.cwd}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => update({ cwd: e.target.value }, ['cwd'])}
          {...controlProps('server-cwd', errors.under('cwd'))}
        />
      </Field>
      <div className="field">
        <span className="field-label">Environment variables</span>
        <p className="field-hint">
          Mark a value as secret to store it in the secret store; the configuration then holds only a reference.
        </p>
        <ValueRowsEditor
          kind="env"
          rows={form.env}
          states={states}
          errors={errors}
          focusSlot={focusSlot}
          onChange={(env, touched) => update({ env }, touched)}
        />
        <FieldErrorText id="server-env" errors={errors.at('env')} />
      </div>
    </fieldset>
  );
}
