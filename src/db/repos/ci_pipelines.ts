// CI pipelines: the rows, their creation with jobs and variables in one transaction, and the
// per-pipeline lock under which statuses change (lists live in ci_pipeline_lists.ts).
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { dialectOf, isUniqueViolation } from '../dialect.js';
import type { CiJobsTable, CiPipelinesTable, CiPipelineVariablesTable, DB } from '../schema.js';

export type PipelineRow = Selectable<CiPipelinesTable>;
export type NewPipeline = Omit<Insertable<CiPipelinesTable>, 'iid'>;
export type NewJob = Omit<Insertable<CiJobsTable>, 'pipeline_id'>;
export type NewPipelineVariable = Omit<Insertable<CiPipelineVariablesTable>, 'pipeline_id'>;
export type Db = Kysely<DB> | Transaction<DB>;

export const findPipeline = (db: Db, id: number): Promise<PipelineRow | undefined> =>
  db.selectFrom('ci_pipelines').selectAll().where('id', '=', id).executeTakeFirst();

export const findProjectPipeline = (db: Db, projectId: number, id: number): Promise<PipelineRow | undefined> =>
  db.selectFrom('ci_pipelines').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();

/** The project's newest pipeline at a commit (of a ref, or with an id, when given); on (project_id, sha, id). */
export function newestPipelineOfSha(db: Db, projectId: number, sha: string, f: { ref?: string; id?: number }): Promise<PipelineRow | undefined> {
  let q = db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('sha', '=', sha);
  if (f.ref !== undefined) q = q.where('ref', '=', f.ref);
  if (f.id !== undefined) q = q.where('id', '=', f.id);
  return q.orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export const pipelinesByIds = (db: Db, ids: number[]): Promise<PipelineRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('ci_pipelines').selectAll().where('id', 'in', ids).execute();

/**
 * Inserts a pipeline with the next iid of its project, its jobs and its variables, all or
 * nothing. Two creations racing for one iid: the loser takes the next one.
 */
export async function insertPipeline(db: Kysely<DB>, row: NewPipeline, jobs: NewJob[], variables: NewPipelineVariable[]): Promise<PipelineRow> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(async (tx) => {
        const last = await tx
          .selectFrom('ci_pipelines')
          .select('iid')
          .where('project_id', '=', row.project_id)
          .orderBy('iid', 'desc')
          .limit(1)
          .executeTakeFirst();
        const pipeline = await tx
          .insertInto('ci_pipelines')
          .values({ ...row, iid: (last?.iid ?? 0) + 1 })
          .returningAll()
          .executeTakeFirstOrThrow();
        // Chunks keep each statement under the parameter limits of both dialects.
        for (let i = 0; i < jobs.length; i += 50) {
          await tx.insertInto('ci_jobs').values(jobs.slice(i, i + 50).map((j) => ({ ...j, pipeline_id: pipeline.id }))).execute();
        }
        if (variables.length) {
          await tx.insertInto('ci_pipeline_variables').values(variables.map((v) => ({ ...v, pipeline_id: pipeline.id }))).execute();
        }
        return pipeline;
      });
    } catch (err) {
      if (attempt < 20 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

/**
 * Runs `fn` in a transaction that holds the pipeline's row lock (PostgreSQL; SQLite serializes
 * writers anyway), so two nodes never process one pipeline at once. Undefined when it is gone.
 */
export async function withPipelineLock<T>(db: Kysely<DB>, id: number, fn: (tx: Transaction<DB>, p: PipelineRow) => Promise<T>): Promise<T | undefined> {
  return db.transaction().execute(async (tx) => {
    let q = tx.selectFrom('ci_pipelines').selectAll().where('id', '=', id);
    if (dialectOf(db) === 'postgres') q = q.forUpdate();
    const p = await q.executeTakeFirst();
    return p ? fn(tx, p) : undefined;
  });
}

export const updatePipeline = (db: Db, id: number, patch: Updateable<CiPipelinesTable>): Promise<PipelineRow | undefined> =>
  db.updateTable('ci_pipelines').set(patch).where('id', '=', id).returningAll().executeTakeFirst();

export const pipelineVariableRows = (db: Db, pipelineId: number) =>
  db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();

/** Child pipelines of these pipelines (one level). */
export const childPipelineIds = async (db: Db, parentIds: number[]): Promise<number[]> =>
  parentIds.length === 0
    ? []
    : (await db.selectFrom('ci_pipelines').select('id').where('parent_pipeline_id', 'in', parentIds).execute()).map((r) => r.id);

export const deletePipelineRow = (db: Db, id: number) => db.deleteFrom('ci_pipelines').where('id', '=', id).execute();
