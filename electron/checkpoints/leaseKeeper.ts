/**
 * The owner's heartbeat: renews every lease a checkpoint store holds, on a timer, while its
 * process lives — so a lease expires with its owner (a process killed mid-call stops renewing).
 * One renewal round per interval for all held leases; a lease the store refuses to renew
 * (expired, completed, resolved) is dropped. The timer is unref'd: it never keeps a process up.
 */
export interface HeldLease {
  sessionId: string;
  callId: string;
  lease: string;
}

export class LeaseKeeper {
  readonly #held = new Map<string, HeldLease>();
  readonly #renew: (leases: HeldLease[]) => Promise<ReadonlySet<string>>;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  /** `renew` renews the given leases and resolves with those it renewed. */
  constructor(renew: (leases: HeldLease[]) => Promise<ReadonlySet<string>>, intervalMs: number) {
    this.#renew = renew;
    this.#intervalMs = intervalMs;
  }

  hold(held: HeldLease): void {
    this.#held.set(held.lease, held);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.#round(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  release(lease: string): void {
    this.#held.delete(lease);
    if (this.#held.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #round(): Promise<void> {
    if (this.#running || this.#held.size === 0) return; // a slow round is not stacked on
    this.#running = true;
    try {
      const leases = [...this.#held.values()];
      const renewed = await this.#renew(leases);
      for (const { lease } of leases) if (!renewed.has(lease)) this.release(lease);
    } catch {
      // The database did not answer: the leases run on until they expire; the next round retries.
    } finally {
      this.#running = false;
    }
  }
}
