// Merge request views → the API's Merge request shapes.
import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { MergeRequestDiffRow } from '../../db/repos/merge_requests.js';
import { detailedStatus, isDraft, type MergeRequestDetail, type MergeRequestView } from '../../domain/merge_requests/service.js';
import { presentPipeline } from '../pipelines/present.js';
import { presentUserBasic } from '../users/present.js';
import type { MergeRequest, MergeRequestBasic, MergeRequestSimple } from './schemas.js';

export const mergeRequestWebUrl = (c: Container, fullPath: string, iid: number) => `${c.config.externalUrl}/${fullPath}/-/merge_requests/${iid}`;

/** Task list items of a description (`- [ ]`, `* [x]`, `1. [ ]`), and how many are done. */
export function taskCompletion(description: string | null): { count: number; completed_count: number } {
  let count = 0;
  let done = 0;
  for (const m of (description ?? '').matchAll(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[([ xX~])\]/gm)) {
    count++;
    if (m[1] !== ' ') done++;
  }
  return { count, completed_count: done };
}

/** A duration in seconds as the reference writes it (`1h 30m`): weeks of 5 days, days of 8 hours. */
function humanTime(seconds: number): string | null {
  if (seconds <= 0) return null;
  const units: [string, number][] = [['mo', 4 * 5 * 8 * 3600], ['w', 5 * 8 * 3600], ['d', 8 * 3600], ['h', 3600], ['m', 60], ['s', 1]];
  const parts: string[] = [];
  let left = seconds;
  for (const [u, n] of units) {
    const k = Math.floor(left / n);
    if (k > 0) parts.push(`${k}${u}`);
    left -= k * n;
  }
  return parts.join(' ');
}

export function presentMergeRequestSimple(c: Container, v: MergeRequestView): Static<typeof MergeRequestSimple> {
  const { mr, project } = v;
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    web_url: mergeRequestWebUrl(c, project.full_path, mr.iid),
  };
}

/** The list form; `detailed` is the detailed_merge_status when the caller computed it (else from the row alone). */
export function presentMergeRequestBasic(c: Container, v: MergeRequestView, detailed?: string): Static<typeof MergeRequestBasic> {
  const { mr, project, users } = v;
  const user = (id: number | null) => (id !== null && users.get(id) ? presentUserBasic(c, users.get(id)!) : null);
  const assignees = v.assigneeIds.flatMap((id) => (users.get(id) ? [presentUserBasic(c, users.get(id)!)] : []));
  const draft = isDraft(mr.title);
  const fork = mr.source_project_id !== mr.project_id;
  const merger = user(mr.merged_by_id);
  return {
    ...presentMergeRequestSimple(c, v),
    merged_by: merger,
    merge_user: merger ?? user(mr.merge_user_id),
    merged_at: mr.merged_at,
    closed_by: user(mr.closed_by_id),
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author: user(mr.author_id) ?? { id: mr.author_id, username: 'ghost', name: 'Ghost User', state: 'active', avatar_url: null, web_url: `${c.config.externalUrl}/ghost` },
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: v.reviewerIds.flatMap((id) => (users.get(id) ? [presentUserBasic(c, users.get(id)!)] : [])),
    source_project_id: mr.source_project_id,
    target_project_id: mr.project_id,
    labels: [],
    draft,
    work_in_progress: draft,
    milestone: null,
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds === 1,
    merge_status: mr.merge_status === 'checking' ? 'unchecked' : mr.merge_status,
    detailed_merge_status: detailed ?? detailedStatus(project, mr, v.diff, null, true),
    sha: v.diff?.head_commit_sha ?? null,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    discussion_locked: mr.discussion_locked === null ? null : mr.discussion_locked === 1,
    should_remove_source_branch: mr.should_remove_source_branch === null ? null : mr.should_remove_source_branch === 1,
    force_remove_source_branch: mr.force_remove_source_branch === 1,
    ...(fork ? { allow_collaboration: mr.allow_collaboration === 1, allow_maintainer_to_push: mr.allow_collaboration === 1 } : {}),
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${project.full_path}!${mr.iid}` },
    web_url: mergeRequestWebUrl(c, project.full_path, mr.iid),
    time_stats: {
      time_estimate: mr.time_estimate,
      total_time_spent: mr.total_time_spent,
      human_time_estimate: humanTime(mr.time_estimate),
      human_total_time_spent: humanTime(mr.total_time_spent),
    },
    squash: mr.squash === 1,
    task_completion_status: taskCompletion(mr.description),
    has_conflicts: mr.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: true,
  };
}

export interface DetailOptions {
  includeRebaseInProgress?: boolean;
  divergedCommitsCount?: number;
}

export function presentMergeRequest(c: Container, d: MergeRequestDetail, o: DetailOptions = {}): Static<typeof MergeRequest> {
  const basic = presentMergeRequestBasic(c, d, d.detailedMergeStatus);
  const pipeline = d.headPipeline ? presentPipeline(c, d.headPipeline) : null;
  return Object.assign(basic, {
    subscribed: false,
    changes_count: d.diff?.real_size ?? null,
    latest_build_started_at: d.headPipeline?.pipeline.started_at ?? null,
    latest_build_finished_at: d.headPipeline?.pipeline.finished_at ?? null,
    first_deployed_to_production_at: null,
    pipeline: pipeline ? { id: pipeline.id, iid: pipeline.iid, project_id: pipeline.project_id, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status, source: pipeline.source, created_at: pipeline.created_at, updated_at: pipeline.updated_at, web_url: pipeline.web_url } : null,
    ...(d.hidePipeline ? {} : { head_pipeline: pipeline }),
    diff_refs: d.diff ? { base_sha: d.diff.base_commit_sha, head_sha: d.diff.head_commit_sha, start_sha: d.diff.start_commit_sha } : null,
    merge_error: d.mr.merge_error,
    ...(o.includeRebaseInProgress ? { rebase_in_progress: false } : {}),
    ...(o.divergedCommitsCount !== undefined ? { diverged_commits_count: o.divergedCommitsCount } : {}),
    user: { can_merge: d.canMerge },
  });
}

export const presentVersion = (v: MergeRequestDiffRow) => ({
  id: v.id,
  head_commit_sha: v.head_commit_sha,
  base_commit_sha: v.base_commit_sha,
  start_commit_sha: v.start_commit_sha,
  created_at: v.created_at,
  merge_request_id: v.merge_request_id,
  state: v.state,
  real_size: v.real_size,
  patch_id_sha: null,
});
