// Project aliases: other names projects answer to (the API's `:id` and git URLs).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { PageRequest } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { DB, ProjectAliasesTable } from '../schema.js';

export type ProjectAliasRow = Selectable<ProjectAliasesTable>;

export const pageProjectAliases = (db: Kysely<DB>, page: PageRequest) =>
  runPage(db, db.selectFrom('project_aliases').selectAll().orderBy('id', page.kind === 'keyset' ? page.sort : 'asc'), page);

export const findProjectAlias = (db: Kysely<DB>, name: string) =>
  db.selectFrom('project_aliases').selectAll().where('name_lower', '=', name.toLowerCase()).executeTakeFirst();

export const insertProjectAlias = (db: Kysely<DB>, row: Insertable<ProjectAliasesTable>) =>
  db.insertInto('project_aliases').values(row).returningAll().executeTakeFirstOrThrow();

export const deleteProjectAlias = (db: Kysely<DB>, id: number) => db.deleteFrom('project_aliases').where('id', '=', id).execute();

/** The project an alias names (a single path segment), if any. */
export const findProjectByAlias = (db: Kysely<DB>, name: string) =>
  db
    .selectFrom('projects')
    .innerJoin('project_aliases as a', 'a.project_id', 'projects.id')
    .selectAll('projects')
    .where('a.name_lower', '=', name.toLowerCase())
    .executeTakeFirst();
