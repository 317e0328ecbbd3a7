// Links sharing a project with a group. A link whose expires_at is today or earlier is expired
// and counts as absent, as memberships do.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, ProjectGroupLinksTable } from '../schema.js';

export type ProjectGroupLinkRow = Selectable<ProjectGroupLinksTable>;

const live = (today: string) => (eb: any) =>
  eb.or([eb('project_group_links.expires_at', 'is', null), eb('project_group_links.expires_at', '>', today)]);

export const findGroupLink = (db: Kysely<DB>, projectId: number, groupId: number) =>
  db.selectFrom('project_group_links').selectAll().where('project_id', '=', projectId).where('group_id', '=', groupId).executeTakeFirst();

export const insertGroupLink = (db: Kysely<DB>, row: Insertable<ProjectGroupLinksTable>) =>
  db.insertInto('project_group_links').values(row).returningAll().executeTakeFirstOrThrow();

export const deleteGroupLink = (db: Kysely<DB>, id: number) => db.deleteFrom('project_group_links').where('id', '=', id).execute();

/** Live links of these projects, oldest first. */
export const liveLinksOf = (db: Kysely<DB>, projectIds: number[], today: string) =>
  projectIds.length === 0
    ? Promise.resolve([] as ProjectGroupLinkRow[])
    : db.selectFrom('project_group_links').selectAll().where('project_id', 'in', projectIds).where(live(today)).orderBy('id').execute();
