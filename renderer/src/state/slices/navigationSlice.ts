/** Where the person is: the sidebar view, the selected server and its tab, the open editor, the open trace. */
import type { SliceCreator } from '../types.js';

export type ViewName =
  | 'servers'
  | 'catalog'
  | 'tools'
  | 'approvals'
  | 'permissions'
  | 'traces'
  | 'history'
  | 'agents'
  | 'runs'
  | 'settings'
  | 'people';

type ServerTab = 'overview' | 'tools' | 'resources' | 'prompts' | 'log';

/** The server editor: adding a new one, or editing (optionally focused on replacing a secret). */
type EditorState = { mode: 'create' } | { mode: 'edit'; serverId: string; focusSlot?: string };

export interface NavigationSlice {
  view: ViewName;
  selectedServerId: string | undefined;
  serverTab: ServerTab;
  editor: EditorState | undefined;
  /** The trace the Traces view shows (set by `openTrace`, from anywhere). */
  selectedTraceId: string | undefined;
  navigate(view: ViewName): void;
  /** Opens the Traces view on one trace (its timeline). */
  openTrace(traceId: string): void;
  /** Selects a trace inside the Traces view (undefined closes the timeline). */
  selectTrace(traceId: string | undefined): void;
  selectServer(id: string | undefined): void;
  setServerTab(tab: ServerTab): void;
  openEditor(editor: EditorState): void;
  closeEditor(): void;
}

export const createNavigationSlice: SliceCreator<NavigationSlice> = (set) => ({
  view: 'servers',
  selectedServerId: undefined,
  serverTab: 'overview',
  editor: undefined,
  selectedTraceId: undefined,
  navigate: (view) => set({ view }, false, 'nav/view'),
  openTrace: (selectedTraceId) => set({ selectedTraceId, view: 'traces' }, false, 'nav/openTrace'),
  selectTrace: (selectedTraceId) => set({ selectedTraceId }, false, 'nav/selectTrace'),
  selectServer: (selectedServerId) => set({ selectedServerId, view: 'servers' }, false, 'nav/selectServer'),
  setServerTab: (serverTab) => set({ serverTab }, false, 'nav/serverTab'),
  openEditor: (editor) => set({ editor }, false, 'nav/openEditor'),
  closeEditor: () => set({ editor: undefined }, false, 'nav/closeEditor'),
});
