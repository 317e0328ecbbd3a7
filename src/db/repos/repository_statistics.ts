// Cached repository figures of projects, and the activity timestamp a push moves.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface RepositoryStatisticsRow {
  projectId: number;
  commitCount: number;
  repositorySize: number;
  /** [name, share] pairs, largest share first. */
  languages: [string, number][];
  refreshedAt: string;
}

export async function repositoryStatisticsOf(db: Kysely<DB>, projectIds: number[]): Promise<Map<number, RepositoryStatisticsRow>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db.selectFrom('project_repository_statistics').selectAll().where('project_id', 'in', projectIds).execute();
  return new Map(
    rows.map((r) => [
      r.project_id,
      {
        projectId: r.project_id,
        commitCount: Number(r.commit_count),
        repositorySize: Number(r.repository_size),
        languages: JSON.parse(r.languages) as [string, number][],
        refreshedAt: r.refreshed_at,
      },
    ]),
  );
}

/** Inserts or replaces a project's figures (two refreshes at once: the last write wins, both are current). */
export async function saveRepositoryStatistics(db: Kysely<DB>, s: RepositoryStatisticsRow): Promise<void> {
  const values = {
    commit_count: s.commitCount,
    repository_size: s.repositorySize,
    languages: JSON.stringify(s.languages),
    refreshed_at: s.refreshedAt,
  };
  await db
    .insertInto('project_repository_statistics')
    .values({ project_id: s.projectId, ...values })
    .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
    .execute();
}

/** A push is project activity: last_activity_at moves (updated_at does not, as in the reference). */
export async function touchProjectActivity(db: Kysely<DB>, projectId: number, at: string): Promise<void> {
  await db.updateTable('projects').set({ last_activity_at: at }).where('id', '=', projectId).where('last_activity_at', '<', at).execute();
}

/** True when a job of this kind with exactly this payload waits or runs (idempotent enqueues). */
export async function pendingJobWithPayload(db: Kysely<DB>, kind: string, payload: string): Promise<boolean> {
  const row = await db
    .selectFrom('background_jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('payload', '=', payload)
    .where('state', '=', 'queued')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
