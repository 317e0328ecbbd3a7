/**
 * Sleeps that a wake-up ends early: the poll loops of the queue workers and of the CI runner
 * sleep between polls, and new work wakes one (or all) of them at once.
 */
export class Sleepers {
  private readonly waiting = new Set<() => void>();
  private closed = false;

  sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  wakeOne(): void {
    const first = this.waiting.values().next();
    if (!first.done) first.value();
  }

  wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Wakes everyone, and every later sleep ends at once: a loop that was busy when its owner stopped does not sleep a whole poll before it sees the stop. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }
}
