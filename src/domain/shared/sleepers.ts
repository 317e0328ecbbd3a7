/**
 * Sleeps that a wake-up ends early: the poll loops of the queue workers and of the CI runner
 * sleep between polls, and new work wakes one (or all) of them at once.
 */
export class Sleepers {
  private readonly waiting = new Set<() => void>();

  sleep(ms: number): Promise<void> {
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
}
