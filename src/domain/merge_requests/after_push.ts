// After a push: the merge requests from and into the branches that moved are brought in step
// (MERGE_REQUEST_REFRESH_JOB, queued by the ref-change publication).
import type { Container } from '../context.js';
import { openFromBranches, openIntoBranches, updateMergeRequestIn } from '../../db/repos/merge_requests.js';
import { findProjectById } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import { isAncestor, resolveRevision, ZERO_SHA } from '../../git/repository.js';
import { nowIso } from '../../shared/time.js';
import { repositoryDir } from '../repository/service.js';
import { createMergeRequestPipeline } from './pipelines.js';
import { refreshMergeRequest } from './refresh.js';

/**
 * The refresh job: requests from the pushed branches (their new versions; a push cancels a
 * waiting merge) and into them (new versions; a request whose head the target now contains was
 * merged by hand, as the reference marks it).
 */
export async function runMergeRequestRefresh(c: Container, payload: { projectId: number; userId: number; branches: string[] }): Promise<void> {
  const project = await findProjectById(c.db, Number(payload.projectId));
  if (!project) return;
  const branches = Array.isArray(payload.branches) ? payload.branches.filter((b): b is string => typeof b === 'string') : [];
  const dir = repositoryDir(c, project.id);
  const pusher = await findUserById(c.db, Number(payload.userId));
  for (const mr of await openFromBranches(c.db, project.id, branches)) {
    const r = await refreshMergeRequest(c, mr);
    // a new head needs a pipeline of its own: a merge waiting for the old one's stops waiting
    if (r.sourceMoved && r.mr.merge_when_pipeline_succeeds === 1) {
      await updateMergeRequestIn(c.db, mr.id, 'opened', { merge_when_pipeline_succeeds: 0, merge_params: null, updated_at: nowIso() });
    }
    if (r.sourceMoved && pusher) await createMergeRequestPipeline(c, pusher, project, r.mr, r.diff);
  }
  for (const mr of await openIntoBranches(c.db, project.id, branches)) {
    const r = await refreshMergeRequest(c, mr);
    const head = r.diff?.head_commit_sha;
    const target = await resolveRevision(dir, `refs/heads/${mr.target_branch}`);
    if (head && target && head !== ZERO_SHA && (await isAncestor(dir, head, target))) {
      const now = nowIso();
      await updateMergeRequestIn(c.db, mr.id, 'opened', { state: 'merged', merged_at: now, merged_by_id: pusher?.id ?? null, merge_user_id: pusher?.id ?? null, merge_status: 'can_be_merged', updated_at: now });
    }
  }
}
