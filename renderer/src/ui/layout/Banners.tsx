/**
 * Messages above every view: the link to main is down, secrets are not encrypted by the OS
 * (dismissible; Settings keeps saying it), and one-time warnings from main (dismissible) — a damaged
 * file names the file, what was lost and where its bytes were kept.
 */
import { selectSecretWarning } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { baseName, warningKey, warningWords } from '../../lib/appWarnings.js';
import { useSecretWarningDismissal } from '../components/secretWarningDismissal.js';
import { useCountdown } from '../components/useCountdown.js';

function ConnectionBanner() {
  const connection = useAppStore((s) => s.connection);
  const retry = useAppStore((s) => s.retryConnection);
  const seconds = useCountdown(connection.status === 'reconnecting' ? connection.retryAt : undefined);
  if (connection.status === 'open' || connection.status === 'unauthorized') return null;
  return (
    <div className="banner banner-error" role="alert">
      <Icon name="warning" size={18} />
      <p className="banner-text">
        <strong>Connection to MiniHarness lost.</strong>{' '}
        {connection.status === 'reconnecting' ? `${connection.reason} Retrying in ${seconds} s.` : 'Reconnecting…'} What
        you see may be out of date.
      </p>
      {connection.status === 'reconnecting' && (
        <button type="button" className="btn btn-small" onClick={retry}>
          Retry now
        </button>
      )}
    </div>
  );
}

function SecretBanner() {
  const warning = useAppStore(selectSecretWarning);
  const navigate = useAppStore((s) => s.navigate);
  const { dismissed, dismiss } = useSecretWarningDismissal(warning);
  if (!warning || dismissed) return null;
  return (
    <div className="banner banner-warning" role="alert" aria-label="Secret storage warning">
      <Icon name="lock" size={18} />
      <p className="banner-text" title={`Secrets are not encrypted. ${warning}`}>
        <strong>Secrets are not encrypted.</strong> {warning}
      </p>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => navigate('settings')}>
        Details
      </button>
      <button
        type="button"
        className="btn btn-icon btn-ghost"
        onClick={dismiss}
        aria-label="Dismiss the secret storage warning"
        title="Hide this banner (Settings keeps the warning)"
      >
        <Icon name="close" size={14} />
      </button>
    </div>
  );
}

function AppWarnings() {
  const warnings = useAppStore((s) => s.info?.warnings);
  const dismissed = useAppStore((s) => s.dismissedWarnings);
  const dismiss = useAppStore((s) => s.dismissWarning);
  const visible = (warnings ?? []).filter((w) => !dismissed.includes(warningKey(w)));
  return (
    <>
      {visible.map((warning) => {
        const key = warningKey(warning);
        const words = warningWords(warning);
        const serious = warning.code !== 'notice';
        return (
          <div
            key={key}
            className={serious ? 'banner banner-warning' : 'banner banner-info'}
            role={serious ? 'alert' : 'status'}
            aria-label={
              warning.code === 'file_damaged'
                ? `Damaged file ${baseName(warning.file)}`
                : warning.code === 'disk_full'
                  ? 'Disk full'
                  : undefined
            }
          >
            <Icon name={serious ? 'warning' : 'info'} size={18} />
            <p className="banner-text">
              {words.title && <strong>{words.title}</strong>} {words.text}
              {words.detail && (
                <>
                  {' '}
                  <code className="banner-detail">{words.detail}</code>
                </>
              )}
            </p>
            <button
              type="button"
              className="btn btn-icon btn-ghost"
              onClick={() => dismiss(key)}
              aria-label="Dismiss warning"
            >
              <Icon name="close" size={14} />
            </button>
          </div>
        );
      })}
    </>
  );
}

export function Banners() {
  return (
    <div className="banners">
      <ConnectionBanner />
      <SecretBanner />
      <AppWarnings />
    </div>
  );
}
