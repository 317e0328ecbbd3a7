// Cached figures of a project's repository: commit count and size for project `statistics`, and the
// language breakdown for GET /projects/:id/languages. Computing them reads the whole default branch,
// so they are computed once (on first use) and then refreshed by a job after pushes to the default
// branch, never per request. The same job keeps the repository's commit-graph current.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Container } from '../context.js';
import { findProjectById } from '../../db/repos/projects.js';
import {
  pendingJobWithPayload,
  repositoryStatisticsOf,
  saveRepositoryStatistics,
  type RepositoryStatisticsRow,
} from '../../db/repos/repository_statistics.js';
import { hasCommitGraph, writeCommitGraph } from '../../git/commit_graph.js';
import { treeLanguages } from '../../git/languages.js';
import { countCommits, repositorySize, packRefs } from '../../git/repository.js';
import { nowIso } from '../../shared/time.js';
import { repositoryDir } from './service.js';

export const REPOSITORY_REFRESH_JOB = 'repository_refresh';

/**
 * The refresh job, after refs moved: the repository's commit-graph is written again (commit lists
 * walk it instead of reading each commit), then its figures are recomputed. Idempotent.
 */
export async function runRepositoryRefresh(c: Container, projectId: number): Promise<void> {
  if (!(await findProjectById(c.db, projectId))) return;
  await writeCommitGraph(repositoryDir(c, projectId));
  await refreshRepositoryStatistics(c, projectId);
}

/** Recomputes and stores a project's figures from its repository; null when the project is gone. */
export async function refreshRepositoryStatistics(c: Container, projectId: number): Promise<RepositoryStatisticsRow | null> {
  const project = await findProjectById(c.db, projectId);
  if (!project) return null;
  const dir = repositoryDir(c, projectId);
  await packRefs(dir);
  const branch = project.default_branch ?? 'main';
  const row: RepositoryStatisticsRow = {
    projectId,
    commitCount: await countCommits(dir, `refs/heads/${branch}`),
    repositorySize: repositorySize(dir),
    languages: await treeLanguages(dir, `refs/heads/${branch}`),
    refreshedAt: nowIso(),
  };
  try {
    await saveRepositoryStatistics(c.db, row);
  } catch (e) {
    // The project went while git ran (its foreign key refuses the row): nothing to cache.
    if (!(await findProjectById(c.db, projectId))) return null;
    throw e;
  }
  return row;
}

/** Cached figures for projects; `computeMissing` computes (and caches) the absent ones now, else they are queued. */
export async function repositoryStatistics(
  c: Container,
  projectIds: number[],
  opts: { computeMissing: boolean },
): Promise<Map<number, RepositoryStatisticsRow>> {
  const found = await repositoryStatisticsOf(c.db, projectIds);
  for (const id of projectIds) {
    if (found.has(id)) continue;
    if (opts.computeMissing) {
      const row = await refreshRepositoryStatistics(c, id);
      if (row) found.set(id, row);
    } else await scheduleRepositoryRefresh(c, id);
  }
  return found;
}

/**
 * Queues the refresh that writes the repository's commit-graph when it has none yet (one made
 * before Anvil wrote them, or not refreshed since): walks through history read it instead of each
 * commit, and are many times faster on a long one.
 */
export async function ensureCommitGraph(c: Container, projectId: number, dir: string): Promise<void> {
  if (hasCommitGraph(dir)) return;
  // asked once a minute per node, not on every read while the job waits or runs
  const asked = graphAsked.get(dir);
  if (asked !== undefined && Date.now() - asked < GRAPH_ASK_MS) return;
  graphAsked.delete(dir);
  if (graphAsked.size >= 10_000) graphAsked.delete(graphAsked.keys().next().value!);
  graphAsked.set(dir, Date.now());
  await scheduleRepositoryRefresh(c, projectId);
}

const GRAPH_ASK_MS = 60_000;
const graphAsked = new Map<string, number>();

/** Queues a refresh unless one for this project is already waiting (a burst of pushes refreshes once). */
export async function scheduleRepositoryRefresh(c: Container, projectId: number, trx?: Kysely<DB>): Promise<void> {
  const payload = { projectId };
  if (await pendingJobWithPayload(trx ?? c.db, REPOSITORY_REFRESH_JOB, JSON.stringify(payload))) return;
  await c.queue.enqueue(REPOSITORY_REFRESH_JOB, payload, { trx });
}

/** The refresh job: idempotent (it recomputes from the repository as it is now). */
