/**
 * The parts of the UI benchmark that run inside the page (passed to page.evaluate). The node
 * project has no DOM types, so the few browser APIs used here are declared locally. No named
 * inner functions (`const f = () => …`): tsx wraps those in a helper the page does not have.
 */
interface BenchElement {
  getAttribute(name: string): string | null;
}
interface BenchScroller {
  scrollTop: number;
  scrollHeight: number;
  scrollTo(options: { top: number }): void;
}
interface BenchTimes {
  clickAt?: number;
  /** The first `history.page` request of the measured step left the page. */
  sentAt?: number;
  rowAt?: number;
  paintAt?: number;
}
interface BenchSocket {
  send(data: unknown): void;
}
declare const window: { __bench?: BenchTimes };
declare const WebSocket: { prototype: BenchSocket };
declare const document: {
  querySelector(selector: string): BenchElement | null;
  querySelectorAll(selector: string): ArrayLike<BenchElement> & Iterable<BenchElement>;
  addEventListener(type: 'click', listener: () => void, options: { capture: boolean; once: boolean }): void;
  body: unknown;
};
declare const MutationObserver: new (callback: () => void) => {
  observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
  disconnect(): void;
};
declare function requestAnimationFrame(callback: () => void): number;

/** Arms timestamps: the next click, the first `[data-history-row]` in the DOM, the frame painted after it. */
export function armTimer(): void {
  const bench: BenchTimes = {};
  window.__bench = bench;
  document.addEventListener('click', () => (bench.clickAt = performance.now()), { capture: true, once: true });
  // The bridge's WebSocket: note when the page request leaves.
  const proto = WebSocket.prototype;
  const send = proto.send;
  proto.send = function (this: BenchSocket, data: unknown) {
    if (
      typeof data === 'string' &&
      bench.sentAt === undefined &&
      bench.clickAt !== undefined &&
      data.includes('"history.page"')
    ) {
      bench.sentAt = performance.now();
      proto.send = send;
    }
    send.call(this, data);
  };
  const observer = new MutationObserver(() => {
    if (bench.clickAt === undefined || bench.rowAt !== undefined || !document.querySelector('[data-history-row]'))
      return;
    bench.rowAt = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => (bench.paintAt = performance.now())));
  });
  observer.observe(document.body, { childList: true, subtree: true });
}

export function timerDone(): boolean {
  return window.__bench?.paintAt !== undefined;
}

/** Milliseconds from the click: page request sent, first row in the DOM, frame painted with it. */
export function readTimer(): { sent: number; dom: number; painted: number } {
  const t = window.__bench ?? {};
  const click = t.clickAt ?? NaN;
  return { sent: (t.sentAt ?? NaN) - click, dom: (t.rowAt ?? NaN) - click, painted: (t.paintAt ?? NaN) - click };
}

/** The highest aria-rowindex among the rendered rows (the header row is 1). */
export function lastRowIndex(): number {
  return Math.max(
    0,
    ...[...document.querySelectorAll('[data-history-row]')].map((r) => Number(r.getAttribute('aria-rowindex'))),
  );
}

export function rowsBeyond(previous: number): boolean {
  return lastRowIndex() > previous;
}

export function scrollToEnd(el: BenchScroller): void {
  el.scrollTo({ top: el.scrollHeight });
}

/**
 * Scrolls back to the top in big jumps, one per frame; the frame gaps and the most rows seen.
 * (A loop, not a named inner function: tsx would wrap one in a helper the page does not have.)
 */
export async function flingUp(el: BenchScroller): Promise<{ gaps: number[]; rows: number; loaded: number }> {
  const gaps: number[] = [];
  let rows = 0;
  const step = Math.max(400, el.scrollHeight / 240);
  const loaded = Math.round(el.scrollHeight / 36);
  let last = performance.now();
  while (el.scrollTop > 0) {
    el.scrollTop = Math.max(0, el.scrollTop - step);
    await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    rows = Math.max(rows, document.querySelectorAll('[data-history-row]').length);
  }
  return { gaps, rows, loaded };
}
