// Protected tags of a project and who may create them.
import type { Insertable, Kysely, Selectable } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, ProtectedTagCreateAccessLevelsTable, ProtectedTagsTable } from '../schema.js';

export type ProtectedTagRow = Selectable<ProtectedTagsTable>;
export type CreateAccessRow = Selectable<ProtectedTagCreateAccessLevelsTable>;
export type NewCreateAccess = Omit<Insertable<ProtectedTagCreateAccessLevelsTable>, 'protected_tag_id'>;

/** Every protected tag of a project, oldest first (matching needs them all; projects have few). */
export const protectedTagsOf = (db: Kysely<DB>, projectId: number): Promise<ProtectedTagRow[]> =>
  db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

export const findProtectedTagByName = (db: Kysely<DB>, projectId: number, name: string) =>
  db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();

/** A page of a project's protected tags, oldest first. */
export const pageProtectedTags = (db: Kysely<DB>, projectId: number, page: PageRequest): Promise<PageResult<ProtectedTagRow>> =>
  runPage(db, db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id'), page);

/** The create entries of these protected tags, in creation order. */
export const createAccessOf = (db: Kysely<DB>, ids: number[]): Promise<CreateAccessRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('protected_tag_create_access_levels').selectAll().where('protected_tag_id', 'in', ids).orderBy('id').execute();

/** Inserts a protected tag with its entries in one transaction; undefined when the name is taken. */
export async function insertProtectedTag(db: Kysely<DB>, row: Insertable<ProtectedTagsTable>, entries: NewCreateAccess[]): Promise<ProtectedTagRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const pt = await tx
      .insertInto('protected_tags')
      .values(row)
      .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!pt) return undefined;
    if (entries.length) {
      await tx
        .insertInto('protected_tag_create_access_levels')
        .values(entries.map((e) => ({ ...e, protected_tag_id: pt.id })))
        .execute();
    }
    return pt;
  });
}

/** Removes the rule and its entries. */
export async function deleteProtectedTag(db: Kysely<DB>, id: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('protected_tag_create_access_levels').where('protected_tag_id', '=', id).execute();
    await tx.deleteFrom('protected_tags').where('id', '=', id).execute();
  });
}
