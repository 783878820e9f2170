/** The form's Roots part: the folders the server is told it may work in. */
import { FieldErrorText } from '../../components/Field.js';
import { ArgsEditor } from './ArgsEditor.js';
import type { SectionProps } from './useServerForm.js';

const ROOT_WORDS = {
  field: 'roots',
  list: 'Roots',
  item: 'Folder',
  add: 'Add folder',
  placeholder: '/home/me/project',
};

export function RootsSection({ form, errors, update }: Pick<SectionProps, 'form' | 'errors' | 'update'>) {
  return (
    <fieldset className="form-section">
      <legend>Roots</legend>
      <p className="field-hint">
        Folders the server is told it may work in (MCP roots), one absolute path per row. They guide the server; they
        are not a boundary by themselves — a sandboxed local server may write its roots (Sandbox, below). A connected
        server is told about a change at once.
      </p>
      <ArgsEditor
        rows={form.roots}
        errors={errors}
        words={ROOT_WORDS}
        onChange={(roots) => update({ roots }, ['roots'])}
      />
      <FieldErrorText id="server-roots" errors={errors.at('roots')} />
    </fieldset>
  );
}
