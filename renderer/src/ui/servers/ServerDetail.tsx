/** One server: its header, status explanation, actions, and tabs for overview, tools, resources, prompts and log. */
import { useEffect } from 'react';
import type { ServerView } from '../../../../shared/contract.js';
import { endpointOf, serverIdOf, serverNameOf, transportLabel } from '../../lib/serverView.js';
import { statusExplanation } from '../../lib/status.js';
import { selectDetail } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { NotSandboxedChip, RunUnsandboxedAction } from './ServerSandbox.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { Tabs } from '../components/Tabs.js';
import { errorTitle } from '../../lib/describeError.js';
import { useCountdown } from '../components/useCountdown.js';
import { ServerPrompts } from './features/ServerPrompts.js';
import { ServerResources } from './features/ServerResources.js';
import { ServerActions } from './ServerActions.js';
import { ServerLog } from './ServerLog.js';
import { ServerOverview } from './ServerOverview.js';
import { ServerTools } from './ServerTools.js';

function ReconnectingCallout({
  status,
  onOpenLog,
}: {
  status: Extract<ServerView['status'], { state: 'reconnecting' }>;
  onOpenLog: () => void;
}) {
  const seconds = useCountdown(status.nextRetryAt);
  return (
    <Callout
      tone="warning"
      role="status"
      title={`Connection lost — reconnecting (attempt ${status.attempt})`}
      actions={
        <button type="button" className="btn btn-small btn-ghost" onClick={onOpenLog}>
          Open log
        </button>
      }
    >
      <span data-testid="reconnect-next">{seconds > 0 ? `Next attempt in ${seconds} s.` : 'Trying now…'}</span>{' '}
      {status.reason}
    </Callout>
  );
}

function StatusCallout({ view }: { view: ServerView }) {
  const id = serverIdOf(view);
  const openEditor = useAppStore((s) => s.openEditor);
  const setTab = useAppStore((s) => s.setServerTab);
  const status = view.status;
  if (status.state === 'reconnecting') return <ReconnectingCallout status={status} onOpenLog={() => setTab('log')} />;
  if (status.state !== 'error') return null;
  // A 401 with an OAuth challenge asks for a sign-in, not a token.
  const canReplaceToken =
    status.code === 'auth' && status.cause?.kind !== 'sign_in' && view.config.transport !== 'stdio';
  return (
    <Callout
      tone="error"
      title={errorTitle(status.code, status.cause)}
      actions={
        <>
          <RunUnsandboxedAction view={view} />
          {canReplaceToken && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => openEditor({ mode: 'edit', serverId: id, focusSlot: 'auth.token' })}
            >
              <Icon name="lock" size={14} />
              Replace token
            </button>
          )}
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setTab('log')}>
            Open log
          </button>
        </>
      }
    >
      {statusExplanation(status)}
    </Callout>
  );
}

export function ServerDetail({ view }: { view: ServerView }) {
  const id = serverIdOf(view);
  const tab = useAppStore((s) => s.serverTab);
  const setTab = useAppStore((s) => s.setServerTab);
  const select = useAppStore((s) => s.selectServer);
  const loadDetail = useAppStore((s) => s.loadDetail);
  const detail = useAppStore(selectDetail(id));

  useEffect(() => {
    void loadDetail(id);
  }, [id, loadDetail]);

  const toolCount = detail?.data?.tools.length ?? view.toolCount;
  const resourceList = useAppStore((s) => s.resourceLists[id]?.data);
  const promptCount = useAppStore((s) => s.promptLists[id]?.data?.prompts.length);
  const resourceCount = resourceList ? resourceList.resources.length + resourceList.templates.length : undefined;

  return (
    <section className="detail" aria-label={`Server ${serverNameOf(view)}`}>
      <button type="button" className="btn btn-ghost btn-small back-button" onClick={() => select(undefined)}>
        <Icon name="back" size={14} />
        All servers
      </button>
      <header className="detail-header">
        <div className="detail-title-row">
          <h2 className="detail-title">{serverNameOf(view)}</h2>
          <StatusBadge status={view.status} />
          <NotSandboxedChip view={view} />
        </div>
        <p className="detail-meta">
          <code>{id}</code>
          <span aria-hidden="true">·</span>
          <span>{transportLabel(view.config.transport)}</span>
          <span aria-hidden="true">·</span>
          <code className="detail-endpoint" title={endpointOf(view)}>
            {endpointOf(view)}
          </code>
        </p>
        <ServerActions view={view} />
      </header>
      <StatusCallout view={view} />
      <Tabs
        label="Server sections"
        active={tab}
        onChange={setTab}
        tabs={[
          { key: 'overview', label: 'Overview' },
          {
            key: 'tools',
            label: (
              <>
                Tools <span className="tab-count">{toolCount}</span>
              </>
            ),
          },
          {
            key: 'resources',
            label: <>Resources {resourceCount !== undefined && <span className="tab-count">{resourceCount}</span>}</>,
          },
          {
            key: 'prompts',
            label: <>Prompts {promptCount !== undefined && <span className="tab-count">{promptCount}</span>}</>,
          },
          { key: 'log', label: 'Log' },
        ]}
      >
        {tab === 'overview' && <ServerOverview view={view} detail={detail} />}
        {tab === 'tools' && <ServerTools view={view} detail={detail} />}
        {tab === 'resources' && <ServerResources view={view} detail={detail} serverId={id} />}
        {tab === 'prompts' && <ServerPrompts view={view} detail={detail} serverId={id} />}
        {tab === 'log' && (
          <ServerLog
            serverId={id}
            logLevel={detail?.data?.logLevel}
            loggingAvailable={
              view.status.state === 'ready' && detail?.data?.negotiated?.capabilities.logging !== undefined
            }
          />
        )}
      </Tabs>
    </section>
  );
}
