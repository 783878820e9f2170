/** What the app says about itself: mode, version, where secrets are kept and how safe that is. */
import type { AppInfo } from '../../../../shared/contract.js';
import { selectSecretWarning } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { warningKey, warningWords } from '../../lib/appWarnings.js';
import { SecretBannerRestore } from './SecretBannerRestore.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { FoldersCard } from './FoldersCard.js';
import { KeepRunningCard } from './KeepRunningCard.js';
import { ModelsCard } from './ModelsCard.js';
import { NotificationsCard } from './NotificationsCard.js';
import { ObservabilityCard } from './ObservabilityCard.js';
import { ApprovalTimeoutCard, GatewaySettingsCard } from './GatewaySettingsCard.js';

const BACKEND_NAMES: Record<AppInfo['secretBackend']['kind'], string> = {
  safeStorage: 'Electron safeStorage (OS-encrypted)',
  keyring: 'OS keyring (Secret Service / Keychain / Credential Manager)',
  file: 'Local file (permissions 0600, not encrypted)',
};

/** The page's sections, in order, by the id of their heading (the navigation jumps to it). */
function sectionsOf(info: AppInfo): Array<{ id: string; label: string }> {
  return [
    { id: 'settings-app', label: 'Application' },
    { id: 'settings-models', label: 'Models' },
    { id: 'settings-gateway', label: 'Agent gateway' },
    { id: 'settings-approvals', label: 'Approvals' },
    { id: 'settings-folders', label: 'Folders' },
    { id: 'settings-observability', label: 'Observability' },
    info.mode === 'electron'
      ? { id: 'settings-desktop', label: 'Desktop' }
      : { id: 'settings-notifications', label: 'Notifications' },
    { id: 'settings-secrets', label: 'Secret storage' },
    ...(info.warnings.length > 0 ? [{ id: 'settings-warnings', label: 'Startup warnings' }] : []),
  ];
}

/** Jumps to a section: scrolls its card into view and moves focus to its heading. */
function goTo(id: string): void {
  const heading = document.getElementById(id);
  if (!heading) return;
  heading.setAttribute('tabindex', '-1');
  heading.closest('section')?.scrollIntoView({ block: 'start' });
  heading.focus({ preventScroll: true });
}

export function SettingsView() {
  const info = useAppStore((s) => s.info);
  const secretWarning = useAppStore(selectSecretWarning);
  if (!info) return null;
  const backend = info.secretBackend;
  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader title="Settings" subtitle="About this installation" />
      <nav className="settings-nav" aria-label="Settings sections">
        {sectionsOf(info).map((section) => (
          <button key={section.id} type="button" className="link-button" onClick={() => goTo(section.id)}>
            {section.label}
          </button>
        ))}
      </nav>
      <div className="view-body view-body-narrow">
        <section className="card" aria-labelledby="settings-app">
          <h2 id="settings-app" className="card-title">
            Application
          </h2>
          <dl className="props">
            <dt>Version</dt>
            <dd>
              <code>{info.version}</code>
            </dd>
            <dt>Mode</dt>
            <dd>
              {info.mode === 'browser' ? 'Browser (served by the local host on this machine)' : 'Desktop (Electron)'}
            </dd>
          </dl>
        </section>

        <ModelsCard />
        <GatewaySettingsCard />
        <ApprovalTimeoutCard />

        <FoldersCard />
        <ObservabilityCard />

        {info.mode === 'electron' ? <KeepRunningCard /> : <NotificationsCard />}

        <section className="card" aria-labelledby="settings-secrets">
          <h2 id="settings-secrets" className="card-title">
            Secret storage
          </h2>
          <dl className="props">
            <dt>Backend</dt>
            <dd>{BACKEND_NAMES[backend.kind]}</dd>
            <dt>Encrypted by the OS</dt>
            <dd>
              <span className={backend.secure ? 'chip chip-positive' : 'chip chip-warning'}>
                {backend.secure ? 'Yes' : 'No'}
              </span>
            </dd>
          </dl>
          {!backend.secure && (
            <Callout tone="warning" title="Secrets are stored without OS encryption">
              {backend.warning ?? 'Anyone who can read your user files can read stored tokens.'}
            </Callout>
          )}
          {secretWarning && <SecretBannerRestore warning={secretWarning} />}
          <p className="card-note">
            Tokens and secret values you enter are sent to the app once and never shown again; the app only tells you
            whether a value is set.
          </p>
        </section>

        {info.warnings.length > 0 && (
          <section className="card" aria-labelledby="settings-warnings">
            <h2 id="settings-warnings" className="card-title">
              Startup warnings
            </h2>
            <ul className="plain-list">
              {info.warnings.map((w) => {
                const words = warningWords(w);
                return (
                  <li key={warningKey(w)}>
                    {words.title && <strong>{words.title}</strong>} {words.text}{' '}
                    {words.detail && <code>{words.detail}</code>}
                  </li>
                );
              })}
            </ul>
          </section>
        )}
      </div>
    </section>
  );
}
