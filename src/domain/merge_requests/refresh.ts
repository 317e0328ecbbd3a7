// Keeping a merge request in step with its branches: its head ref (refs/merge-requests/<iid>/head,
// fetched from a fork when the source is one), a new diff version whenever the source head or the
// target branch moved (old versions stay readable: their heads are kept around), and its merge
// status (a `git merge-tree` of the two heads). Pushes queue MERGE_REQUEST_REFRESH_JOB; reads of a
// request also bring it in step (cheap: two ref reads when nothing moved).
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import type { DB } from '../../db/schema.js';
import {
  findMergeRequestById, insertDiff, updateMergeRequest, updateMergeRequestIn, type MergeRequestDiffRow, type MergeRequestRow,
} from '../../db/repos/merge_requests.js';
import { findDiff } from '../../db/repos/merge_requests.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { diffPaths } from '../../git/refs.js';
import { fetchRef, keepAround, mergeTrees, setInternalRef } from '../../git/merges.js';
import { countCommits, mergeBase, resolveRevision } from '../../git/repository.js';
import { nowIso } from '../../shared/time.js';
import { repositoryDir } from '../repository/service.js';
import type { PublishedRefChange } from '../repository/ref_changes.js';

export const MERGE_REQUEST_REFRESH_JOB = 'merge_request_refresh';

export const headRef = (mr: Pick<MergeRequestRow, 'iid'>) => `refs/merge-requests/${mr.iid}/head`;
export const mergeRef = (mr: Pick<MergeRequestRow, 'iid'>) => `refs/merge-requests/${mr.iid}/merge`;

/** Past this many changed files a version's size reads `1000+`, as the reference caps it. */
const SIZE_CAP = 1000;

/** The source branch's head, copied into the target repository's head ref; null when the branch is gone. */
async function sourceHead(c: Container, mr: MergeRequestRow): Promise<string | null> {
  const dir = repositoryDir(c, mr.project_id);
  const branch = `refs/heads/${mr.source_branch}`;
  if (mr.source_project_id === mr.project_id) {
    const sha = await resolveRevision(dir, branch);
    if (sha && (await resolveRevision(dir, headRef(mr))) !== sha) await setInternalRef(dir, headRef(mr), sha);
    return sha;
  }
  const sourceDir = repositoryDir(c, mr.source_project_id);
  const sha = await resolveRevision(sourceDir, branch);
  if (!sha) return null;
  if ((await resolveRevision(dir, headRef(mr))) === sha) return sha;
  return fetchRef(dir, sourceDir, branch, headRef(mr));
}

/** A new version of the request's diff for these heads. */
async function writeVersion(c: Container, mr: MergeRequestRow, head: string, target: string | null): Promise<MergeRequestDiffRow> {
  const dir = repositoryDir(c, mr.project_id);
  const base = target ? await mergeBase(dir, target, head) : null;
  const paths = base ? ((await diffPaths(dir, base, head)) ?? []) : [];
  const commits = await countCommits(dir, head, target);
  await keepAround(dir, head);
  if (base) await keepAround(dir, base);
  return insertDiff(c.db, {
    merge_request_id: mr.id,
    state: paths.length || commits ? 'collected' : 'empty',
    base_commit_sha: base,
    head_commit_sha: head,
    start_commit_sha: target,
    real_size: paths.length > SIZE_CAP ? `${SIZE_CAP}+` : String(paths.length),
    commits_count: commits,
    created_at: nowIso(),
  });
}

/** The merge status of two heads: whether git merges them without a conflict. */
async function mergeability(dir: string, target: string | null, head: string | null): Promise<'can_be_merged' | 'cannot_be_merged'> {
  if (!target || !head) return 'cannot_be_merged';
  const merged = await mergeTrees(dir, target, head);
  return merged && merged.conflicts.length === 0 ? 'can_be_merged' : 'cannot_be_merged';
}

export interface Refreshed {
  mr: MergeRequestRow;
  diff: MergeRequestDiffRow | null;
  /** The source head moved (a new push to the source branch). */
  sourceMoved: boolean;
}

/**
 * Brings an open request in step with its branches: a new version when either head moved, then
 * its merge status when unchecked. Closed and merged requests keep what they had.
 */
export async function refreshMergeRequest(c: Container, mr: MergeRequestRow): Promise<Refreshed> {
  const latest = mr.latest_diff_id !== null ? ((await findDiff(c.db, mr.id, mr.latest_diff_id)) ?? null) : null;
  if (mr.state !== 'opened') return { mr, diff: latest, sourceMoved: false };
  const dir = repositoryDir(c, mr.project_id);
  const [head, target] = await Promise.all([sourceHead(c, mr), resolveRevision(dir, `refs/heads/${mr.target_branch}`)]);
  let diff = latest;
  let sourceMoved = false;
  const patch: Parameters<typeof updateMergeRequest>[2] = {};
  if (head && (!latest || latest.head_commit_sha !== head || latest.start_commit_sha !== target)) {
    sourceMoved = latest !== null && latest.head_commit_sha !== head;
    diff = await writeVersion(c, mr, head, target);
    patch.latest_diff_id = diff.id;
    patch.merge_status = 'unchecked';
  }
  const status = patch.merge_status ?? mr.merge_status;
  if (status === 'unchecked' || status === 'checking' || status === 'cannot_be_merged_recheck') {
    patch.merge_status = await mergeability(dir, target, head);
  }
  if (Object.keys(patch).length === 0) return { mr, diff, sourceMoved };
  // Only while still open: a merge or close that raced this keeps its own state.
  const updated = await updateMergeRequestIn(c.db, mr.id, 'opened', patch);
  return { mr: updated ?? (await findMergeRequestById(c.db, mr.id)) ?? mr, diff, sourceMoved };
}

/** Queues the refresh of the requests these ref changes touch (in the publishing transaction). */
export async function enqueueMergeRequestRefresh(c: Container, actorId: number, project: ProjectRow, changes: PublishedRefChange[], trx: Kysely<DB>): Promise<void> {
  const branches = [...new Set(changes.filter((ch) => ch.ref.startsWith('refs/heads/')).map((ch) => ch.ref.slice('refs/heads/'.length)))];
  if (branches.length === 0) return;
  for (let i = 0; i < branches.length; i += 50) {
    await c.queue.enqueue(MERGE_REQUEST_REFRESH_JOB, { projectId: project.id, userId: actorId, branches: branches.slice(i, i + 50) }, { trx, maxAttempts: 5 });
  }
}
