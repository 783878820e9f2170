/**
 * Coalescing: many requests within one turn of the event loop become one run of `fn` at the
 * end of it (`setImmediate`). Status changes, tool lists and traces arrive in bursts (discovery,
 * a batch of commits); the GUI and the agents need the state after the burst, once.
 */
export function coalesce(fn: () => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      fn();
    });
  };
}
