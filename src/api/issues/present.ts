// Issue views → the API's Issue shapes.
import type { Container } from '../../domain/context.js';
import type { IssueLinkView, IssueView, TimeStats } from '../../domain/issues/service.js';
import { humanDuration } from '../../domain/issues/time.js';
import { presentLabelBasic } from '../labels/present.js';
import { presentMilestone } from '../milestones/present.js';
import { presentUserBasic } from '../users/present.js';

export const presentTimeStats = (t: TimeStats) => ({
  time_estimate: t.time_estimate,
  total_time_spent: t.total_time_spent,
  human_time_estimate: humanDuration(t.time_estimate),
  human_total_time_spent: humanDuration(t.total_time_spent),
});

/** Checklist items of a description: `- [ ]` and `- [x]` at the start of a line. */
function tasksOf(description: string | null): { count: number; completed_count: number } {
  if (!description) return { count: 0, completed_count: 0 };
  const items = [...description.matchAll(/^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s/gm)];
  return { count: items.length, completed_count: items.filter((m) => m[1] !== ' ').length };
}

export function presentIssueBasic(c: Container, v: IssueView, withLabelDetails = false) {
  const r = v.row;
  const user = (u: typeof v.author) => (u ? presentUserBasic(c, u) : null);
  return {
    id: r.id,
    iid: r.iid,
    project_id: r.project_id,
    title: r.title,
    description: r.description,
    state: r.state,
    created_at: r.created_at,
    updated_at: r.updated_at,
    closed_at: r.closed_at,
    closed_by: user(v.closedBy),
    labels: withLabelDetails ? v.labels.map(presentLabelBasic) : v.labels.map((l) => l.title).sort(),
    milestone: v.milestone ? presentMilestone(c, v.milestone) : null,
    assignees: v.assignees.map((u) => presentUserBasic(c, u)),
    author: user(v.author),
    type: r.issue_type.toUpperCase(),
    assignee: v.assignees[0] ? presentUserBasic(c, v.assignees[0]) : null,
    user_notes_count: v.userNotesCount,
    merge_requests_count: v.mergeRequestsCount,
    upvotes: v.upvotes,
    downvotes: v.downvotes,
    due_date: r.due_date,
    confidential: r.confidential === 1,
    discussion_locked: r.discussion_locked === null ? null : r.discussion_locked === 1,
    issue_type: r.issue_type,
    web_url: `${c.config.externalUrl}/${v.project.full_path}/-/issues/${r.iid}`,
    time_stats: presentTimeStats({ time_estimate: r.time_estimate, total_time_spent: v.timeSpent }),
    task_completion_status: tasksOf(r.description),
    weight: r.weight,
  };
}

export function presentIssue(c: Container, v: IssueView, withLabelDetails = false) {
  const r = v.row;
  const api = `${c.config.externalUrl}/api/v4/projects/${r.project_id}`;
  const tasks = tasksOf(r.description);
  return {
    ...presentIssueBasic(c, v, withLabelDetails),
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: `${tasks.completed_count} of ${tasks.count} checklist item${tasks.count === 1 ? '' : 's'} completed` } : {}),
    _links: {
      self: `${api}/issues/${r.iid}`,
      notes: `${api}/issues/${r.iid}/notes`,
      award_emoji: `${api}/issues/${r.iid}/award_emoji`,
      project: api,
      closed_as_duplicate_of: null,
    },
    references: { short: `#${r.iid}`, relative: `#${r.iid}`, full: `${v.project.full_path}#${r.iid}` },
    severity: 'UNKNOWN',
    ...(v.subscribed !== undefined ? { subscribed: v.subscribed } : {}),
    moved_to_id: r.moved_to_id,
    service_desk_reply_to: null,
  };
}

export const presentLinkedIssue = (c: Container, l: IssueLinkView) => ({
  ...presentIssueBasic(c, l.issue),
  issue_link_id: l.linkId,
  link_type: l.linkType,
  link_created_at: l.createdAt,
  link_updated_at: l.updatedAt,
});
