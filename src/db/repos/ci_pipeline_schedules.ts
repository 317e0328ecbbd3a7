// Pipeline schedules and their variables; the due ones, claimed once per due time.
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { CiPipelineScheduleVariablesTable, CiPipelineSchedulesTable, DB } from '../schema.js';

export type ScheduleRow = Selectable<CiPipelineSchedulesTable>;
export type ScheduleVariableRow = Selectable<CiPipelineScheduleVariablesTable>;

/** A page of a project's schedules, oldest first; `active` narrows to active (true) or inactive (false) ones. */
export function pageSchedules(db: Kysely<DB>, projectId: number, active: boolean | undefined, page: PageRequest): Promise<PageResult<ScheduleRow>> {
  let q = db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId);
  if (active !== undefined) q = q.where('active', '=', active ? 1 : 0);
  return runPage(db, q.orderBy('id'), page);
}

export const findProjectSchedule = (db: Kysely<DB>, projectId: number, id: number): Promise<ScheduleRow | undefined> =>
  db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();

export const findSchedule = (db: Kysely<DB>, id: number): Promise<ScheduleRow | undefined> =>
  db.selectFrom('ci_pipeline_schedules').selectAll().where('id', '=', id).executeTakeFirst();

export const insertSchedule = (db: Kysely<DB>, row: Insertable<CiPipelineSchedulesTable>): Promise<ScheduleRow> =>
  db.insertInto('ci_pipeline_schedules').values(row).returningAll().executeTakeFirstOrThrow();

export const updateSchedule = (db: Kysely<DB>, id: number, patch: Updateable<CiPipelineSchedulesTable>): Promise<ScheduleRow> =>
  db.updateTable('ci_pipeline_schedules').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Removes a schedule and its variables; its pipelines stay, no longer linked to it. */
export async function deleteSchedule(db: Kysely<DB>, id: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('ci_pipelines').set({ pipeline_schedule_id: null }).where('pipeline_schedule_id', '=', id).execute();
    await tx.deleteFrom('ci_pipeline_schedule_variables').where('pipeline_schedule_id', '=', id).execute();
    await tx.deleteFrom('ci_pipeline_schedules').where('id', '=', id).execute();
  });
}

export const scheduleVariableRows = (db: Kysely<DB>, scheduleIds: number[]): Promise<ScheduleVariableRow[]> =>
  scheduleIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', 'in', scheduleIds).orderBy('id').execute();

export const findScheduleVariable = (db: Kysely<DB>, scheduleId: number, key: string): Promise<ScheduleVariableRow | undefined> =>
  db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', '=', scheduleId).where('key', '=', key).executeTakeFirst();

/** Undefined when the schedule has a variable of that key already (also under a race). */
export const insertScheduleVariable = (db: Kysely<DB>, row: Insertable<CiPipelineScheduleVariablesTable>): Promise<ScheduleVariableRow | undefined> =>
  db
    .insertInto('ci_pipeline_schedule_variables')
    .values(row)
    .onConflict((oc) => oc.columns(['pipeline_schedule_id', 'key']).doNothing())
    .returningAll()
    .executeTakeFirst();

export const updateScheduleVariable = (db: Kysely<DB>, id: number, patch: Updateable<CiPipelineScheduleVariablesTable>): Promise<ScheduleVariableRow> =>
  db.updateTable('ci_pipeline_schedule_variables').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteScheduleVariable = (db: Kysely<DB>, id: number) => db.deleteFrom('ci_pipeline_schedule_variables').where('id', '=', id).execute();

/** Active schedules due at `now` (next_run_at at or before it), the most overdue first. */
export const dueSchedules = (db: Kysely<DB>, now: string, limit: number): Promise<ScheduleRow[]> =>
  db
    .selectFrom('ci_pipeline_schedules')
    .selectAll()
    .where('active', '=', 1)
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/**
 * Moves a due schedule from `dueAt` to `nextRunAt` if nobody did yet, and runs `then` in the same
 * transaction: of several nodes that see the same due time, exactly one wins it. False when
 * another node (or an update of the schedule) moved it first.
 */
export async function claimDueRun(
  db: Kysely<DB>,
  id: number,
  dueAt: string,
  nextRunAt: string | null,
  then: (tx: Transaction<DB>) => Promise<void>,
): Promise<boolean> {
  // SQLite refuses a write at once (SQLITE_BUSY, no waiting) when another connection wrote since
  // this transaction's snapshot; the transaction rolled back, so it is simply tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await claimOnce(db, id, dueAt, nextRunAt, then);
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    }
  }
}

function claimOnce(db: Kysely<DB>, id: number, dueAt: string, nextRunAt: string | null, then: (tx: Transaction<DB>) => Promise<void>): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const r = await tx
      .updateTable('ci_pipeline_schedules')
      .set({ next_run_at: nextRunAt })
      .where('id', '=', id)
      .where('active', '=', 1)
      .where('next_run_at', '=', dueAt)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await then(tx);
    return true;
  });
}

/** The newest pipeline a schedule made (its last_pipeline), if any. */
export const lastPipelineIdOf = async (db: Kysely<DB>, scheduleId: number): Promise<number | null> =>
  (
    await db
      .selectFrom('ci_pipelines')
      .select('id')
      .where('pipeline_schedule_id', '=', scheduleId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
  )?.id ?? null;

/** A pipeline the schedule made at or after `since` (a run job that runs again finds its first run's). */
export const schedulePipelineSince = (db: Kysely<DB>, scheduleId: number, since: string) =>
  db
    .selectFrom('ci_pipelines')
    .select('id')
    .where('pipeline_schedule_id', '=', scheduleId)
    .where('created_at', '>=', since)
    .limit(1)
    .executeTakeFirst();
