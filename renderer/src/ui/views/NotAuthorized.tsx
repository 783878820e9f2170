/** Shown instead of the app when the host refuses the session: no data, only what to do. */
import { Icon } from '../components/Icon.js';

export function NotAuthorized({ reason }: { reason: 'missing_token' | 'rejected' }) {
  return (
    <main className="gate" aria-labelledby="gate-title">
      <div className="gate-card">
        <div className="gate-icon gate-icon-error">
          <Icon name="lock" size={28} />
        </div>
        <h1 id="gate-title" className="gate-title">
          Not authorized
        </h1>
        <p className="gate-text">
          {reason === 'missing_token'
            ? 'This page was opened without its access link.'
            : 'The MiniHarness host did not accept this session — it may have restarted with a new token.'}{' '}
          Open the link MiniHarness printed in the terminal where you started it (<code>npm start</code> or{' '}
          <code>npm run web</code>): the line <code>MiniHarness: http://127.0.0.1:…/#token=…</code>. The part after{' '}
          <code>#token=</code> is this page’s key.
        </p>
      </div>
    </main>
  );
}
