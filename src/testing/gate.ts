// Requests in flight, and a way to run something while none is: a reset or a restore waits for
// the requests being served to finish and holds new ones until it is done, so that no request
// is half-served across two states. Only test mode installs it.
export class RequestGate {
  private inflight = 0;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  /** A request starts: at once, or when the exclusive work under way is done. */
  enter(): Promise<void> | null {
    if (!this.closed) {
      this.inflight += 1;
      return null;
    }
    return this.closed.then(() => this.enter() ?? undefined);
  }

  leave(): void {
    this.inflight -= 1;
    if (this.inflight === 0) this.drained?.();
  }

  /** Runs `fn` with no request in flight; one such run at a time. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      let open!: () => void;
      this.closed = new Promise<void>((resolve) => (open = resolve));
      try {
        if (this.inflight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
        return await fn();
      } finally {
        this.drained = null;
        this.closed = null;
        open();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
