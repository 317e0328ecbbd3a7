// What a merge request changes: its commits, its diff (whole, or a page of files), its versions
// (each with its own commits and diff), its participants, reviewers and pipelines.
import type { Container } from '../context.js';
import { diffsOf, findDiff, pagePipelinesFor, reviewersOf, usersOf, type MergeRequestDiffRow } from '../../db/repos/merge_requests.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUsersByIds, type UserRow } from '../../db/repos/users.js';
import { commitDiff, type FileDiff } from '../../git/commit_diff.js';
import { commitsBetween, type CommitInfo } from '../../git/objects.js';
import type { Actor } from '../auth/actor.js';
import { ciAccessFrom } from '../ci/policy.js';
import { forbidden, notFound } from '../errors.js';
import { getPipeline, pipelineError, type PipelineView } from '../ci/pipelines.js';
import { createMergeRequestPipeline } from './pipelines.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { repositoryDir } from '../repository/service.js';
import { headRef, refreshMergeRequest } from './refresh.js';
import { detailOf, findMergeRequestFor, type MergeRequestDetail } from './service.js';

/** The most commits a version lists (its diff is whole). */
const MAX_COMMITS = 1000;

const sliceOf = <T>(all: T[], page: PageRequest): PageResult<T> => {
  const start = page.kind === 'offset' ? (page.page - 1) * page.perPage : 0;
  return { items: all.slice(start, start + page.perPage), total: all.length, hasNext: start + page.perPage < all.length };
};

/** A version's commits, newest first. */
export async function versionCommits(c: Container, projectId: number, v: MergeRequestDiffRow): Promise<CommitInfo[]> {
  return commitsBetween(repositoryDir(c, projectId), v.head_commit_sha, v.start_commit_sha, MAX_COMMITS);
}

/** A version's diff: its head against its base (the merge base of the two branches when it was made). */
export async function versionDiffs(c: Container, projectId: number, v: MergeRequestDiffRow): Promise<FileDiff[]> {
  return v.base_commit_sha ? commitDiff(repositoryDir(c, projectId), v.head_commit_sha, v.base_commit_sha) : [];
}

export interface CommitsOf {
  project: ProjectRow;
  page: PageResult<CommitInfo>;
}

/** GET …/commits: the latest version's commits, newest first. */
export async function mergeRequestCommits(c: Container, actor: Actor | null, idOrPath: number | string, iid: number, page: PageRequest): Promise<CommitsOf> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const { diff } = await refreshMergeRequest(c, found.mr);
  return { project: found.project, page: sliceOf(diff ? await versionCommits(c, found.project.id, diff) : [], page) };
}

/** GET …/changes: the request with every changed file of its latest version. */
export async function mergeRequestChanges(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<MergeRequestDetail & { changes: FileDiff[] }> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const detail = await detailOf(c, actor, found);
  return { ...detail, changes: detail.diff ? await versionDiffs(c, found.project.id, detail.diff) : [] };
}

/** GET …/diffs: a page of the latest version's changed files. */
export async function mergeRequestDiffs(c: Container, actor: Actor | null, idOrPath: number | string, iid: number, page: PageRequest): Promise<PageResult<FileDiff>> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const { diff } = await refreshMergeRequest(c, found.mr);
  return sliceOf(diff ? await versionDiffs(c, found.project.id, diff) : [], page);
}

/** GET …/versions: every version, newest first. */
export async function mergeRequestVersions(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<MergeRequestDiffRow[]> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  await refreshMergeRequest(c, found.mr);
  return diffsOf(c.db, found.mr.id);
}

export interface VersionView {
  project: ProjectRow;
  version: MergeRequestDiffRow;
  commits: CommitInfo[];
  diffs: FileDiff[];
}

/** GET …/versions/:version_id: one version with its commits and diff. */
export async function mergeRequestVersion(c: Container, actor: Actor | null, idOrPath: number | string, iid: number, versionId: number): Promise<VersionView> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const version = await findDiff(c.db, found.mr.id, versionId);
  if (!version) throw notFound('Merge Request Diff');
  const [commits, diffs] = await Promise.all([versionCommits(c, found.project.id, version), versionDiffs(c, found.project.id, version)]);
  return { project: found.project, version, commits, diffs };
}

/** GET …/participants: the author, then assignees and reviewers, each once. */
export async function mergeRequestParticipants(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<UserRow[]> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const ids = [found.mr.author_id];
  for (const u of await usersOf(c.db, 'merge_request_assignees', [found.mr.id])) ids.push(u.user_id);
  for (const u of await usersOf(c.db, 'merge_request_reviewers', [found.mr.id])) ids.push(u.user_id);
  const unique = [...new Set(ids)];
  const users = new Map((await findUsersByIds(c.db, unique)).map((u) => [u.id, u] as const));
  return unique.flatMap((id) => (users.get(id) ? [users.get(id)!] : []));
}

export interface ReviewerView {
  user: UserRow;
  state: string;
  created_at: string;
}

/** GET …/reviewers. */
export async function mergeRequestReviewers(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<ReviewerView[]> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const rows = await reviewersOf(c.db, found.mr.id);
  const users = new Map((await findUsersByIds(c.db, rows.map((r) => r.user_id))).map((u) => [u.id, u] as const));
  return rows.flatMap((r) => (users.get(r.user_id) ? [{ user: users.get(r.user_id)!, state: r.state, created_at: r.created_at }] : []));
}

/** GET …/pipelines: pipelines of the source branch and of the request's head ref, newest first; 403 without read_pipeline. */
export async function mergeRequestPipelines(c: Container, actor: Actor | null, idOrPath: number | string, iid: number, page: PageRequest): Promise<{ project: ProjectRow; page: PageResult<PipelineRow> }> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  if (!ciAccessFrom(found.project, found.access).readPipelines) throw forbidden();
  const refs = found.mr.source_project_id === found.project.id ? [found.mr.source_branch, headRef(found.mr)] : [headRef(found.mr)];
  return { project: found.project, page: await pagePipelinesFor(c.db, found.project.id, refs, page) };
}

/** POST …/pipelines: 403 without create_pipeline; the reference's 400 when no pipeline can be made. */
export async function createPipelineFor(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<PipelineView> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  if (!ciAccessFrom(found.project, found.access).update) throw forbidden();
  const { mr, diff } = await refreshMergeRequest(c, found.mr);
  const outcome = await createMergeRequestPipeline(c, actor.user, found.project, mr, diff);
  if (!outcome) throw pipelineError('Merge request pipelines are not available for this merge request');
  if (outcome.kind === 'refused') throw pipelineError(outcome.message);
  return getPipeline(c, actor, found.project.id, outcome.pipeline.id);
}
