// Ref change intents (src/domain/repository/ref_changes.ts): written before refs move, published
// once. Every state change is conditional, so two publishers (the process that moved the refs and
// the recovery job, on any node) never both win.
import type { Kysely, Selectable } from 'kysely';
import type { DB, RefChangeIntentsTable } from '../schema.js';

export type RefChangeIntentRow = Selectable<RefChangeIntentsTable>;

export async function insertRefChangeIntent(db: Kysely<DB>, row: { project_id: number; user_id: number; changes: string; now: string }): Promise<number> {
  const r = await db
    .insertInto('ref_change_intents')
    .values({ project_id: row.project_id, user_id: row.user_id, changes: row.changes, state: 'pending', created_at: row.now, updated_at: row.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export const findRefChangeIntent = (db: Kysely<DB>, id: number): Promise<RefChangeIntentRow | undefined> =>
  db.selectFrom('ref_change_intents').selectAll().where('id', '=', id).executeTakeFirst();

export async function setRefChangeIntentJob(db: Kysely<DB>, id: number, jobId: number): Promise<void> {
  await db.updateTable('ref_change_intents').set({ job_id: jobId }).where('id', '=', id).execute();
}

/**
 * First write of the publishing transaction: the intent's recovery job when this caller publishes
 * it (it was not published yet), else null; `changes` becomes what really happened. On PostgreSQL the row stays locked
 * until the commit, so a second publisher waits and then finds it published.
 */
export async function claimRefChangeIntent(db: Kysely<DB>, id: number, changes: string, now: string): Promise<{ jobId: number | null } | null> {
  const r = await db
    .updateTable('ref_change_intents')
    .set({ state: 'published', changes, updated_at: now })
    .where('id', '=', id)
    .where('state', '<>', 'published')
    .returning('job_id')
    .executeTakeFirst();
  return r ? { jobId: r.job_id } : null;
}

/** No ref moved: the intent is void, unless someone published it meanwhile. */
export async function discardRefChangeIntent(db: Kysely<DB>, id: number, now: string): Promise<boolean> {
  const r = await db.updateTable('ref_change_intents').set({ state: 'discarded', updated_at: now }).where('id', '=', id).where('state', '=', 'pending').executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** The project's intents after `afterId` that did or may have happened (pending or published), oldest first. */
export const laterRefChangeIntents = (db: Kysely<DB>, projectId: number, afterId: number, limit: number): Promise<Pick<RefChangeIntentRow, 'id' | 'changes'>[]> =>
  db
    .selectFrom('ref_change_intents')
    .select(['id', 'changes'])
    .where('project_id', '=', projectId)
    .where('id', '>', afterId)
    .where('state', '<>', 'discarded')
    .orderBy('id')
    .limit(limit)
    .execute();

/** Deletes up to `limit` finished intents last changed before `before`; returns how many. */
export async function pruneRefChangeIntents(db: Kysely<DB>, before: string, limit: number): Promise<number> {
  const ids = db.selectFrom('ref_change_intents').select('id').where('state', '<>', 'pending').where('updated_at', '<', before).limit(limit);
  const r = await db.deleteFrom('ref_change_intents').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}
