/**
 * A tool's app (MCP Apps), rendered beside its result: in the Tools view's call panel, in a
 * History record and on replay. The app's HTML comes from main (`apps.load`); it runs two frames
 * deep — the sandbox proxy on another origin (sandbox="allow-scripts": opaque origin, no top
 * navigation, no popups), the app inside it under the CSP its resource declared — and talks to
 * this page only through the AppBridge (appBridgeHost.ts).
 *
 * The frame shows what it is given: the call's arguments, then its result or its cancellation.
 * A stored result (History, replay) drives the app the same way and runs nothing: such an app's
 * own tool calls are refused with a sentence to the app, and the person sees that they were. What
 * a live app calls goes to main as "<server>'s app" (apps.callTool / apps.readResource) and meets
 * permissions and approval like any call. Its `ui/message` has no chat to go to: it is shown here,
 * to the person. Close asks the app to tear down first.
 */
import { useEffect, useRef, useState } from 'react';
import type { RefObject } from 'react';
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppResourceView, CallOutcome, ToolResultView } from '../../../../../shared/contract.js';
import { describeFailure } from '../../../lib/describeError.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { Callout } from '../Callout.js';
import { Icon } from '../Icon.js';
import { Spinner } from '../Spinner.js';
import { useServerLabel } from '../serverLabel.js';
import type { AppHostCallbacks, AppToolResult } from './appBridgeHost.js';
import type { AppStore } from '../../../state/types.js';
import { clampHeight, connectAppBridge } from './appBridgeHost.js';
import { OpenLinkDialog, isOpenableLink, openLinkInBrowser } from './OpenLinkDialog.js';
import { appSandboxOrigin, proxyUrlOf } from './sandboxLocation.js';
import type { ToolWithApp } from './toolApp.js';
import type { AppPageCall } from '../../../state/slices/appsSlice.js';
import { MAX_APP_MESSAGES, STORED_APP_CALL_REFUSAL, messageText } from './appMessages.js';

const DEFAULT_APP_HEIGHT = 320;
const TEARDOWN_WAIT_MS = 3_000;

export interface AppFrameProps {
  tool: ToolWithApp;
  /** The call's arguments (absent: not known yet). */
  input: Record<string, unknown> | undefined;
  /** The call's result, live or stored. */
  result: ToolResultView | undefined;
  /** The call ended without a result (cancelled, failed): why. */
  cancelledReason?: string;
  /** Tells apart frames on one page (the call panel's, a record's, a replay's). */
  testId?: string;
  /** The app shows a stored result (History, Replay): nothing runs from it, its tool calls are refused. */
  stored?: boolean;
  /** The call whose result it shows: its decision answers for reading the app's page (no question of its own). */
  forCall?: AppPageCall;
}

function toAppResult(result: ToolResultView): AppToolResult {
  return {
    content: result.content,
    ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    isError: result.isError,
  };
}

function refusal(error: unknown, title: string): AppToolResult {
  const described = describeFailure(error, title);
  return { content: [{ type: 'text', text: `${described.title}: ${described.text}` }], isError: true };
}

type Loaded = { key: string; view: AppResourceView } | { key: string; title: string; text: string };

export function AppFrame(props: AppFrameProps) {
  const { tool } = props;
  const serverId = tool.serverId;
  const resourceUri = tool.app.resourceUri;
  const loadApp = useAppStore((s) => s.loadApp);
  const origin = appSandboxOrigin();
  // What was loaded, for which app: a different app is "loading" until its own answer lands.
  const loadKey = `${serverId}\n${resourceUri}`;
  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [closed, setClosed] = useState(false);
  // The call the page is first loaded for; later calls of the same panel reuse the loaded page.
  const forCall = useRef(props.forCall);

  useEffect(() => {
    if (!origin) return;
    let live = true;
    loadApp(serverId, resourceUri, forCall.current).then(
      (view) => live && setLoaded({ key: loadKey, view }),
      (error: unknown) => {
        const described = describeFailure(error, 'Could not load the app');
        if (live) setLoaded({ key: loadKey, title: described.title, text: described.text });
      },
    );
    return () => {
      live = false;
    };
  }, [origin, serverId, resourceUri, loadKey, loadApp]);

  const load = loaded?.key === loadKey ? loaded : undefined;
  if (closed) return null;
  if (!origin) {
    return (
      <Callout tone="info" title="This tool has an app">
        Apps are shown only in the MiniHarness window or the page its host serves.
      </Callout>
    );
  }
  if (!load) {
    return (
      <p className="app-frame-loading muted">
        <Spinner label="Loading the app" /> Loading the tool’s app…
      </p>
    );
  }
  if (!('view' in load)) {
    return (
      <Callout tone="error" title={load.title}>
        {load.text}
      </Callout>
    );
  }
  return <LoadedApp {...props} origin={origin} view={load.view} onClosed={() => setClosed(true)} />;
}

/** Sends the app what changed of the call's data since `last` (input before result), and notes it there. */
function sendCallData(
  bridge: AppBridge,
  last: { input?: unknown; result?: unknown; cancelled?: string },
  { input, result, cancelledReason }: Pick<AppFrameProps, 'input' | 'result' | 'cancelledReason'>,
): void {
  if (input !== undefined && input !== last.input) {
    last.input = input;
    last.result = undefined;
    last.cancelled = undefined;
    void bridge.sendToolInput({ arguments: input });
  }
  if (result !== undefined && result !== last.result) {
    last.result = result;
    void bridge.sendToolResult(toAppResult(result) as never);
  }
  if (cancelledReason !== undefined && cancelledReason !== last.cancelled) {
    last.cancelled = cancelledReason;
    void bridge.sendToolCancelled({ reason: cancelledReason });
  }
}

/** The app's own tool calls and reads, as "<server>'s app"; a stored result's app runs nothing. */
function appCalls(
  tool: ToolWithApp,
  stored: boolean | undefined,
  instanceId: string,
  store: Pick<AppStore, 'callAppTool' | 'readAppResource'>,
  onRefused: (name: string) => void,
): Pick<AppHostCallbacks, 'callTool' | 'readResource'> {
  return {
    callTool: async (name, args) => {
      if (stored) {
        onRefused(name);
        return { content: [{ type: 'text', text: STORED_APP_CALL_REFUSAL }], isError: true };
      }
      try {
        const outcome: CallOutcome = await store.callAppTool(tool.serverId, tool.name, name, args, instanceId);
        return toAppResult(outcome.result);
      } catch (error) {
        return refusal(error, 'The call failed');
      }
    },
    readResource: async (uri) => {
      try {
        const read = await store.readAppResource(tool.serverId, tool.name, uri);
        return { contents: read.contents };
      } catch (error) {
        throw new Error(describeFailure(error, 'Could not read the resource').title);
      }
    },
  };
}

/**
 * The app's bridge: connected once per loaded app, then the proxy loads; what the app asks of this
 * page (calls, reads, messages, links, size, teardown) lands in the state returned.
 */
function useAppBridge({
  frameRef,
  tool,
  view,
  origin,
  stored,
  input,
  result,
  cancelledReason,
}: Pick<AppFrameProps, 'input' | 'result' | 'cancelledReason'> & {
  frameRef: RefObject<HTMLIFrameElement | null>;
  tool: ToolWithApp;
  view: AppResourceView;
  origin: string;
  stored: boolean | undefined;
}) {
  const callAppTool = useAppStore((s) => s.callAppTool);
  const readAppResource = useAppStore((s) => s.readAppResource);
  // This frame's own id: main rate-limits each rendered app's calls on its own (apps/appCallRate.ts).
  const [instanceId] = useState(() => crypto.randomUUID());
  const bridgeRef = useRef<AppBridge | undefined>(undefined);
  const [initialized, setInitialized] = useState(false);
  const [height, setHeight] = useState(DEFAULT_APP_HEIGHT);
  const [link, setLink] = useState<{ url: string; answer: (opened: boolean) => void } | undefined>();
  const [closing, setClosing] = useState(false);
  const [connectError, setConnectError] = useState<string | undefined>();
  const [messages, setMessages] = useState<Array<{ id: number; text: string }>>([]);
  const [refusedCall, setRefusedCall] = useState<string | undefined>();
  const messageIds = useRef(0);
  // What the app was last sent, so each change is sent once and in order (input before result).
  const sent = useRef<{ input?: unknown; result?: unknown; cancelled?: string }>({});

  useEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    let live = true;
    let bridge: AppBridge | undefined;
    connectAppBridge(frame, tool, view, {
      ...appCalls(tool, stored, instanceId, { callAppTool, readAppResource }, (name) => live && setRefusedCall(name)),
      message: (content) => {
        if (!live) return;
        const text = messageText(content);
        messageIds.current += 1;
        const id = messageIds.current;
        setMessages((shown) => [...shown, { id, text }].slice(-MAX_APP_MESSAGES));
      },
      openLink: (url) =>
        isOpenableLink(url)
          ? new Promise<boolean>((answer) => live && setLink({ url, answer }))
          : Promise.resolve(false),
      sizeChanged: ({ height: next }) => {
        const clamped = clampHeight(next);
        if (clamped !== undefined && live) setHeight(clamped);
      },
      requestTeardown: () => live && setClosing(true),
      initialized: () => live && setInitialized(true),
    }).then(
      (connected) => {
        bridge = connected;
        if (!live) {
          void connected.close();
          return;
        }
        bridgeRef.current = connected;
        // Only now the proxy may load: its "ready" must find the bridge listening.
        frame.src = proxyUrlOf(origin, view.csp);
      },
      (error: unknown) => live && setConnectError(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
      bridgeRef.current = undefined;
      sent.current = {};
      // Leaving the view: the app is told (best effort: its frame goes with this component).
      if (bridge)
        void bridge
          .teardownResource({}, { timeout: TEARDOWN_WAIT_MS })
          .catch(() => undefined)
          .finally(() => void bridge?.close());
    };
    // One bridge per loaded app; the call's data flows through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [view, origin]);

  useEffect(() => {
    const bridge = bridgeRef.current;
    if (!initialized || !bridge) return;
    sendCallData(bridge, sent.current, { input, result, cancelledReason });
  }, [initialized, input, result, cancelledReason]);

  return {
    bridgeRef,
    initialized,
    height,
    link,
    setLink,
    closing,
    setClosing,
    connectError,
    messages,
    refusedCall,
  };
}

/** What the app sent for a conversation: there is none here, so it is shown to the person. */
function AppMessages({ appName, messages }: { appName: string; messages: Array<{ id: number; text: string }> }) {
  if (messages.length === 0) return null;
  return (
    <section className="app-frame-messages" role="log" aria-label={`Messages from ${appName}`}>
      <p className="muted">
        {appName} sent a message for the conversation. There is no conversation here, so no model reads it: it is shown
        to you.
      </p>
      {messages.map((message) => (
        <blockquote key={message.id} className="app-frame-message">
          {message.text || '(empty message)'}
        </blockquote>
      ))}
    </section>
  );
}

function LoadedApp({
  tool,
  input,
  result,
  cancelledReason,
  testId,
  stored,
  origin,
  view,
  onClosed,
}: AppFrameProps & { origin: string; view: AppResourceView; onClosed: () => void }) {
  const serverLabel = useServerLabel(tool.serverId);
  const appName = `${serverLabel}’s app`;
  const frameRef = useRef<HTMLIFrameElement>(null);
  const { bridgeRef, initialized, height, link, setLink, closing, setClosing, connectError, messages, refusedCall } =
    useAppBridge({ frameRef, tool, view, origin, stored, input, result, cancelledReason });

  useEffect(() => {
    if (!closing) return;
    const bridge = bridgeRef.current;
    // Closing: the app may save or confirm first; it gets a few seconds.
    void (
      bridge ? bridge.teardownResource({}, { timeout: TEARDOWN_WAIT_MS }).catch(() => undefined) : Promise.resolve()
    ).then(() => onClosed());
  }, [bridgeRef, closing, onClosed]);

  const bordered = view.prefersBorder !== false;
  return (
    <section
      className={`app-frame${bordered ? ' app-frame-bordered' : ''}`}
      aria-label={appName}
      data-testid={testId ?? 'app-frame'}
      data-app-ready={initialized ? 'true' : 'false'}
    >
      <header className="app-frame-head">
        <Icon name="tools" size={14} />
        <span className="app-frame-title">{appName}</span>
        <code className="app-frame-uri muted">{view.resourceUri}</code>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setClosing(true)} disabled={closing}>
          Close app
        </button>
      </header>
      {stored && (
        <p className="app-frame-note muted">
          A stored result: the app shows it, and nothing the app asks to run runs from here.
        </p>
      )}
      {refusedCall && (
        <Callout tone="info" title={`${appName} asked to call ${refusedCall}`}>
          Nothing ran: this app shows a stored result. Run the tool from the Tools view to use its app.
        </Callout>
      )}
      <AppMessages appName={appName} messages={messages} />
      {connectError && (
        <Callout tone="error" title="The app could not start">
          {connectError}
        </Callout>
      )}
      <iframe
        ref={frameRef}
        className="app-frame-outer"
        title={`${appName}: ${tool.name}`}
        // The proxy's own origin, made opaque: it and the app can reach neither this page nor its storage.
        sandbox="allow-scripts"
        referrerPolicy="no-referrer"
        style={{ height }}
      />
      {link && (
        <OpenLinkDialog
          url={link.url}
          appName={appName}
          onOpen={() => {
            openLinkInBrowser(link.url);
            link.answer(true);
            setLink(undefined);
          }}
          onCancel={() => {
            link.answer(false);
            setLink(undefined);
          }}
        />
      )}
    </section>
  );
}
