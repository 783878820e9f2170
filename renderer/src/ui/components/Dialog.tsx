/**
 * A modal dialog on the native <dialog> element: the browser traps focus, shows a backdrop and
 * turns Esc into a `cancel` event, which we route to `onClose` so React state stays in charge.
 * Mounted only while open. With `onSubmit` its content is a form (Enter submits). The element
 * marked `data-autofocus` gets the initial focus.
 */
import type { FormEvent, ReactNode } from 'react';
import { useEffect, useId, useRef } from 'react';
import { Icon } from './Icon.js';

export function Dialog({
  title,
  description,
  onClose,
  onSubmit,
  footer,
  children,
  size = 'medium',
  role = 'dialog',
}: {
  title: string;
  description?: ReactNode;
  onClose: () => void;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  footer?: ReactNode;
  children?: ReactNode;
  size?: 'small' | 'medium' | 'large';
  role?: 'dialog' | 'alertdialog';
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) {
      dialog.showModal();
      // showModal focuses the first focusable element (the close button); prefer the marked one.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    return () => dialog?.close();
  }, []);

  const body = (
    <>
      <header className="dialog-header">
        <div>
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
          {description && (
            <div id={descriptionId} className="dialog-description">
              {description}
            </div>
          )}
        </div>
        <button type="button" className="btn btn-icon btn-ghost" onClick={onClose} aria-label="Close dialog">
          <Icon name="close" />
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer && <footer className="dialog-footer">{footer}</footer>}
    </>
  );

  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${size}`}
      role={role}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {onSubmit ? (
        <form
          className="dialog-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit(event);
          }}
        >
          {body}
        </form>
      ) : (
        <div className="dialog-form">{body}</div>
      )}
    </dialog>
  );
}
