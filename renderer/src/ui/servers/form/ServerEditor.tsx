/** Opens the server form for the editor state in the store (add, or edit a known server). */
import { selectServerById } from '../../../state/selectors.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { ServerFormDialog } from './ServerFormDialog.js';

export function ServerEditor() {
  const editor = useAppStore((s) => s.editor);
  const close = useAppStore((s) => s.closeEditor);
  const server = useAppStore(selectServerById(editor?.mode === 'edit' ? editor.serverId : undefined));
  if (!editor) return null;
  if (editor.mode === 'edit' && !server) {
    // The server went away (removed elsewhere) while the editor was opening.
    return null;
  }
  return (
    <ServerFormDialog
      key={editor.mode === 'edit' ? `edit-${editor.serverId}` : 'create'}
      server={editor.mode === 'edit' ? server : undefined}
      focusSlot={editor.mode === 'edit' ? editor.focusSlot : undefined}
      onClose={close}
    />
  );
}
