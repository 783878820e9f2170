import { useSecretWarningDismissal } from '../components/secretWarningDismissal.js';

/** In Settings: the banner was dismissed; bring it back above every view. */
export function SecretBannerRestore({ warning }: { warning: string }) {
  const { dismissed, restore } = useSecretWarningDismissal(warning);
  if (!dismissed) return null;
  return (
    <p className="card-note">
      You hid this warning from the top of the app.{' '}
      <button type="button" className="btn btn-small btn-ghost" onClick={restore}>
        Show it above every view again
      </button>
    </p>
  );
}
