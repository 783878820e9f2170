/**
 * A native modal <dialog> that stays open while something waits for the person (an approval, a
 * server's ask): shown while `open`, closed when not, and shown again if the browser closes it on
 * its own (a repeated Esc) — closing it without an answer is not possible.
 */
import { useEffect, useRef } from 'react';

export function useWaitingModal(open: boolean): {
  ref: React.RefObject<HTMLDialogElement | null>;
  onClose: () => void;
} {
  const ref = useRef<HTMLDialogElement>(null);
  const wantOpen = useRef(false);

  useEffect(() => {
    wantOpen.current = open;
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const onClose = (): void => {
    const dialog = ref.current;
    if (dialog && wantOpen.current && !dialog.open) dialog.showModal();
  };
  return { ref, onClose };
}
