/** What an app is told, and what the person reads, when it asks what this host does not run: a stored app's calls, its ui/message. */

/** What a stored app's tool call gets instead of running (README: History and Replay run nothing). */
export const STORED_APP_CALL_REFUSAL =
  'Nothing runs from this app here: MiniHarness shows it with a stored result (History or Replay). Run the tool from the Tools view to use the app.';

/** How many of an app's ui/messages the frame keeps on screen (the latest). */
export const MAX_APP_MESSAGES = 5;
const MAX_MESSAGE_CHARS = 4_000;

/** An app's ui/message content as the person reads it: its text; other blocks named, not shown. */
export function messageText(content: unknown[]): string {
  const parts = content.slice(0, 50).map((block) => {
    const item = block as { type?: unknown; text?: unknown };
    if (item && item.type === 'text' && typeof item.text === 'string') return item.text;
    return `[${typeof item?.type === 'string' ? item.type.slice(0, 40) : 'unknown'} content, not shown]`;
  });
  const text = parts.join('\n').trim();
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}
