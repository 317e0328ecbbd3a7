// Milestones of projects and groups.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { ilike, isUniqueViolation, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, MilestonesTable } from '../schema.js';

export type MilestoneRow = Selectable<MilestonesTable>;

export interface MilestoneOwners {
  projectIds: number[];
  groupIds: number[];
}

export interface MilestoneFilter {
  state?: 'active' | 'closed';
  iids?: number[];
  title?: string;
  search?: string;
  updatedBefore?: string;
  updatedAfter?: string;
}

function owned(db: Kysely<DB>, owners: MilestoneOwners) {
  return db.selectFrom('milestones').selectAll().where((eb) => {
    const parts = [
      ...(owners.projectIds.length ? [eb('project_id', 'in', owners.projectIds)] : []),
      ...(owners.groupIds.length ? [eb('group_id', 'in', owners.groupIds)] : []),
    ];
    return parts.length ? eb.or(parts) : sql<boolean>`1 = 0`;
  });
}

/** Milestones of these owners, soonest due first (those without a due date last), then by title. */
export function pageMilestones(db: Kysely<DB>, owners: MilestoneOwners, f: MilestoneFilter, page: PageRequest): Promise<PageResult<MilestoneRow>> {
  let q = owned(db, owners);
  if (f.state) q = q.where('state', '=', f.state);
  if (f.iids) q = f.iids.length ? q.where('iid', 'in', f.iids) : q.where(sql<boolean>`1 = 0`);
  if (f.title !== undefined) q = q.where('title', '=', f.title);
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    q = q.where((eb) => eb.or([ilike(db, 'title', pattern), ilike(db, 'description', pattern)]));
  }
  if (f.updatedBefore) q = q.where('updated_at', '<', f.updatedBefore);
  if (f.updatedAfter) q = q.where('updated_at', '>', f.updatedAfter);
  const ordered = q
    .orderBy(sql`case when due_date is null then 1 else 0 end`)
    .orderBy('due_date')
    .orderBy('title')
    .orderBy('id');
  return runPage(db, ordered, page);
}

export const findMilestoneOf = (db: Kysely<DB>, owners: MilestoneOwners, id: number): Promise<MilestoneRow | undefined> =>
  owned(db, owners).where('id', '=', id).executeTakeFirst();

export const findMilestoneById = (db: Kysely<DB>, id: number): Promise<MilestoneRow | undefined> =>
  db.selectFrom('milestones').selectAll().where('id', '=', id).executeTakeFirst();

export const milestonesByIds = (db: Kysely<DB>, ids: number[]): Promise<MilestoneRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('milestones').selectAll().where('id', 'in', ids).execute();

/** Milestones of these owners with one of these titles (issue filters name milestones by title). */
export const milestonesTitled = (db: Kysely<DB>, owners: MilestoneOwners, titles: string[]): Promise<MilestoneRow[]> =>
  titles.length === 0 ? Promise.resolve([]) : owned(db, owners).where('title', 'in', titles).execute();

/** The active milestones of these owners that start soonest among those due in the future: the reference's "Upcoming". */
export async function upcomingMilestoneIds(db: Kysely<DB>, owners: MilestoneOwners, today: string): Promise<number[]> {
  const rows = await owned(db, owners).where('state', '=', 'active').where('due_date', '>', today).orderBy('due_date').execute();
  if (rows.length === 0) return [];
  // One per owner: the first due of each project or group.
  const firstOf = new Map<string, string>();
  for (const r of rows) {
    const key = r.project_id !== null ? `p${r.project_id}` : `g${r.group_id}`;
    if (!firstOf.has(key)) firstOf.set(key, r.due_date!);
  }
  return rows.filter((r) => firstOf.get(r.project_id !== null ? `p${r.project_id}` : `g${r.group_id}`) === r.due_date).map((r) => r.id);
}

/** The milestones of these owners that have started: the reference's "Started" (start date today or before, active). */
export const startedMilestoneIds = async (db: Kysely<DB>, owners: MilestoneOwners, today: string): Promise<number[]> =>
  (await owned(db, owners).where('state', '=', 'active').where('start_date', '<=', today).execute()).map((r) => r.id);

/** Inserts a milestone with the next iid of its project or group; a race for one iid takes the next. Undefined when the title is taken. */
export async function insertMilestone(db: Kysely<DB>, row: Omit<Insertable<MilestonesTable>, 'iid'>): Promise<MilestoneRow | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(async (tx) => {
        if (await tx.selectFrom('milestones').select('id').where(row.project_id ? 'project_id' : 'group_id', '=', (row.project_id ?? row.group_id)!).where('title', '=', row.title).executeTakeFirst()) {
          return undefined;
        }
        const last = await tx
          .selectFrom('milestones')
          .select('iid')
          .where(row.project_id ? 'project_id' : 'group_id', '=', (row.project_id ?? row.group_id)!)
          .orderBy('iid', 'desc')
          .limit(1)
          .executeTakeFirst();
        return tx.insertInto('milestones').values({ ...row, iid: (last?.iid ?? 0) + 1 }).returningAll().executeTakeFirstOrThrow();
      });
    } catch (err) {
      if (attempt < 20 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

/** Undefined when the new title is taken. */
export async function updateMilestone(db: Kysely<DB>, id: number, patch: Updateable<MilestonesTable>): Promise<MilestoneRow | undefined> {
  try {
    return await db.updateTable('milestones').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export const deleteMilestone = (db: Kysely<DB>, id: number) => db.deleteFrom('milestones').where('id', '=', id).execute();

/** Project milestones with this title in these projects (what a promotion to their group merges). */
export const projectMilestonesTitled = (db: Kysely<DB>, projectIds: number[], title: string): Promise<MilestoneRow[]> =>
  projectIds.length === 0 ? Promise.resolve([]) : db.selectFrom('milestones').selectAll().where('project_id', 'in', projectIds).where('title', '=', title).execute();

/** Every milestone with this title, wherever it is (everyone's issue list names milestones by title). */
export const milestoneIdsTitled = async (db: Kysely<DB>, title: string): Promise<number[]> =>
  (await db.selectFrom('milestones').select('id').where('title', '=', title).execute()).map((r) => r.id);
