// Protected branches of a project and their access entries (push / merge / unprotect).
import type { Insertable, Kysely, Selectable } from 'kysely';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, ProtectedBranchAccessLevelsTable, ProtectedBranchesTable } from '../schema.js';

export type ProtectedBranchRow = Selectable<ProtectedBranchesTable>;
export type AccessEntryRow = Selectable<ProtectedBranchAccessLevelsTable>;
export type NewAccessEntry = Omit<Insertable<ProtectedBranchAccessLevelsTable>, 'protected_branch_id'>;

/** Every protected branch of a project, oldest first (matching needs them all; projects have few). */
export const protectedBranchesOf = (db: Kysely<DB>, projectId: number): Promise<ProtectedBranchRow[]> =>
  db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

export const findProtectedBranchByName = (db: Kysely<DB>, projectId: number, name: string) =>
  db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();

/** A page of a project's protected branches, oldest first; `search` is part of the name. */
export function pageProtectedBranches(db: Kysely<DB>, projectId: number, search: string | undefined, page: PageRequest): Promise<PageResult<ProtectedBranchRow>> {
  let q = db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId);
  if (search) q = q.where(ilike(db, 'protected_branches.name', `%${likeEscape(search)}%`));
  return runPage(db, q.orderBy('id'), page);
}

/** The access entries of these protected branches, in creation order. */
export const accessEntriesOf = (db: Kysely<DB>, ids: number[]): Promise<AccessEntryRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', ids).orderBy('id').execute();

/** Inserts a protected branch with its entries in one transaction; undefined when the name is taken. */
export async function insertProtectedBranch(
  db: Kysely<DB>,
  row: Insertable<ProtectedBranchesTable>,
  entries: NewAccessEntry[],
): Promise<ProtectedBranchRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const pb = await tx
      .insertInto('protected_branches')
      .values(row)
      .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!pb) return undefined;
    if (entries.length) {
      await tx
        .insertInto('protected_branch_access_levels')
        .values(entries.map((e) => ({ ...e, protected_branch_id: pb.id })))
        .execute();
    }
    return pb;
  });
}

export const updateProtectedBranch = (db: Kysely<DB>, id: number, patch: { code_owner_approval_required?: number; updated_at: string }) =>
  db.updateTable('protected_branches').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Removes the rule and its entries (explicitly: entries must never outlive their rule). */
export async function deleteProtectedBranch(db: Kysely<DB>, id: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', id).execute();
    await tx.deleteFrom('protected_branches').where('id', '=', id).execute();
  });
}
