// Fork relations: projects.forked_from_id points at the source, and the source's forks_count
// (its direct forks) moves in the same transaction as the relation.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../schema.js';
import { insertProject, type NewProject, type NewProjectExtras, type ProjectRow } from './projects.js';

const countFork = (tx: Transaction<DB>, sourceId: number, by: 1 | -1) =>
  tx
    .updateTable('projects')
    .set({ forks_count: by === 1 ? sql`forks_count + 1` : sql`forks_count - 1` })
    .where('id', '=', sourceId)
    .$if(by === -1, (q) => q.where('forks_count', '>', 0))
    .execute();

/** Inserts a new project forked from `row.forked_from_id`, counting it on the source; `beforeCommit` adds writes to the transaction. */
export function insertFork(
  db: Kysely<DB>,
  row: NewProject & { forked_from_id: number },
  extras: Omit<NewProjectExtras, 'after'>,
  beforeCommit?: (tx: Transaction<DB>, fork: ProjectRow) => Promise<void>,
): Promise<ProjectRow> {
  return insertProject(db, row, {
    ...extras,
    after: async (tx, fork) => {
      await countFork(tx, row.forked_from_id, 1);
      if (beforeCommit) await beforeCommit(tx, fork);
    },
  });
}

/** Marks an existing project as a fork of the source; false when it already is a fork. */
export async function linkFork(db: Kysely<DB>, projectId: number, sourceId: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const r = await tx
      .updateTable('projects')
      .set({ forked_from_id: sourceId, updated_at: at })
      .where('id', '=', projectId)
      .where('forked_from_id', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!r) return false;
    await countFork(tx, sourceId, 1);
    return true;
  });
}

/** Removes the project's fork relation; false when it was not a fork. */
export async function unlinkFork(db: Kysely<DB>, projectId: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const p = await tx.selectFrom('projects').select('forked_from_id').where('id', '=', projectId).executeTakeFirst();
    if (!p || p.forked_from_id === null) return false;
    const r = await tx
      .updateTable('projects')
      .set({ forked_from_id: null, updated_at: at })
      .where('id', '=', projectId)
      .where('forked_from_id', '=', p.forked_from_id)
      .returning('id')
      .executeTakeFirst();
    if (!r) return false;
    await countFork(tx, p.forked_from_id, -1);
    return true;
  });
}

/** The import state of a fork's repository copy (scheduled → finished). */
export const setImportStatus = (db: Kysely<DB>, projectId: number, status: string) =>
  db.updateTable('projects').set({ import_status: status }).where('id', '=', projectId).execute();
