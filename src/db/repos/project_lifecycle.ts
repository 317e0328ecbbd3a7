// Archive, delayed deletion and real removal of a project.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../schema.js';
import { deleteBotRows } from './groups.js';
import type { ProjectRow } from './projects.js';

export const setArchived = (db: Kysely<DB>, id: number, archived: boolean, at: string): Promise<ProjectRow> =>
  db.updateTable('projects').set({ archived: archived ? 1 : 0, updated_at: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Delayed deletion: the project is archived and marked with the day of the request; `beforeCommit` queues the removal. */
export const markForDeletion = (
  db: Kysely<DB>,
  id: number,
  mark: { on: string; userId: number; at: string },
  beforeCommit: (tx: Transaction<DB>) => Promise<void>,
): Promise<ProjectRow> =>
  db.transaction().execute(async (tx) => {
    const p = await tx
      .updateTable('projects')
      .set({ archived: 1, marked_for_deletion_on: mark.on, deleting_user_id: mark.userId, updated_at: mark.at })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await beforeCommit(tx);
    return p;
  });

/** Restore: the mark goes, and the archive that came with it. */
export const clearDeletionMark = (db: Kysely<DB>, id: number, at: string): Promise<ProjectRow> =>
  db
    .updateTable('projects')
    .set({ archived: 0, marked_for_deletion_on: null, deleting_user_id: null, updated_at: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

/**
 * Removes the project's rows in one transaction. Tables that point at projects by foreign key
 * (topics, redirects, stars, group links, hooks, …) go by cascade; rows that name a project
 * polymorphically are deleted here. Forks of it stop being forks; if it was a fork, its source
 * counts one fork less. `beforeCommit` adds writes to the same transaction (the follow-up job).
 * Returns false when the project was already gone.
 */
export async function destroyProjectRows(db: Kysely<DB>, id: number, beforeCommit?: (tx: Transaction<DB>) => Promise<void>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const p = await tx.selectFrom('projects').select(['id', 'forked_from_id']).where('id', '=', id).executeTakeFirst();
    if (!p) return false;
    const bots = await tx
      .selectFrom('members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('u.id')
      .where('m.source_type', '=', 'Project')
      .where('m.source_id', '=', id)
      .where('u.bot_kind', '=', 'project_bot')
      .execute();
    await deleteBotRows(tx, bots.map((b) => b.id));
    await tx.deleteFrom('members').where('source_type', '=', 'Project').where('source_id', '=', id).execute();
    await tx.deleteFrom('custom_attributes').where('kind', '=', 'project').where('subject_id', '=', id).execute();
    await tx.updateTable('projects').set({ forked_from_id: null }).where('forked_from_id', '=', id).execute();
    if (p.forked_from_id !== null) {
      await tx.updateTable('projects').set({ forks_count: sql`forks_count - 1` }).where('id', '=', p.forked_from_id).where('forks_count', '>', 0).execute();
    }
    await tx.deleteFrom('projects').where('id', '=', id).execute();
    if (beforeCommit) await beforeCommit(tx);
    return true;
  });
}

/** Ids of the projects that live in these namespaces. */
export const projectIdsInNamespaces = (db: Kysely<DB>, namespaceIds: number[]): Promise<number[]> =>
  namespaceIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('projects').select('id').where('namespace_id', 'in', namespaceIds).execute().then((rows) => rows.map((r) => r.id));
