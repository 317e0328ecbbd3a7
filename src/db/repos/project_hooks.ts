// Project hooks (the URLs a project's events are delivered to).
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { PageRequest } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { DB, ProjectHooksTable } from '../schema.js';

export type ProjectHookRow = Selectable<ProjectHooksTable>;
export type NewProjectHook = Insertable<ProjectHooksTable>;
export type ProjectHookPatch = Updateable<ProjectHooksTable>;

export const pageProjectHooks = (db: Kysely<DB>, projectId: number, page: PageRequest) =>
  runPage(
    db,
    db.selectFrom('project_hooks').selectAll().where('project_id', '=', projectId).orderBy('id', page.kind === 'keyset' ? page.sort : 'asc'),
    page,
  );

export const findProjectHook = (db: Kysely<DB>, projectId: number, hookId: number) =>
  db.selectFrom('project_hooks').selectAll().where('project_id', '=', projectId).where('id', '=', hookId).executeTakeFirst();

export const insertProjectHook = (db: Kysely<DB>, row: NewProjectHook) =>
  db.insertInto('project_hooks').values(row).returningAll().executeTakeFirstOrThrow();

export const updateProjectHook = (db: Kysely<DB>, id: number, patch: ProjectHookPatch) =>
  db.updateTable('project_hooks').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteProjectHook = (db: Kysely<DB>, id: number) => db.deleteFrom('project_hooks').where('id', '=', id).execute();

export const findProjectHookById = (db: Kysely<DB>, hookId: number) =>
  db.selectFrom('project_hooks').selectAll().where('id', '=', hookId).executeTakeFirst();
