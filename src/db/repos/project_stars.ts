// Stars: which users starred which projects. projects.star_count moves with the rows in the same
// transaction, and the unique (user, project) pair makes concurrent stars count once.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { DB, UsersTable } from '../schema.js';

export const isStarred = async (db: Kysely<DB>, userId: number, projectId: number): Promise<boolean> =>
  (await db.selectFrom('project_stars').select('id').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst()) !== undefined;

/** Stars the project for the user; false when the user had already starred it (nothing changes). */
export async function addStar(db: Kysely<DB>, userId: number, projectId: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('project_stars')
      .values({ user_id: userId, project_id: projectId, created_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'project_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) return false;
    await tx.updateTable('projects').set({ star_count: sql`star_count + 1` }).where('id', '=', projectId).execute();
    return true;
  });
}

/** Removes the user's star; false when there was none. */
export async function removeStar(db: Kysely<DB>, userId: number, projectId: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const row = await tx.deleteFrom('project_stars').where('user_id', '=', userId).where('project_id', '=', projectId).returning('id').executeTakeFirst();
    if (!row) return false;
    await tx.updateTable('projects').set({ star_count: sql`star_count - 1` }).where('id', '=', projectId).where('star_count', '>', 0).execute();
    return true;
  });
}

export type StarrerRow = Selectable<UsersTable> & { star_id: number; starred_since: string };

export interface StarrerFilter {
  projectId: number;
  /** Lowercased, without a leading `@`: part of the name or username, or the whole public email. */
  search?: string;
  /** Users whose profile the caller may see: public ones, plus this user's own (null: public only). */
  visibleTo: { all: true } | { all: false; userId: number | null };
}

/** The project's starrers, newest star first; a search ranks exact name, username, email matches first, then by name. */
export function pageStarrers(db: Kysely<DB>, f: StarrerFilter, page: PageRequest): Promise<PageResult<StarrerRow>> {
  let q = db
    .selectFrom('project_stars')
    .innerJoin('users', 'users.id', 'project_stars.user_id')
    .selectAll('users')
    .select(['project_stars.id as star_id', 'project_stars.created_at as starred_since'])
    .where('project_stars.project_id', '=', f.projectId);
  const v = f.visibleTo;
  if (!v.all) {
    const self = v.userId;
    q = q.where((eb) => eb.or([eb('users.private_profile', '=', 0), ...(self !== null ? [eb('users.id', '=', self)] : [])]));
  }
  if (f.search !== undefined) {
    const s = f.search;
    const pattern = `%${likeEscape(s)}%`;
    q = q
      .where((eb) => eb.or([ilike(db, 'users.name', pattern), ilike(db, 'users.username', pattern), eb(eb.fn('lower', ['users.public_email']), '=', s)]))
      .orderBy(
        sql`CASE WHEN lower(users.name) = ${s} THEN 0 WHEN lower(users.username) = ${s} THEN 1 WHEN lower(users.public_email) = ${s} THEN 2 ELSE 3 END`,
      )
      .orderBy('users.name', 'asc')
      .orderBy('project_stars.id', 'desc');
  } else {
    q = q.orderBy('project_stars.id', 'desc');
  }
  return runPage(db, q, page, { idColumn: 'project_stars.id' });
}
