// Badges of projects and groups, and the pipeline figures their status images show.
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { BadgesTable, DB } from '../schema.js';
import type { PipelineRow } from './ci_pipelines.js';

export type BadgeRow = Selectable<BadgesTable>;
export interface BadgeOwner {
  projectId: number | null;
  groupIds: number[];
}

const ownedBy = (owner: BadgeOwner) => (eb: ExpressionBuilder<DB, 'badges'>) =>
  eb.or([
    ...(owner.projectId !== null ? [eb('project_id', '=', owner.projectId)] : []),
    ...(owner.groupIds.length ? [eb('group_id', 'in', owner.groupIds)] : []),
  ]);

/** The badges a project shows: its own and those of the given groups (its group and the ones above), oldest first. */
export function pageBadges(
  db: Kysely<DB>,
  owner: BadgeOwner,
  name: string | undefined,
  page: PageRequest,
): Promise<PageResult<BadgeRow>> {
  let q = db.selectFrom('badges').selectAll().where(ownedBy(owner));
  if (name !== undefined) q = q.where('name', '=', name);
  return runPage(db, q.orderBy('id'), page);
}

/** One badge among those of the project and groups given; undefined when it is not one of them. */
export const findBadgeOf = (db: Kysely<DB>, owner: BadgeOwner, id: number) =>
  db
    .selectFrom('badges')
    .selectAll()
    .where('id', '=', id)
    .where(ownedBy(owner))
    .executeTakeFirst();

/** A project's own badges (not its groups'), oldest first: what an export carries. */
export const projectBadgesOf = (db: Kysely<DB>, projectId: number): Promise<BadgeRow[]> =>
  db.selectFrom('badges').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

export const insertBadge = (db: Kysely<DB>, row: Insertable<BadgesTable>): Promise<BadgeRow> =>
  db.insertInto('badges').values(row).returningAll().executeTakeFirstOrThrow();

export const updateBadge = (db: Kysely<DB>, id: number, patch: Updateable<BadgesTable>): Promise<BadgeRow> =>
  db.updateTable('badges').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteBadge = (db: Kysely<DB>, id: number) => db.deleteFrom('badges').where('id', '=', id).execute();

/** The newest CI pipeline (not a child pipeline) of a ref at a commit: what the pipeline badge shows. */
export const latestPipelineAt = (db: Kysely<DB>, projectId: number, ref: string, sha: string, ignoreSkipped: boolean): Promise<PipelineRow | undefined> =>
  db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('ref', '=', ref)
    .where('sha', '=', sha)
    .where('source', '!=', 'parent_pipeline')
    .$if(ignoreSkipped, (q) => q.where('status', '!=', 'skipped'))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/** The newest successful CI pipeline of a ref: what the coverage badge reads. */
export const latestSuccessfulPipeline = (db: Kysely<DB>, projectId: number, ref: string): Promise<PipelineRow | undefined> =>
  db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('ref', '=', ref)
    .where('status', '=', 'success')
    .where('source', '!=', 'parent_pipeline')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/** The coverage of a pipeline's (latest, not retried) job of that name. */
export async function jobCoverage(db: Kysely<DB>, pipelineId: number, name: string): Promise<number | null> {
  const row = await db
    .selectFrom('ci_jobs')
    .select('coverage')
    .where('pipeline_id', '=', pipelineId)
    .where('name', '=', name)
    .where('retried', '=', 0)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.coverage ?? null;
}
