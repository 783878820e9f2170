// The renderer (React) arrives with the app-shell issue; this placeholder keeps the web
// TypeScript project in the build so the layout and the typecheck are in place from the start.
export const RENDERER_PLACEHOLDER = 'MiniHarness Desktop';
