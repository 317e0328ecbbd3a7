// Runners: registered runners and the built-in one (row 1), their projects and managers, the
// registration tokens of projects and groups, and the reads the job queue needs.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { CiRunnerManagersTable, CiRunnersTable, DB } from '../schema.js';
import type { Db } from './ci_pipelines.js';
import { nowDate } from '../../shared/clock.js';
import { insertTraceTime } from './ci_traces.js';

export type RunnerRow = Selectable<CiRunnersTable>;
export type RunnerManagerRow = Selectable<CiRunnerManagersTable>;

export const insertRunner = (db: Db, row: Insertable<CiRunnersTable>): Promise<RunnerRow> =>
  db.insertInto('ci_runners').values(row).returningAll().executeTakeFirstOrThrow();

export const findRunnerById = (db: Db, id: number): Promise<RunnerRow | undefined> =>
  db.selectFrom('ci_runners').selectAll().where('id', '=', id).executeTakeFirst();

export const runnersByIds = (db: Db, ids: number[]): Promise<RunnerRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('ci_runners').selectAll().where('id', 'in', ids).execute();

export const findRunnerByTokenDigest = (db: Db, digest: string): Promise<RunnerRow | undefined> =>
  db.selectFrom('ci_runners').selectAll().where('token_digest', '=', digest).executeTakeFirst();

export const updateRunner = (db: Db, id: number, patch: Updateable<CiRunnersTable>): Promise<RunnerRow | undefined> =>
  db.updateTable('ci_runners').set(patch).where('id', '=', id).returningAll().executeTakeFirst();

export async function deleteRunner(db: Db, id: number): Promise<void> {
  await db.deleteFrom('ci_runners').where('id', '=', id).execute();
}

/** The runner's contact: its row, and its manager's when it has a system id. */
export async function recordContact(db: Db, runnerId: number, systemId: string | null, seen: Omit<Updateable<CiRunnerManagersTable>, 'runner_id' | 'system_id'>): Promise<void> {
  await db.updateTable('ci_runners').set(seen).where('id', '=', runnerId).execute();
  if (!systemId) return;
  await db
    .insertInto('ci_runner_managers')
    .values({ runner_id: runnerId, system_id: systemId, created_at: seen.contacted_at ?? nowDate().toISOString(), ...seen })
    .onConflict((oc) => oc.columns(['runner_id', 'system_id']).doUpdateSet(seen))
    .execute();
}

export const managersOf = (db: Db, runnerId: number): Promise<RunnerManagerRow[]> =>
  db.selectFrom('ci_runner_managers').selectAll().where('runner_id', '=', runnerId).orderBy('id').execute();

/** Removes one manager; false when the runner has none with that system id. */
export async function deleteManager(db: Db, runnerId: number, systemId: string): Promise<boolean> {
  const r = await db.deleteFrom('ci_runner_managers').where('runner_id', '=', runnerId).where('system_id', '=', systemId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

// ---- project assignment ----

export async function assignRunnerProject(db: Db, runnerId: number, projectId: number, now: string): Promise<void> {
  await db
    .insertInto('ci_runner_projects')
    .values({ runner_id: runnerId, project_id: projectId, created_at: now })
    .onConflict((oc) => oc.columns(['runner_id', 'project_id']).doNothing())
    .execute();
}

export async function unassignRunnerProject(db: Db, runnerId: number, projectId: number): Promise<void> {
  await db.deleteFrom('ci_runner_projects').where('runner_id', '=', runnerId).where('project_id', '=', projectId).execute();
}

/** The projects a project runner is assigned to, first-assigned first (the first is its owner). */
export const runnerProjectIds = async (db: Db, runnerId: number): Promise<number[]> =>
  (await db.selectFrom('ci_runner_projects').select('project_id').where('runner_id', '=', runnerId).orderBy('id').execute()).map((r) => r.project_id);

// ---- registration tokens (found by digest, stored encrypted) ----

export interface StoredRegistrationToken {
  runners_token: string;
  runners_token_digest: string;
}

export const projectByRunnersTokenDigest = (db: Db, digest: string) =>
  db.selectFrom('projects').select(['id', 'namespace_id']).where('runners_token_digest', '=', digest).executeTakeFirst();

export const groupByRunnersTokenDigest = (db: Db, digest: string) =>
  db.selectFrom('namespaces').select(['id']).where('kind', '=', 'group').where('runners_token_digest', '=', digest).executeTakeFirst();

export async function setProjectRunnersToken(db: Db, projectId: number, token: StoredRegistrationToken): Promise<void> {
  await db.updateTable('projects').set(token).where('id', '=', projectId).execute();
}

export async function setGroupRunnersToken(db: Db, groupId: number, token: StoredRegistrationToken): Promise<void> {
  await db.updateTable('namespaces').set(token).where('id', '=', groupId).execute();
}

/** Rows whose registration token is still stored plain (written before tokens were encrypted). */
export async function plainRunnersTokens(db: Db, table: 'projects' | 'namespaces', limit: number): Promise<{ id: number; runners_token: string }[]> {
  const rows = await db
    .selectFrom(table)
    .select(['id', 'runners_token'])
    .where('runners_token', 'is not', null)
    .where('runners_token', 'not like', 'v1:%')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as { id: number; runners_token: string }[];
}

/** Replaces a plain registration token by its sealed form, unless it changed meanwhile. */
export async function sealRunnersToken(db: Db, table: 'projects' | 'namespaces', id: number, plain: string, token: StoredRegistrationToken): Promise<void> {
  await db.updateTable(table).set(token).where('id', '=', id).where('runners_token', '=', plain).execute();
}

// ---- lists ----

export interface RunnerFilter {
  /** Only these runner types. */
  types?: string[] | null;
  paused?: boolean | null;
  /** Runners with every one of these tags. */
  tags?: string[] | null;
  /** Runners of the scope of these projects (assigned), groups (their own), or all. */
  projectIds?: number[] | null;
  groupIds?: number[] | null;
  /** With projectIds/groupIds: instance runners count too (a project's available runners). */
  withInstance?: boolean;
  search?: string | null;
}

export function pageRunners(db: Kysely<DB>, f: RunnerFilter, page: PageRequest): Promise<PageResult<RunnerRow>> {
  let q = db.selectFrom('ci_runners').selectAll();
  if (f.types?.length) q = q.where('runner_type', 'in', f.types);
  if (f.paused !== null && f.paused !== undefined) q = q.where('paused', '=', f.paused ? 1 : 0);
  for (const tag of f.tags ?? []) q = q.where(sql<boolean>`tag_list LIKE ${`%${JSON.stringify(tag)}%`}`);
  if (f.search) q = q.where(sql<boolean>`lower(description) LIKE ${`%${f.search.toLowerCase()}%`}`);
  if (f.projectIds || f.groupIds) {
    const projectIds = f.projectIds ?? [];
    const groupIds = f.groupIds ?? [];
    q = q.where((eb) =>
      eb.or([
        ...(projectIds.length
          ? [eb('id', 'in', eb.selectFrom('ci_runner_projects').select('runner_id').where('project_id', 'in', projectIds))]
          : []),
        ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : []),
        ...(f.withInstance ? [eb('runner_type', '=', 'instance_type')] : []),
        sql<boolean>`1 = 0`,
      ]),
    );
  }
  return runPage(db, q.orderBy('id'), page);
}

// ---- the job queue ----

/** Pending builds after `afterId`, oldest first, with what routing needs. Uses (status, id). */
export const pendingBuildsAfter = (db: Db, afterId: number, limit: number) =>
  db
    .selectFrom('ci_jobs as j')
    .innerJoin('projects as p', 'p.id', 'j.project_id')
    .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
    .select(['j.id', 'j.project_id', 'j.tag_list', 'j.ref', 'j.tag', 'p.shared_runners_enabled', 'n.full_path_lower as namespace_path'])
    .where('j.status', '=', 'pending')
    .where('j.type', '=', 'build')
    .where('j.id', '>', afterId)
    .orderBy('j.id')
    .limit(limit)
    .execute();

export type PendingBuild = Awaited<ReturnType<typeof pendingBuildsAfter>>[number];

/** What changes whenever a build becomes pending or is taken: the queue's version for `X-GitLab-Last-Update`. */
export async function pendingQueueStamp(db: Db): Promise<string> {
  const r = await db
    .selectFrom('ci_jobs')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('last')])
    .where('status', '=', 'pending')
    .where('type', '=', 'build')
    .executeTakeFirst();
  return `${Number(r?.n ?? 0)}-${Number(r?.last ?? 0)}`;
}

/** Running builds of registered runners not updated since `before` (stuck: their runner stopped). */
export const stuckRunnerBuilds = (db: Db, before: string, limit: number) =>
  db
    .selectFrom('ci_jobs')
    .select(['id', 'project_id', 'pipeline_id'])
    .where('runner_id', '>', 1)
    .where('status', '=', 'running')
    .where('updated_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute();

/** The jobs a runner ran or runs, newest first. */
export function pageRunnerJobs(db: Kysely<DB>, runnerId: number, statuses: string[] | null, page: PageRequest) {
  let q = db.selectFrom('ci_jobs').selectAll().where('runner_id', '=', runnerId);
  if (statuses?.length) q = q.where('status', 'in', statuses);
  return runPage(db, q.orderBy('id', 'desc'), page);
}

/**
 * Appends a piece of a registered runner's trace at `offset`: only when the trace is exactly
 * `offset` bytes long now (so pieces land in order, once). The new length, or null when the
 * offset is not the trace's end. `at`: when it arrived (ci_trace_times).
 */
export async function appendTraceAt(db: Kysely<DB>, jobId: number, offset: number, data: Buffer, at: string): Promise<number | null> {
  return db.transaction().execute(async (tx) => {
    const moved = await tx
      .updateTable('ci_jobs')
      .set({ trace_bytes: offset + data.length })
      .where('id', '=', jobId)
      .where('trace_bytes', '=', offset)
      .returning('trace_bytes')
      .executeTakeFirst();
    if (!moved) return null;
    const last = await tx.selectFrom('ci_trace_chunks').select('seq').where('job_id', '=', jobId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    await tx.insertInto('ci_trace_chunks').values({ job_id: jobId, seq: (last?.seq ?? -1) + 1, data: data.toString('base64') }).execute();
    await insertTraceTime(tx, jobId, offset, at);
    return moved.trace_bytes;
  });
}

/** Projects the user is a direct maintainer (or owner) of: whose project runners `GET /runners` lists. */
export const projectIdsMaintainedBy = async (db: Db, userId: number): Promise<number[]> =>
  (
    await db.selectFrom('members').select('source_id').where('user_id', '=', userId).where('source_type', '=', 'Project').where('access_level', '>=', 40).execute()
  ).map((r) => r.source_id);
