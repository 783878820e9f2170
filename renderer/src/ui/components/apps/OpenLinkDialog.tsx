/**
 * An app asked to open a link (`ui/open-link`): the person sees the exact address and who asks,
 * and only Open sends it on — to the user's browser, through the shell in Electron (the window's
 * open handler hands http(s) links to the OS), as a new tab without opener in browser mode.
 */
import { ConfirmDialog } from '../ConfirmDialog.js';

/** Only plain http(s) links without credentials leave the app (as the shell's own rule). */
export function isOpenableLink(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
    !parsed.username &&
    !parsed.password &&
    parsed.hostname.length > 0
  );
}

export function openLinkInBrowser(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

export function OpenLinkDialog({
  url,
  appName,
  onOpen,
  onCancel,
}: {
  url: string;
  appName: string;
  onOpen: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog title="Open a link?" confirmLabel="Open in browser" onConfirm={onOpen} onCancel={onCancel}>
      <p>
        <strong>{appName}</strong> asks to open this address in your browser:
      </p>
      <p>
        <code className="app-link-url" data-testid="app-link-url">
          {url}
        </code>
      </p>
    </ConfirmDialog>
  );
}
