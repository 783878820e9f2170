/**
 * The host side of one app's frame: an AppBridge (`@modelcontextprotocol/ext-apps/app-bridge`)
 * over postMessage with the sandbox proxy's window — never the app's directly, and only messages
 * whose source is that window. It answers `ui/initialize` with this host's capabilities and
 * context, hands the proxy the app's HTML and CSP when the proxy is ready, and routes what the
 * app asks (tools/call, resources/read, ui/message, open-link, size changes, teardown) to the
 * callbacks the frame gives; anything else the app asks is answered "method not found" by the bridge.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostCapabilities, McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { AppResourceView, ToolView } from '../../../../../shared/contract.js';
import { PRODUCT_NAME } from '../../../../../shared/product.js';

/** What MCP's CallToolResult / ReadResourceResult look like to the app. */
export interface AppToolResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface AppHostCallbacks {
  callTool(name: string, args: Record<string, unknown>): Promise<AppToolResult>;
  readResource(uri: string): Promise<{ contents: unknown[] }>;
  /** The app's `ui/message` (role "user"): there is no chat here, so the frame shows it to the person. */
  message(content: unknown[]): void;
  /** Resolves true when the link was opened (after the person confirmed). */
  openLink(url: string): Promise<boolean>;
  sizeChanged(size: { width?: number; height?: number }): void;
  /** The app asks to be closed. */
  requestTeardown(): void;
  initialized(): void;
}

const HOST_CAPABILITIES: McpUiHostCapabilities = {
  openLinks: {},
  serverTools: {},
  serverResources: {},
  logging: {},
  // ui/message: shown to the person beside the app (text; other blocks are named, not shown).
  message: { text: {} },
};

function hostContextFor(tool: ToolView, width: number): McpUiHostContext {
  const dark = typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;
  return {
    toolInfo: {
      tool: {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema as { type: 'object' },
      },
    },
    theme: dark ? 'dark' : 'light',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width: Math.max(1, Math.round(width)), maxHeight: MAX_APP_HEIGHT },
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: PRODUCT_NAME,
    platform: 'desktop',
    deviceCapabilities: { hover: true, touch: false },
  };
}

export const MIN_APP_HEIGHT = 60;
export const MAX_APP_HEIGHT = 1200;

export function clampHeight(height: number | undefined): number | undefined {
  if (typeof height !== 'number' || !Number.isFinite(height)) return undefined;
  return Math.min(MAX_APP_HEIGHT, Math.max(MIN_APP_HEIGHT, Math.ceil(height)));
}

/** Connects a bridge to the proxy frame; the frame's `src` must be set only after this resolves. */
export async function connectAppBridge(
  frame: HTMLIFrameElement,
  tool: ToolView,
  view: AppResourceView,
  callbacks: AppHostCallbacks,
): Promise<AppBridge> {
  const proxy = frame.contentWindow;
  if (!proxy) throw new Error('The app frame is not in the page.');
  const bridge = new AppBridge(null, { name: PRODUCT_NAME, version: '1' }, HOST_CAPABILITIES, {
    hostContext: hostContextFor(tool, frame.clientWidth),
  });
  bridge.onsandboxready = () => {
    // The inner frame's sandbox is the proxy's own; the host grants no browser permissions.
    void bridge.sendSandboxResourceReady({ html: view.html, csp: view.csp });
  };
  bridge.oninitialized = () => callbacks.initialized();
  bridge.oncalltool = async (params) => (await callbacks.callTool(params.name, params.arguments ?? {})) as never;
  bridge.onreadresource = async (params) => (await callbacks.readResource(params.uri)) as never;
  bridge.onmessage = (params) => {
    callbacks.message(Array.isArray(params.content) ? params.content : []);
    return Promise.resolve({});
  };
  bridge.onopenlink = async (params) => ((await callbacks.openLink(params.url)) ? {} : { isError: true });
  bridge.onrequestdisplaymode = () => Promise.resolve({ mode: 'inline' as const });
  bridge.onsizechange = (size) => callbacks.sizeChanged(size);
  bridge.onrequestteardown = () => callbacks.requestTeardown();
  bridge.onloggingmessage = () => undefined;
  await bridge.connect(new PostMessageTransport(proxy, proxy));
  return bridge;
}
