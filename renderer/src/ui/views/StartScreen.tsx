/** Before main has answered: connecting, or why it cannot be reached and when we retry. */
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { useCountdown } from '../components/useCountdown.js';

export function StartScreen() {
  const connection = useAppStore((s) => s.connection);
  const infoError = useAppStore((s) => s.infoError);
  const retry = useAppStore((s) => s.retryConnection);
  const loadInfo = useAppStore((s) => s.loadInfo);
  const seconds = useCountdown(connection.status === 'reconnecting' ? connection.retryAt : undefined);

  if (connection.status === 'reconnecting' || infoError) {
    return (
      <main className="gate" aria-labelledby="gate-title">
        <div className="gate-card">
          <div className="gate-icon gate-icon-error">
            <Icon name="warning" size={28} />
          </div>
          <h1 id="gate-title" className="gate-title">
            Can’t reach MiniHarness
          </h1>
          <p className="gate-text">
            {infoError ?? `${connection.status === 'reconnecting' ? connection.reason : ''} Retrying in ${seconds} s.`}
          </p>
          <button type="button" className="btn btn-primary" onClick={infoError ? () => void loadInfo() : retry}>
            Retry now
          </button>
        </div>
      </main>
    );
  }
  return (
    <main className="gate" aria-busy="true" aria-labelledby="gate-title">
      <div className="gate-card">
        <Spinner label="Connecting" />
        <h1 id="gate-title" className="gate-title">
          Connecting to MiniHarness…
        </h1>
      </div>
    </main>
  );
}
