// System hooks, hook deliveries and the delivery log (project hooks themselves: project_hooks.ts).
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { PageRequest } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { DB, HookDeliveriesTable, HookLogsTable, HookType, SystemHooksTable } from '../schema.js';

export type SystemHookRow = Selectable<SystemHooksTable>;
export type SystemHookPatch = Updateable<SystemHooksTable>;
export type HookDeliveryRow = Selectable<HookDeliveriesTable>;
export type NewHookDelivery = Insertable<HookDeliveriesTable>;
export type HookLogRow = Selectable<HookLogsTable>;

// ---- system hooks ----

export const pageSystemHooks = (db: Kysely<DB>, page: PageRequest) =>
  runPage(db, db.selectFrom('system_hooks').selectAll().orderBy('id', page.kind === 'keyset' ? page.sort : 'asc'), page);

export const findSystemHook = (db: Kysely<DB>, id: number) =>
  db.selectFrom('system_hooks').selectAll().where('id', '=', id).executeTakeFirst();

export const insertSystemHook = (db: Kysely<DB>, row: Insertable<SystemHooksTable>) =>
  db.insertInto('system_hooks').values(row).returningAll().executeTakeFirstOrThrow();

export const updateSystemHook = (db: Kysely<DB>, id: number, patch: SystemHookPatch) =>
  db.updateTable('system_hooks').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteSystemHook = (db: Kysely<DB>, id: number) => db.deleteFrom('system_hooks').where('id', '=', id).execute();

/** Flags a hook may ask for; system events go to every system hook. */
type SystemFlag = 'push_events' | 'tag_push_events' | 'repository_update_events';

export function systemHooksFor(db: Kysely<DB>, flag: SystemFlag | null): Promise<Pick<SystemHookRow, 'id' | 'token_encrypted'>[]> {
  let q = db.selectFrom('system_hooks').select(['id', 'token_encrypted']);
  if (flag) q = q.where(flag, '=', 1);
  return q.orderBy('id').execute();
}

type ProjectFlag = 'push_events' | 'tag_push_events' | 'pipeline_events' | 'job_events' | 'releases_events';

export const projectHooksFor = (db: Kysely<DB>, projectId: number, flag: ProjectFlag) =>
  db.selectFrom('project_hooks').select(['id', 'token_encrypted', 'push_events_branch_filter']).where('project_id', '=', projectId).where(flag, '=', 1).orderBy('id').execute();

// ---- deliveries ----

export async function insertDeliveries(db: Kysely<DB>, rows: NewHookDelivery[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const ids = await db.insertInto('hook_deliveries').values(rows).returning('id').execute();
  return ids.map((r) => r.id);
}

export const findDelivery = (db: Kysely<DB>, id: number) =>
  db.selectFrom('hook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

/** Moves a pending delivery on; false when another run already did (the job ran twice). */
export async function settleDelivery(
  db: Kysely<DB>,
  id: number,
  seenAttempts: number,
  patch: { state: HookDeliveriesTable['state']; attempts: number; updated_at: string },
): Promise<boolean> {
  const r = await db
    .updateTable('hook_deliveries')
    .set(patch)
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where('attempts', '=', seenAttempts)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Finished deliveries older than `before`, a batch at a time. */
export async function pruneDeliveries(db: Kysely<DB>, before: string, batch = 1000): Promise<number> {
  const ids = db.selectFrom('hook_deliveries').select('id').where('state', '!=', 'pending').where('updated_at', '<', before).limit(batch);
  const r = await db.deleteFrom('hook_deliveries').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}

// ---- the log ----

export const insertHookLog = (db: Kysely<DB>, row: Insertable<HookLogsTable>) =>
  db.insertInto('hook_logs').values(row).returningAll().executeTakeFirstOrThrow();

/** Newest first, as the reference lists a hook's events. */
export const pageHookLogs = (db: Kysely<DB>, hookType: HookType, hookId: number, page: PageRequest) =>
  runPage(db, db.selectFrom('hook_logs').selectAll().where('hook_type', '=', hookType).where('hook_id', '=', hookId).orderBy('id', 'desc'), page);

export const findHookLog = (db: Kysely<DB>, hookType: HookType, hookId: number, id: number) =>
  db.selectFrom('hook_logs').selectAll().where('hook_type', '=', hookType).where('hook_id', '=', hookId).where('id', '=', id).executeTakeFirst();

export async function pruneHookLogs(db: Kysely<DB>, before: string, batch = 1000): Promise<number> {
  const ids = db.selectFrom('hook_logs').select('id').where('created_at', '<', before).limit(batch);
  const r = await db.deleteFrom('hook_logs').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** A deleted hook takes its log and undelivered events with it. */
export async function deleteHookRecords(db: Kysely<DB>, hookType: HookType, hookId: number): Promise<void> {
  await db.deleteFrom('hook_logs').where('hook_type', '=', hookType).where('hook_id', '=', hookId).execute();
  await db.deleteFrom('hook_deliveries').where('hook_type', '=', hookType).where('hook_id', '=', hookId).execute();
}

/** Deliveries already recorded for these event ids (a re-run of the job that recorded them). */
export async function deliveriesExist(db: Kysely<DB>, eventUuids: string[]): Promise<boolean> {
  if (eventUuids.length === 0) return false;
  const r = await db.selectFrom('hook_deliveries').select('id').where('event_uuid', 'in', eventUuids).limit(1).executeTakeFirst();
  return r !== undefined;
}

/** The owners (access 50) of a group, for the `owners` of a group project's system events. */
export const namespaceOwners = (db: Kysely<DB>, namespaceId: number) =>
  db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.name', 'u.email'])
    .where('m.source_type', '=', 'Namespace')
    .where('m.source_id', '=', namespaceId)
    .where('m.access_level', '=', 50)
    .orderBy('u.id')
    .execute();

/** The newest pipeline and build of a project (the samples of a hook test). */
export const latestPipelineId = async (db: Kysely<DB>, projectId: number) =>
  (await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', projectId).orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? null;

export const latestBuild = (db: Kysely<DB>, projectId: number) =>
  db.selectFrom('ci_jobs').selectAll().where('project_id', '=', projectId).where('type', '=', 'build').orderBy('id', 'desc').limit(1).executeTakeFirst();
