// Reads of the built-in runner that the job lists and state changes do not need: the running
// builds it checks for ones left behind by a crashed node.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface RunningBuild {
  id: number;
  project_id: number;
  pipeline_id: number;
  options: string;
  started_at: string | null;
}

/** Running builds after `afterId`, by id (uses the (status, id) index). */
export const runningBuildsAfter = (db: Kysely<DB>, afterId: number, limit: number): Promise<RunningBuild[]> =>
  db
    .selectFrom('ci_jobs')
    .select(['id', 'project_id', 'pipeline_id', 'options', 'started_at'])
    .where('status', '=', 'running')
    .where('type', '=', 'build')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
