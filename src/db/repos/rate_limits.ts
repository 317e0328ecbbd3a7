// Rate-limit counters shared by every node (one row per key and fixed window).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

/**
 * Counts one hit of `key` in the window starting at `windowStart` and returns the window's count
 * including this hit. One statement (insert, or add 1 on conflict), so concurrent hits from
 * several nodes never lose a count on either dialect.
 */
export async function hitRateLimit(db: Kysely<DB>, key: string, windowStart: string): Promise<number> {
  const row = await db
    .insertInto('rate_limits')
    .values({ key, window_start: windowStart, count: 1 })
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ count: sql<number>`rate_limits.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Removes the windows that started before `before` (ISO time); they can no longer limit anything. */
export async function pruneRateLimits(db: Kysely<DB>, before: string): Promise<number> {
  const r = await db.deleteFrom('rate_limits').where('window_start', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
