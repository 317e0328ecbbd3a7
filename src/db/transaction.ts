// One transaction around several repository calls (a change and the hook deliveries it causes).
// Repository functions that need a transaction of their own use this too, so they join an outer
// one instead of opening a nested transaction (which Kysely cannot do).
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export function inTransaction<T>(db: Kysely<DB>, fn: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
