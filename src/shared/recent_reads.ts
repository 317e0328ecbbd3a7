/**
 * Reads kept for half a second, by key, so a busy client costs no query per request: the
 * authentications (a token with its user, by digest) and the projects GET /projects/:id answers
 * with (a project with its context for the caller).
 *
 * Why it stays correct with several nodes on one database: an entry lives at most TTL_MS
 * (500 ms), counted from the moment its read began. A token revoked, a user blocked, deactivated
 * or deleted, a membership removed on any node is therefore refused on every node within half a
 * second; nodes send each other nothing.
 *
 * On this node a change counts at once for every request that comes after it: every write that
 * this process runs on the tables an entry is read from calls forgetAll() (the write watcher,
 * wired in src/container.ts), and a read that began before it is not kept. (A read racing a
 * transaction that has not committed yet may still keep the old row: for TTL_MS at most, as on
 * any other node.) The reads are per container: a test's app, or each server process, has its own.
 */
export const TTL_MS = 500;

/** Enough for every client of a busy node; past it, the oldest entry goes. */
const MAX_ENTRIES = 10_000;

export class RecentReads<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  /** Bumped by forgetAll(): a read begun under an older generation may have read the old row. */
  private generation = 0;

  constructor(
    private readonly ttlMs = TTL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The value for `key`: kept if younger than the TTL, else `load`ed (and kept unless undefined). */
  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const began = this.now();
    const kept = this.entries.get(key);
    if (kept && kept.until > began) return kept.value;
    if (kept) this.entries.delete(key);

    const generation = this.generation;
    const value = await load();
    if (value !== undefined && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, until: began + this.ttlMs });
    }
    return value;
  }

  forgetAll(): void {
    this.entries.clear();
    this.generation += 1;
  }
}
