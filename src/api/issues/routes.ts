// Issues: everyone's, a group's and a project's lists, statistics, and one issue's operations.
import { Type as T, type TSchema } from '@sinclair/typebox';
import {
  addSpentTime, cloneIssue, issuesOfMilestone, createIssue, createIssueLink, deleteIssue, deleteIssueLinkById, getIssue, getIssueById, issueParticipants, issueStatistics,
  issueTimeStats, listIssueLinks, listIssues, moveIssue, reorderIssue, resetSpentTime, setTimeEstimate, subscribeIssue, updateIssue,
  ISSUE_ORDERS, type IssueInput, type IssueListInput, type IssueListWhere,
} from '../../domain/issues/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { BlankClears, CommaList, IdOrPath, NullClears, OneOf } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';
import { presentUserBasic } from '../users/present.js';
import { presentIssue, presentIssueBasic, presentLinkedIssue, presentTimeStats } from './present.js';
import { Issue, IssueBasic, IssueLink, IssueStatistics, LinkedIssue, TimeStats } from './schemas.js';

const TAG = 'issues';

const filters: Record<string, TSchema> = {
  state: T.Optional(OneOf(['opened', 'closed', 'all'] as const)),
  labels: T.Optional(CommaList(T.String())),
  with_labels_details: T.Optional(T.Boolean({ default: false })),
  milestone: T.Optional(T.String()),
  milestone_id: T.Optional(T.String()),
  scope: T.Optional(OneOf(['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const)),
  author_id: T.Optional(T.Integer()),
  author_username: T.Optional(T.String()),
  assignee_id: T.Optional(T.Union([T.Integer(), OneOf(['None', 'Any', 'none', 'any'] as const)])),
  assignee_username: T.Optional(T.Array(T.String())),
  iids: T.Optional(CommaList(T.Integer())),
  search: T.Optional(T.String()),
  in: T.Optional(T.String()),
  confidential: T.Optional(T.Boolean()),
  issue_type: T.Optional(OneOf(['issue', 'incident', 'test_case'] as const)),
  created_after: T.Optional(T.String({ format: 'date-time' })),
  created_before: T.Optional(T.String({ format: 'date-time' })),
  updated_after: T.Optional(T.String({ format: 'date-time' })),
  updated_before: T.Optional(T.String({ format: 'date-time' })),
  due_date: T.Optional(OneOf(['0', 'any', 'today', 'tomorrow', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] as const)),
  not: T.Optional(
    T.Object({
      labels: T.Optional(CommaList(T.String())),
      milestone: T.Optional(T.String()),
      author_id: T.Optional(T.Integer()),
      author_username: T.Optional(T.String()),
      assignee_id: T.Optional(T.Integer()),
      assignee_username: T.Optional(T.Array(T.String())),
      iids: T.Optional(CommaList(T.Integer())),
    }),
  ),
};

const ordering: Record<string, TSchema> = {
  order_by: T.Optional(OneOf(ISSUE_ORDERS)),
  sort: T.Optional(OneOf(['asc', 'desc'] as const)),
};

const listInput = (input: Record<string, unknown>): IssueListInput => ({
  ...(input as IssueListInput),
  assignee_id: input.assignee_id === undefined ? undefined : String(input.assignee_id),
});

function lists(where: 'all' | 'project' | 'group') {
  const base = where === 'all' ? '/issues' : `/${where}s/:id/issues`;
  const idParam: Record<string, TSchema> = where === 'all' ? {} : { id: IdOrPath };
  const at = (input: { id?: number | string }): IssueListWhere => (where === 'all' ? { type: 'all' } : { type: where, idOrPath: input.id! });
  return [
    route({
      method: 'GET',
      path: base,
      auth: 'optional',
      tag: TAG,
      summary: where === 'all' ? "Issues the caller may see (scope created_by_me by default; anonymous callers only with scope=all)" : `A ${where}'s issues`,
      params: T.Object({ ...idParam, ...filters, ...ordering, ...(where !== 'project' ? { non_archived: T.Optional(T.Boolean()) } : {}) }),
      response: Issue,
      paginated: true,
      keyset: (input) => (input.order_by ?? 'created_at') === 'created_at',
      handler: async ({ c, actor, input, page }) => {
        const i = input as Record<string, unknown> & { id?: number | string; with_labels_details?: boolean };
        return mapPage(await listIssues(c, actor, at(i), listInput(i), page), (v) => presentIssue(c, v, i.with_labels_details));
      },
    }),
    route({
      method: 'GET',
      path: where === 'all' ? '/issues_statistics' : `/${where}s/:id/issues_statistics`,
      auth: 'optional',
      tag: TAG,
      summary: 'How many issues the filters match: all, closed, opened',
      params: T.Object({ ...idParam, ...filters }),
      response: IssueStatistics,
      handler: async ({ c, actor, input }) => {
        const i = input as Record<string, unknown> & { id?: number | string };
        return { statistics: { counts: await issueStatistics(c, actor, at(i), listInput(i)) } };
      },
    }),
  ];
}

const editable = {
  description: T.Optional(T.String()),
  confidential: T.Optional(T.Boolean()),
  assignee_id: T.Optional(NullClears(T.Integer())),
  assignee_ids: T.Optional(NullClears(CommaList(T.Integer()))),
  milestone_id: T.Optional(NullClears(T.Integer())),
  labels: T.Optional(BlankClears(CommaList(T.String()))),
  due_date: T.Optional(NullClears(T.String())),
  weight: T.Optional(NullClears(T.Integer({ minimum: 0 }))),
  issue_type: T.Optional(OneOf(['issue', 'incident', 'test_case'] as const)),
  discussion_locked: T.Optional(T.Boolean()),
};

const one = { id: IdOrPath, issue_iid: T.Integer() };
const ISSUE = '/projects/:id/issues/:issue_iid';

const milestoneIssueRoutes = (['project', 'group'] as const).map((type) =>
  route({
    method: 'GET',
    path: `/${type}s/:id/milestones/:milestone_id/issues`,
    tag: TAG,
    summary: `The issues of a ${type} milestone`,
    params: T.Object({ id: IdOrPath, milestone_id: T.Integer() }),
    response: IssueBasic,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await issuesOfMilestone(c, actor, type, input.id, input.milestone_id, page), (v) => presentIssueBasic(c, v)),
  }),
);

export const issueRoutes = [
  ...milestoneIssueRoutes,
  ...lists('all'),
  ...lists('group'),
  ...lists('project'),
  route({
    method: 'GET',
    path: '/issues/:id',
    admin: true,
    tag: TAG,
    summary: 'One issue by its global id (administrators)',
    params: T.Object({ id: T.Integer() }),
    response: Issue,
    handler: async ({ c, actor, input }) => presentIssue(c, await getIssueById(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: ISSUE,
    auth: 'optional',
    tag: TAG,
    summary: 'One issue of a project',
    params: T.Object(one),
    response: Issue,
    handler: async ({ c, actor, input }) => presentIssue(c, await getIssue(c, actor, input.id, input.issue_iid)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/issues',
    tag: TAG,
    summary: 'Open an issue (iid and created_at for administrators and owners)',
    params: T.Object({
      id: IdOrPath,
      title: T.String(),
      iid: T.Optional(T.Integer({ minimum: 1 })),
      created_at: T.Optional(T.String({ format: 'date-time' })),
      merge_request_to_resolve_discussions_of: T.Optional(T.Integer()),
      discussion_to_resolve: T.Optional(T.String()),
      ...editable,
    }),
    response: Issue,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentIssue(c, await createIssue(c, actor, id, rest as IssueInput));
    },
  }),
  route({
    method: 'PUT',
    path: ISSUE,
    tag: TAG,
    summary: 'Change an issue; state_event closes or reopens it',
    params: T.Object({
      ...one,
      title: T.Optional(T.String()),
      add_labels: T.Optional(CommaList(T.String())),
      remove_labels: T.Optional(CommaList(T.String())),
      state_event: T.Optional(OneOf(['close', 'reopen'] as const)),
      updated_at: T.Optional(T.String({ format: 'date-time' })),
      ...editable,
    }),
    paramRules: {
      atLeastOneOf: [[
        'assignee_id', 'assignee_ids', 'confidential', 'created_at', 'description', 'discussion_locked', 'due_date', 'labels', 'add_labels',
        'remove_labels', 'milestone_id', 'state_event', 'title', 'issue_type', 'weight',
      ]],
    },
    response: Issue,
    handler: async ({ c, actor, input }) => {
      const { id, issue_iid, ...rest } = input;
      return presentIssue(c, await updateIssue(c, actor, id, issue_iid, rest as IssueInput));
    },
  }),
  route({
    method: 'DELETE',
    path: ISSUE,
    tag: TAG,
    summary: 'Delete an issue (owners and administrators)',
    params: T.Object(one),
    status: 204,
    handler: async ({ c, actor, input }) => deleteIssue(c, actor, input.id, input.issue_iid),
  }),
  route({
    method: 'PUT',
    path: `${ISSUE}/reorder`,
    tag: TAG,
    summary: 'Place an issue after or before others in the project',
    params: T.Object({ ...one, move_after_id: T.Optional(T.Integer()), move_before_id: T.Optional(T.Integer()) }),
    response: Issue,
    status: 200,
    handler: async ({ c, actor, input }) => presentIssue(c, await reorderIssue(c, actor, input.id, input.issue_iid, input.move_after_id, input.move_before_id)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/move`,
    tag: TAG,
    summary: 'Move an issue to another project',
    params: T.Object({ ...one, to_project_id: T.Integer() }),
    response: Issue,
    handler: async ({ c, actor, input }) => presentIssue(c, await moveIssue(c, actor, input.id, input.issue_iid, input.to_project_id)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/clone`,
    tag: TAG,
    summary: 'Copy an issue into another project',
    params: T.Object({ ...one, to_project_id: T.Integer(), with_notes: T.Optional(T.Boolean({ default: false })) }),
    response: Issue,
    handler: async ({ c, actor, input }) => presentIssue(c, await cloneIssue(c, actor, input.id, input.issue_iid, input.to_project_id)),
  }),
  ...(['subscribe', 'unsubscribe'] as const).map((action) =>
    route({
      method: 'POST',
      path: `${ISSUE}/${action}`,
      tag: TAG,
      summary: `${action === 'subscribe' ? 'Subscribe to' : 'Unsubscribe from'} an issue (304 when already so)`,
      params: T.Object(one),
      response: Issue,
      handler: async ({ c, actor, input }) => presentIssue(c, await subscribeIssue(c, actor, input.id, input.issue_iid, action === 'subscribe')),
    }),
  ),
  route({
    method: 'GET',
    path: `${ISSUE}/time_stats`,
    tag: TAG,
    summary: "An issue's time estimate and time spent",
    params: T.Object(one),
    response: TimeStats,
    handler: async ({ c, actor, input }) => presentTimeStats(await issueTimeStats(c, actor, input.id, input.issue_iid)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/time_estimate`,
    tag: TAG,
    summary: 'Set the time estimate (`3h30m`)',
    params: T.Object({ ...one, duration: T.String() }),
    response: TimeStats,
    handler: async ({ c, actor, input }) => presentTimeStats(await setTimeEstimate(c, actor, input.id, input.issue_iid, input.duration)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/reset_time_estimate`,
    tag: TAG,
    summary: 'Clear the time estimate',
    params: T.Object(one),
    response: TimeStats,
    handler: async ({ c, actor, input }) => presentTimeStats(await setTimeEstimate(c, actor, input.id, input.issue_iid, null)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/add_spent_time`,
    tag: TAG,
    summary: 'Log time spent (`1h`; `-30m` subtracts)',
    params: T.Object({ ...one, duration: T.String(), summary: T.Optional(T.String()) }),
    response: TimeStats,
    handler: async ({ c, actor, input }) => presentTimeStats(await addSpentTime(c, actor, input.id, input.issue_iid, input.duration, input.summary)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/reset_spent_time`,
    tag: TAG,
    summary: 'Clear the time spent',
    params: T.Object(one),
    response: TimeStats,
    handler: async ({ c, actor, input }) => presentTimeStats(await resetSpentTime(c, actor, input.id, input.issue_iid)),
  }),
  route({
    method: 'GET',
    path: `${ISSUE}/participants`,
    tag: TAG,
    summary: "An issue's participants",
    params: T.Object(one),
    response: T.Array(UserBasic),
    handler: async ({ c, actor, input }) => (await issueParticipants(c, actor, input.id, input.issue_iid)).map((u) => presentUserBasic(c, u)),
  }),
  route({
    method: 'GET',
    path: `${ISSUE}/links`,
    tag: TAG,
    summary: "An issue's linked issues (those the caller may see)",
    params: T.Object(one),
    response: T.Array(LinkedIssue),
    handler: async ({ c, actor, input }) => (await listIssueLinks(c, actor, input.id, input.issue_iid)).map((l) => presentLinkedIssue(c, l)),
  }),
  route({
    method: 'POST',
    path: `${ISSUE}/links`,
    tag: TAG,
    summary: 'Link two issues',
    params: T.Object({
      ...one,
      target_project_id: IdOrPath,
      target_issue_iid: T.Integer(),
      link_type: T.Optional(OneOf(['relates_to', 'blocks', 'is_blocked_by'] as const)),
    }),
    response: IssueLink,
    handler: async ({ c, actor, input }) => {
      const r = await createIssueLink(c, actor, input.id, input.issue_iid, { project: input.target_project_id, iid: input.target_issue_iid }, input.link_type ?? 'relates_to');
      return { source_issue: presentIssue(c, r.source), target_issue: presentIssue(c, r.target), link_type: r.linkType };
    },
  }),
  route({
    method: 'DELETE',
    path: `${ISSUE}/links/:issue_link_id`,
    tag: TAG,
    summary: 'Remove a link between two issues',
    params: T.Object({ ...one, issue_link_id: T.Integer() }),
    response: IssueLink,
    status: 200,
    handler: async ({ c, actor, input }) => {
      const r = await deleteIssueLinkById(c, actor, input.id, input.issue_iid, input.issue_link_id);
      return { source_issue: presentIssue(c, r.source), target_issue: presentIssue(c, r.target), link_type: r.linkType };
    },
  }),
];
