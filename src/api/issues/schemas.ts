// The Issue resource (the reference's Entities::Issue and IssueBasic, 15.x), time stats, issue links.
import { Type as T } from '@sinclair/typebox';
import { LabelBasic } from '../labels/schemas.js';
import { Milestone } from '../milestones/schemas.js';
import { DateOnly, Nullable, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const TimeStats = T.Object({
  time_estimate: T.Integer(),
  total_time_spent: T.Integer(),
  human_time_estimate: Nullable(T.String()),
  human_total_time_spent: Nullable(T.String()),
});

const basic = {
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Integer(),
  title: T.String(),
  description: Nullable(T.String()),
  state: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  closed_by: Nullable(UserBasic),
  labels: T.Union([T.Array(T.String()), T.Array(LabelBasic)]),
  milestone: Nullable(Milestone),
  assignees: T.Array(UserBasic),
  author: Nullable(UserBasic),
  type: T.String(),
  assignee: Nullable(UserBasic),
  user_notes_count: T.Integer(),
  merge_requests_count: T.Integer(),
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  due_date: Nullable(DateOnly),
  confidential: T.Boolean(),
  discussion_locked: Nullable(T.Boolean()),
  issue_type: T.String(),
  web_url: T.String(),
  time_stats: TimeStats,
  task_completion_status: T.Object({ count: T.Integer(), completed_count: T.Integer() }),
  weight: Nullable(T.Integer()),
};

export const IssueBasic = T.Object(basic);

export const Issue = T.Object({
  ...basic,
  has_tasks: T.Boolean(),
  task_status: T.Optional(T.String()),
  _links: T.Object({
    self: T.String(),
    notes: T.String(),
    award_emoji: T.String(),
    project: T.String(),
    closed_as_duplicate_of: Nullable(T.String()),
  }),
  references: T.Object({ short: T.String(), relative: T.String(), full: T.String() }),
  severity: T.String(),
  // Only on a single issue.
  subscribed: T.Optional(T.Boolean()),
  moved_to_id: Nullable(T.Integer()),
  service_desk_reply_to: Nullable(T.String()),
});

export const IssueStatistics = T.Object({
  statistics: T.Object({ counts: T.Object({ all: T.Integer(), closed: T.Integer(), opened: T.Integer() }) }),
});

/** An issue as the links list shows it: the issue with the link's id, type and times. */
export const LinkedIssue = T.Object({
  ...basic,
  issue_link_id: T.Integer(),
  link_type: T.String(),
  link_created_at: Timestamp,
  link_updated_at: Timestamp,
});

export const IssueLink = T.Object({ source_issue: Issue, target_issue: Issue, link_type: T.String() });
