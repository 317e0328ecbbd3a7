// The Merge request resources: the reference's Entities::MergeRequestSimple, MergeRequestBasic and
// MergeRequest (15.x, with detailed_merge_status), in their field order; and the list parameters.
import { Type as T } from '@sinclair/typebox';
import { Pipeline, PipelineBasic } from '../pipelines/schemas.js';
import { CommaList, IdOrPath, Nullable, OneOf, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const MergeRequestSimple = T.Object({
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Integer(),
  title: T.String(),
  description: Nullable(T.String()),
  state: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  web_url: T.String(),
});

/** Milestones are wired to requests once milestones exist; until then always null. */
const Milestone = T.Object({
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Optional(T.Integer()),
  group_id: T.Optional(T.Integer()),
  title: T.String(),
  description: Nullable(T.String()),
  state: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  due_date: Nullable(T.String()),
  start_date: Nullable(T.String()),
  expired: Nullable(T.Boolean()),
  web_url: T.String(),
});

const basicFields = {
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Integer(),
  title: T.String(),
  description: Nullable(T.String()),
  state: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  merged_by: Nullable(UserBasic),
  merge_user: Nullable(UserBasic),
  merged_at: Nullable(Timestamp),
  closed_by: Nullable(UserBasic),
  closed_at: Nullable(Timestamp),
  target_branch: T.String(),
  source_branch: T.String(),
  user_notes_count: T.Integer(),
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  author: UserBasic,
  assignees: T.Array(UserBasic),
  assignee: Nullable(UserBasic),
  reviewers: T.Array(UserBasic),
  source_project_id: T.Integer(),
  target_project_id: T.Integer(),
  labels: T.Array(T.String()),
  draft: T.Boolean(),
  work_in_progress: T.Boolean(),
  milestone: Nullable(Milestone),
  merge_when_pipeline_succeeds: T.Boolean(),
  merge_status: T.String(),
  detailed_merge_status: T.String(),
  sha: Nullable(T.String()),
  merge_commit_sha: Nullable(T.String()),
  squash_commit_sha: Nullable(T.String()),
  discussion_locked: Nullable(T.Boolean()),
  should_remove_source_branch: Nullable(T.Boolean()),
  force_remove_source_branch: T.Boolean(),
  /** Only on a request from a fork. */
  allow_collaboration: T.Optional(T.Boolean()),
  allow_maintainer_to_push: T.Optional(T.Boolean()),
  reference: T.String(),
  references: T.Object({ short: T.String(), relative: T.String(), full: T.String() }),
  web_url: T.String(),
  time_stats: T.Object({
    time_estimate: T.Integer(),
    total_time_spent: T.Integer(),
    human_time_estimate: Nullable(T.String()),
    human_total_time_spent: Nullable(T.String()),
  }),
  squash: T.Boolean(),
  task_completion_status: T.Object({ count: T.Integer(), completed_count: T.Integer() }),
  has_conflicts: T.Boolean(),
  blocking_discussions_resolved: T.Boolean(),
};

export const MergeRequestBasic = T.Object(basicFields);

export const DiffRefs = T.Object({ base_sha: Nullable(T.String()), head_sha: T.String(), start_sha: Nullable(T.String()) });

export const MergeRequest = T.Object({
  ...basicFields,
  subscribed: T.Boolean(),
  changes_count: Nullable(T.String()),
  latest_build_started_at: Nullable(Timestamp),
  latest_build_finished_at: Nullable(Timestamp),
  first_deployed_to_production_at: Nullable(Timestamp),
  pipeline: Nullable(PipelineBasic),
  /** Only for callers who may read the project's pipelines. */
  head_pipeline: T.Optional(Nullable(Pipeline)),
  diff_refs: Nullable(DiffRefs),
  merge_error: Nullable(T.String()),
  rebase_in_progress: T.Optional(T.Boolean()),
  diverged_commits_count: T.Optional(T.Integer()),
  user: T.Object({ can_merge: T.Boolean() }),
});

/** A list item: the basic form, or the simple one with `view=simple` (its fields are the basic form's first ones). */
export const MergeRequestListItem = T.Object({ ...MergeRequestSimple.properties, ...T.Partial(MergeRequestBasic).properties, ...MergeRequestSimple.properties });

export const LIST_PARAMS = {
  state: T.Optional(OneOf(['opened', 'closed', 'locked', 'merged', 'all'] as const)),
  order_by: T.Optional(OneOf(['created_at', 'updated_at', 'title'] as const)),
  sort: T.Optional(OneOf(['asc', 'desc'] as const)),
  milestone: T.Optional(T.String()),
  view: T.Optional(OneOf(['simple'] as const)),
  labels: T.Optional(CommaList(T.String())),
  with_labels_details: T.Optional(T.Boolean()),
  with_merge_status_recheck: T.Optional(T.Boolean()),
  created_after: T.Optional(T.String()),
  created_before: T.Optional(T.String()),
  updated_after: T.Optional(T.String()),
  updated_before: T.Optional(T.String()),
  scope: T.Optional(OneOf(['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const)),
  author_id: T.Optional(T.Integer()),
  author_username: T.Optional(T.String()),
  assignee_id: T.Optional(T.String()),
  assignee_username: T.Optional(CommaList(T.String())),
  reviewer_id: T.Optional(T.String()),
  reviewer_username: T.Optional(T.String()),
  my_reaction_emoji: T.Optional(T.String()),
  source_branch: T.Optional(T.String()),
  target_branch: T.Optional(T.String()),
  search: T.Optional(T.String()),
  in: T.Optional(T.String()),
  wip: T.Optional(OneOf(['yes', 'no'] as const)),
  not: T.Optional(T.Record(T.String(), T.Any())),
  iids: T.Optional(T.Array(T.Integer())),
  non_archived: T.Optional(T.Boolean()),
};

export const LIST_RULES = {
  mutuallyExclusive: [
    ['author_id', 'author_username'],
    ['assignee_id', 'assignee_username'],
    ['reviewer_id', 'reviewer_username'],
  ],
} as const;

export const MergeRequestParams = T.Object({ id: IdOrPath, merge_request_iid: T.Integer() });

const writeFields = {
  description: T.Optional(T.String()),
  assignee_id: T.Optional(T.Integer()),
  assignee_ids: T.Optional(CommaList(T.Integer())),
  reviewer_ids: T.Optional(CommaList(T.Integer())),
  labels: T.Optional(CommaList(T.String())),
  milestone_id: T.Optional(T.Integer()),
  remove_source_branch: T.Optional(T.Boolean()),
  allow_collaboration: T.Optional(T.Boolean()),
  allow_maintainer_to_push: T.Optional(T.Boolean()),
  squash: T.Optional(T.Boolean()),
};

export const CreateParams = T.Object({
  id: IdOrPath,
  title: T.String(),
  source_branch: T.String(),
  target_branch: T.String(),
  target_project_id: T.Optional(T.Integer()),
  ...writeFields,
});

export const UPDATE_AT_LEAST_ONE = [
  'assignee_id', 'assignee_ids', 'reviewer_ids', 'description', 'labels', 'add_labels', 'remove_labels', 'milestone_id', 'remove_source_branch',
  'allow_collaboration', 'allow_maintainer_to_push', 'squash', 'state_event', 'target_branch', 'title', 'discussion_locked',
] as const;

export const UpdateParams = T.Object({
  id: IdOrPath,
  merge_request_iid: T.Integer(),
  title: T.Optional(T.String()),
  target_branch: T.Optional(T.String()),
  state_event: T.Optional(OneOf(['close', 'reopen'] as const)),
  add_labels: T.Optional(CommaList(T.String())),
  remove_labels: T.Optional(CommaList(T.String())),
  discussion_locked: T.Optional(T.Boolean()),
  /** Anvil extension: sets or clears the Draft: prefix of the title. */
  draft: T.Optional(T.Boolean()),
  ...writeFields,
});

export const MergeParams = T.Object({
  id: IdOrPath,
  merge_request_iid: T.Integer(),
  merge_commit_message: T.Optional(T.String()),
  squash_commit_message: T.Optional(T.String()),
  squash: T.Optional(T.Boolean()),
  should_remove_source_branch: T.Optional(T.Boolean()),
  merge_when_pipeline_succeeds: T.Optional(T.Boolean()),
  sha: T.Optional(T.String()),
});

/** A version of a request's diff (the reference's MergeRequestDiff). */
export const Version = T.Object({
  id: T.Integer(),
  head_commit_sha: T.String(),
  base_commit_sha: Nullable(T.String()),
  start_commit_sha: Nullable(T.String()),
  created_at: Timestamp,
  merge_request_id: T.Integer(),
  state: T.String(),
  real_size: Nullable(T.String()),
  patch_id_sha: Nullable(T.String()),
});

export const Reviewer = T.Object({ user: UserBasic, state: T.String(), created_at: Timestamp });
