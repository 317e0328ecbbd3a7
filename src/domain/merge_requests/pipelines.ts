// Merge request pipelines (source `merge_request_event`): planned at the request's head on
// refs/merge-requests/:iid/head, so only jobs whose rules (or `only: [merge_requests]`) ask for
// them run; the variables are the CI_MERGE_REQUEST_* ones (ci/variables.ts). Made when a request
// opens, when its source is pushed, and on POST …/pipelines. A request from a fork gets none:
// its code would run with the target project's secrets.
import type { Container } from '../context.js';
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/repos/merge_requests.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { UserRow } from '../../db/repos/users.js';
import { diffPaths } from '../../git/refs.js';
import { ZERO_SHA } from '../../git/repository.js';
import { planAndCreate } from '../ci/pipelines.js';
import { repositoryDir } from '../repository/service.js';
import { headRef } from './refresh.js';

type Outcome = Awaited<ReturnType<typeof planAndCreate>>;

/** Plans and creates the request's pipeline at its latest version's head; null when none can be made. */
export async function createMergeRequestPipeline(c: Container, user: UserRow, project: ProjectRow, mr: MergeRequestRow, diff: MergeRequestDiffRow | null): Promise<Outcome | null> {
  if (mr.source_project_id !== project.id || !diff || mr.state !== 'opened') return null;
  if (project.builds_access_level === 'disabled' || project.archived === 1) return null;
  const dir = repositoryDir(c, project.id);
  return planAndCreate(c, {
    project,
    ref: { ref: headRef(mr), tag: false, sha: diff.head_commit_sha },
    beforeSha: ZERO_SHA,
    source: 'merge_request_event',
    user,
    variables: [],
    // `changes:` of a merge request pipeline compare with the target branch
    changedPaths: diff.base_commit_sha ? await diffPaths(dir, diff.base_commit_sha, diff.head_commit_sha) : null,
    saveOnErrors: true,
  });
}
