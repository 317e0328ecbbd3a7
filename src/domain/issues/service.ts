// Issues: lists (everyone's, a group's, a project's) with the reference's filters, statistics,
// get, create, update (state, labels, assignees, milestone, confidentiality, lock), delete, move,
// clone, reorder, subscribe, time tracking, links between issues, participants.
import { dateTimeParam } from '../shared/params.js';
import type { Container } from '../context.js';
import {
  assigneesOf, clearTimelogs, countIssuesByState, deleteIssueLink, deleteIssueRow, findIssueById, findIssueByIid, findLinkBetween, findLinkById,
  insertIssue, insertIssueLink, insertTimelog, issuesByIds, linksOf, maxRelativePosition, pageIssues, setAssignees, timeSpentOn, updateIssueRow,
  type IdMatch, type IssueFilter, type IssueOrder, type IssueRow, type IssueViewer, type MilestoneMatch,
} from '../../db/repos/issues.js';
import { changeTargetLabels, labelsOfTargets, type LabelRow } from '../../db/repos/labels.js';
import { findMilestoneOf, milestoneIdsTitled, milestonesTitled, startedMilestoneIds, upcomingMilestoneIds, type MilestoneOwners } from '../../db/repos/milestones.js';
import { findSelfAndDescendants } from '../../db/repos/namespaces.js';
import { projectIdsInNamespaces } from '../../db/repos/project_lifecycle.js';
import { findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import { setSubscription, subscriptionsOf } from '../../db/repos/subscriptions.js';
import { findUserByUsername, findUsersByIds, type UserRow } from '../../db/repos/users.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { apiError, conflict, forbidden, notFound, notModified, unauthorized, validation } from '../errors.js';
import { findGroup } from '../groups/find.js';
import { labelsForTitles } from '../labels/service.js';
import { canAdminProjectLabels } from '../labels/policy.js';
import { ACCESS, authorizedScope, visibleLevelsFor } from '../members/policy.js';
import { milestoneViewsByIds, projectMilestoneOwners, readableMilestone, type MilestoneView } from '../milestones/service.js';
import { findProject, type FoundProject } from '../projects/find.js';
import { projectAccess, type ProjectAccess } from '../projects/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { canAdminIssues, canCreateIssue, canDeleteIssues, canReadIssue, canReadIssues, canUpdateIssue } from './policy.js';
import { parseDuration } from './time.js';

export interface IssueView {
  row: IssueRow;
  project: ProjectRow;
  labels: LabelRow[];
  milestone: MilestoneView | null;
  author: UserRow | null;
  closedBy: UserRow | null;
  assignees: UserRow[];
  timeSpent: number;
  /** Only on a single issue (the reference leaves it out of lists). */
  subscribed?: boolean;
  userNotesCount: number;
  upvotes: number;
  downvotes: number;
  mergeRequestsCount: number;
}

/** Issues with what presenting them needs, read in a few queries. */
export async function issueViews(c: Container, actor: Actor | null, rows: IssueRow[], opts: { subscribed?: boolean } = {}): Promise<IssueView[]> {
  const ids = rows.map((r) => r.id);
  const [assignees, labels, spent, projects] = await Promise.all([
    assigneesOf(c.db, ids),
    labelsOfTargets(c.db, 'Issue', ids),
    timeSpentOn(c.db, 'Issue', ids),
    findProjectsByIds(c.db, [...new Set(rows.map((r) => r.project_id))]),
  ]);
  const userIds = new Set<number>();
  for (const r of rows) {
    if (r.author_id !== null) userIds.add(r.author_id);
    if (r.closed_by_id !== null) userIds.add(r.closed_by_id);
    for (const u of assignees.get(r.id) ?? []) userIds.add(u);
  }
  const users = new Map((await findUsersByIds(c.db, [...userIds])).map((u) => [u.id, u]));
  const milestones = await milestoneViewsByIds(c, [...new Set(rows.flatMap((r) => (r.milestone_id !== null ? [r.milestone_id] : [])))]);
  const projectById = new Map(projects.map((p) => [p.id, p]));
  const subs = opts.subscribed && actor ? await subscriptionsOf(c.db, actor.user.id, 'Issue', ids) : null;
  return rows.map((row) => {
    const assigneeIds = assignees.get(row.id) ?? [];
    let subscribed: boolean | undefined;
    if (opts.subscribed) {
      // Explicit choice first; else the author and assignees follow their issues.
      subscribed = subs?.get(row.id) ?? (actor !== null && (row.author_id === actor.user.id || assigneeIds.includes(actor.user.id)));
    }
    return {
      row,
      project: projectById.get(row.project_id)!,
      labels: labels.get(row.id) ?? [],
      milestone: row.milestone_id !== null ? (milestones.get(row.milestone_id) ?? null) : null,
      author: row.author_id !== null ? (users.get(row.author_id) ?? null) : null,
      closedBy: row.closed_by_id !== null ? (users.get(row.closed_by_id) ?? null) : null,
      assignees: assigneeIds.map((id) => users.get(id)).filter((u): u is UserRow => u !== undefined),
      timeSpent: spent.get(row.id) ?? 0,
      ...(subscribed !== undefined ? { subscribed } : {}),
      userNotesCount: 0,
      upvotes: 0,
      downvotes: 0,
      mergeRequestsCount: 0,
    };
  });
}

// ---- finding ----

/** A project whose issues the actor may read (404 for an unseen project, 403 when its issues are off for them). */
async function issuesProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const found = await findProject(c, actor, idOrPath);
  if (!canReadIssues(found.row, found.access)) throw forbidden();
  return found;
}

const issueNotFound = () => notFound('Issue');

export interface FoundIssue {
  issue: IssueRow;
  project: ProjectRow;
  access: ProjectAccess;
  assigneeIds: number[];
}

/** An issue by its project and iid that the actor may read; else 404 Issue Not Found. */
export async function findIssue(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<FoundIssue> {
  const { row: project, access } = await issuesProject(c, actor, idOrPath);
  const issue = await findIssueByIid(c.db, project.id, iid);
  if (!issue) throw issueNotFound();
  const assigneeIds = (await assigneesOf(c.db, [issue.id])).get(issue.id) ?? [];
  if (!canReadIssue(project, access, issue, actor?.user.id ?? null, assigneeIds)) throw issueNotFound();
  return { issue, project, access, assigneeIds };
}

/** An issue by its global id that the actor may read (GET /issues/:id, admins only in the reference). */
export async function findIssueByGlobalId(c: Container, actor: Actor, id: number): Promise<FoundIssue> {
  const issue = await findIssueById(c.db, id);
  if (!issue) throw issueNotFound();
  return findIssue(c, actor, issue.project_id, issue.iid);
}

// ---- lists ----

export interface IssueListInput {
  state?: 'opened' | 'closed' | 'all';
  labels?: string[];
  milestone?: string;
  milestone_id?: string;
  scope?: string;
  author_id?: number;
  author_username?: string;
  assignee_id?: string;
  assignee_username?: string[];
  iids?: number[];
  search?: string;
  in?: string;
  confidential?: boolean;
  issue_type?: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  due_date?: string;
  non_archived?: boolean;
  not?: { labels?: string[]; milestone?: string; author_id?: number; author_username?: string; assignee_id?: number; assignee_username?: string[]; iids?: number[] };
  order_by?: string;
  sort?: 'asc' | 'desc';
}

export const ISSUE_ORDERS = ['created_at', 'updated_at', 'priority', 'due_date', 'relative_position', 'label_priority', 'milestone_due', 'popularity', 'weight', 'title'] as const;

function viewerOf(actor: Actor | null): IssueViewer {
  if (!actor) return { kind: 'public' };
  if (isAdmin(actor)) return { kind: 'all' };
  const guest = authorizedScope(actor, ACCESS.GUEST);
  return { kind: 'user', userId: actor.user.id, scope: { kind: 'user', levels: visibleLevelsFor(actor), access: guest }, guest, reporter: authorizedScope(actor, ACCESS.REPORTER) };
}

async function userIdByName(c: Container, username: string): Promise<number> {
  return (await findUserByUsername(c.db, username))?.id ?? -1;
}

const IN_FIELDS = new Set(['title', 'description']);

/** Days a due_date filter spans: [after, before) or none. */
function dueWindow(v: string): { dueAfter?: string; dueBefore?: string; dueNone?: boolean } | null {
  const day = today();
  const add = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  switch (v) {
    case '0':
      return { dueNone: true };
    case 'any':
      return { dueAfter: '0000-01-01' };
    case 'today':
      return { dueAfter: day, dueBefore: add(day, 1) };
    case 'tomorrow':
      return { dueAfter: add(day, 1), dueBefore: add(day, 2) };
    case 'overdue':
      return { dueAfter: '0000-01-01', dueBefore: day };
    case 'week':
      return { dueAfter: day, dueBefore: add(day, 7) };
    case 'month':
      return { dueAfter: day, dueBefore: add(day, 31) };
    case 'next_month_and_previous_two_weeks':
      return { dueAfter: add(day, -14), dueBefore: add(day, 31) };
    default:
      return null;
  }
}

async function milestoneMatch(c: Container, owners: MilestoneOwners, value: string): Promise<MilestoneMatch> {
  const v = value.trim();
  if (/^none$/i.test(v)) return { kind: 'None' };
  if (/^any$/i.test(v)) return { kind: 'Any' };
  if (/^upcoming$/i.test(v)) return { kind: 'ids', ids: await upcomingMilestoneIds(c.db, owners, today()) };
  if (/^started$/i.test(v)) return { kind: 'ids', ids: await startedMilestoneIds(c.db, owners, today()) };
  return { kind: 'ids', ids: (await milestonesTitled(c.db, owners, [v])).map((m) => m.id) };
}

/** The milestones a list's projects can name: theirs and their groups'. */
async function ownersForList(c: Container, projectIds: number[] | undefined, groupIds: number[]): Promise<MilestoneOwners> {
  if (!projectIds) return { projectIds: [], groupIds: [] }; // everyone's list: filtered by title across all (below)
  return { projectIds, groupIds };
}

async function buildFilter(c: Container, actor: Actor | null, input: IssueListInput, where: { projectIds?: number[]; groupIds: number[] }): Promise<IssueFilter> {
  const f: IssueFilter = { viewer: viewerOf(actor), projectIds: where.projectIds };
  if (input.state === 'opened' || input.state === 'closed') f.state = input.state;
  if (input.non_archived) f.nonArchived = true;
  const labels = (input.labels ?? []).map((l) => l.trim()).filter(Boolean);
  if (labels.length === 1 && /^none$/i.test(labels[0])) f.labelsNone = true;
  else if (labels.length === 1 && /^any$/i.test(labels[0])) f.labelsAny = true;
  else if (labels.length) f.labels = labels;
  const milestone = input.milestone ?? input.milestone_id;
  if (milestone !== undefined) {
    const owners = await ownersForList(c, where.projectIds, where.groupIds);
    f.milestone = where.projectIds ? await milestoneMatch(c, owners, milestone) : await globalMilestoneMatch(c, milestone);
  }
  const scope = (input.scope ?? 'all').replace(/-/g, '_');
  if (scope === 'created_by_me' || scope === 'assigned_to_me') {
    if (!actor) throw unauthorized();
    if (scope === 'created_by_me') f.authorId = actor.user.id;
    else f.assigneeIds = [actor.user.id];
  }
  if (input.author_id !== undefined) f.authorId = input.author_id;
  else if (input.author_username !== undefined) f.authorId = await userIdByName(c, input.author_username);
  if (input.assignee_id !== undefined) {
    const v = input.assignee_id;
    if (/^none$/i.test(v)) f.assigneeNone = true;
    else if (/^any$/i.test(v)) f.assigneeAny = true;
    else f.assigneeIds = [Number(v)];
  } else if (input.assignee_username?.length) {
    f.assigneeIds = [];
    for (const name of input.assignee_username) f.assigneeIds.push(await userIdByName(c, name));
  }
  if (input.iids) f.iids = input.iids;
  if (input.search) {
    f.search = input.search;
    const fields = (input.in ?? '').split(',').map((s) => s.trim()).filter((s) => IN_FIELDS.has(s)) as ('title' | 'description')[];
    if (fields.length) f.searchIn = fields;
  }
  if (input.confidential !== undefined) f.confidential = input.confidential;
  if (input.issue_type) f.issueType = input.issue_type;
  f.createdAfter = dateTimeParam('created_after', input.created_after);
  f.createdBefore = dateTimeParam('created_before', input.created_before);
  f.updatedAfter = dateTimeParam('updated_after', input.updated_after);
  f.updatedBefore = dateTimeParam('updated_before', input.updated_before);
  if (input.due_date !== undefined) Object.assign(f, dueWindow(input.due_date) ?? {});
  if (input.not) {
    const n = input.not;
    f.not = {};
    if (n.labels?.length) f.not.labels = n.labels.map((l) => l.trim()).filter(Boolean);
    if (n.milestone !== undefined) {
      const m = where.projectIds ? await milestoneMatch(c, await ownersForList(c, where.projectIds, where.groupIds), n.milestone) : await globalMilestoneMatch(c, n.milestone);
      if (m.kind === 'ids') f.not.milestoneIds = m.ids;
      else if (m.kind === 'None') f.milestone = { kind: 'Any' };
      else f.milestone = { kind: 'None' };
    }
    if (n.author_id !== undefined) f.not.authorIds = [n.author_id];
    else if (n.author_username !== undefined) f.not.authorIds = [await userIdByName(c, n.author_username)];
    if (n.assignee_id !== undefined) f.not.assigneeIds = [n.assignee_id];
    else if (n.assignee_username?.length) {
      f.not.assigneeIds = [];
      for (const name of n.assignee_username) f.not.assigneeIds.push(await userIdByName(c, name));
    }
    if (n.iids?.length) f.not.iids = n.iids;
  }
  return f;
}

/** Everyone's list names milestones by title wherever they are (the projects are not known in advance). */
async function globalMilestoneMatch(c: Container, value: string): Promise<MilestoneMatch> {
  const v = value.trim();
  if (/^(none|any)$/i.test(v)) return { kind: /^none$/i.test(v) ? 'None' : 'Any' };
  return { kind: 'ids', ids: await milestoneIdsTitled(c.db, v) };
}

export type IssueListWhere = { type: 'all' } | { type: 'project'; idOrPath: number | string } | { type: 'group'; idOrPath: number | string };

async function listScope(c: Container, actor: Actor | null, where: IssueListWhere): Promise<{ projectIds?: number[]; groupIds: number[] }> {
  if (where.type === 'all') return { groupIds: [] };
  if (where.type === 'project') {
    const { row } = await issuesProject(c, actor, where.idOrPath);
    const owners = await projectMilestoneOwners(c, row);
    return { projectIds: [row.id], groupIds: owners.groupIds };
  }
  const { row: group } = await findGroup(c, actor, where.idOrPath);
  const groups = await findSelfAndDescendants(c.db, group);
  const ids = groups.map((g) => g.id);
  return { projectIds: await projectIdsInNamespaces(c.db, ids), groupIds: ids };
}

export async function listIssues(c: Container, actor: Actor | null, where: IssueListWhere, input: IssueListInput, page: PageRequest): Promise<PageResult<IssueView>> {
  if (where.type === 'all' && !actor && (input.scope ?? 'created_by_me') !== 'all') throw unauthorized();
  const scope = await listScope(c, actor, where);
  const f = await buildFilter(c, actor, { ...input, scope: input.scope ?? (where.type === 'all' ? 'created_by_me' : 'all') }, scope);
  const order = (ISSUE_ORDERS as readonly string[]).includes(input.order_by ?? '') ? (input.order_by as IssueOrder | 'weight') : 'created_at';
  const sort = input.sort ?? 'desc';
  // Keyset pages walk issues by id, the order of their creation.
  const result = await pageIssues(c.db, f, page.kind === 'keyset' ? 'created_at' : order === 'weight' ? 'created_at' : order, sort, page);
  return { ...result, items: await issueViews(c, actor, result.items) };
}

export async function issueStatistics(c: Container, actor: Actor | null, where: IssueListWhere, input: IssueListInput): Promise<{ all: number; closed: number; opened: number }> {
  if (where.type === 'all' && !actor && (input.scope ?? 'created_by_me') !== 'all') throw unauthorized();
  const scope = await listScope(c, actor, where);
  const f = await buildFilter(c, actor, { ...input, scope: input.scope ?? (where.type === 'all' ? 'created_by_me' : 'all') }, scope);
  const n = await countIssuesByState(c.db, f);
  return { all: n.all, closed: n.closed, opened: n.opened };
}

/** A milestone's issues (GET …/milestones/:id/issues): those the actor may see, by label priority. */
export async function issuesOfMilestone(c: Container, actor: Actor, type: 'project' | 'group', idOrPath: number | string, id: number, page: PageRequest): Promise<PageResult<IssueView>> {
  const { milestone, project, group } = await readableMilestone(c, actor, type, idOrPath, id);
  const projectIds = project ? [project.id] : await projectIdsInNamespaces(c.db, (await findSelfAndDescendants(c.db, group!)).map((g) => g.id));
  const f: IssueFilter = { viewer: viewerOf(actor), projectIds, milestone: { kind: 'ids', ids: [milestone.id] } };
  const result = await pageIssues(c.db, f, 'label_priority', 'asc', page);
  return { ...result, items: await issueViews(c, actor, result.items) };
}

// ---- single issues ----

export async function getIssue(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  return (await issueViews(c, actor, [found.issue], { subscribed: true }))[0];
}

export async function getIssueById(c: Container, actor: Actor, id: number): Promise<IssueView> {
  const found = await findIssueByGlobalId(c, actor, id);
  return (await issueViews(c, actor, [found.issue], { subscribed: true }))[0];
}

export interface IssueInput {
  title?: string;
  description?: string;
  iid?: number;
  confidential?: boolean;
  assignee_id?: number | null;
  assignee_ids?: number[] | null;
  milestone_id?: number | null;
  labels?: string[];
  add_labels?: string[];
  remove_labels?: string[];
  created_at?: string;
  updated_at?: string;
  due_date?: string | null;
  weight?: number | null;
  issue_type?: string;
  state_event?: 'close' | 'reopen';
  discussion_locked?: boolean;
  discussion_to_resolve?: string;
  merge_request_to_resolve_discussions_of?: number;
}

/** Users who may be assigned: those who may read the project's issues (others are dropped, as the reference does). */
async function assignableIds(c: Container, project: ProjectRow, ids: number[]): Promise<number[]> {
  const out: number[] = [];
  for (const u of await findUsersByIds(c.db, [...new Set(ids.filter((id) => id > 0))])) {
    const access = await projectAccess(c, { user: u, via: 'session', scopes: null, tokenId: null, sudoer: null }, project);
    if (canReadIssues(project, access)) out.push(u.id);
  }
  return [...new Set(ids.filter((id) => out.includes(id)))];
}

async function checkedMilestone(c: Container, project: ProjectRow, id: number | null | undefined): Promise<number | null | undefined> {
  if (id === undefined) return undefined;
  if (id === null || id === 0) return null;
  // A milestone of another project is ignored, as the reference does.
  const m = await findMilestoneOf(c.db, await projectMilestoneOwners(c, project), id);
  return m ? m.id : undefined;
}

function checkTitle(title: string | undefined, errors: Record<string, string[]>): void {
  if (title !== undefined && title.trim() === '') errors.title = ["can't be blank"];
  else if (title !== undefined && title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
}

export async function createIssue(c: Container, actor: Actor, idOrPath: number | string, input: IssueInput): Promise<IssueView> {
  const { row: project, access } = await findProject(c, actor, idOrPath);
  if (!canCreateIssue(project, access)) throw forbidden();
  const errors: Record<string, string[]> = {};
  checkTitle(input.title ?? '', errors);
  if (input.due_date && !isDate(input.due_date)) errors.due_date = ['is not a valid date'];
  if (Object.keys(errors).length) throw validation(errors);
  const admin = canAdminIssues(access);
  // iid and created_at: for admins and project owners (importers), as the reference allows.
  const owner = access.admin || access.level >= ACCESS.OWNER;
  const now = nowIso();
  const createdAt = owner && input.created_at ? new Date(input.created_at).toISOString() : now;
  const assignees = admin ? await assignableIds(c, project, input.assignee_ids ?? (input.assignee_id ? [input.assignee_id] : [])) : [];
  const milestoneId = admin ? await checkedMilestone(c, project, input.milestone_id) : undefined;
  const row = await insertIssue(
    c.db,
    {
      project_id: project.id,
      title: input.title!.trim(),
      description: input.description ?? null,
      author_id: actor.user.id,
      confidential: input.confidential ? 1 : 0,
      issue_type: input.issue_type ?? 'issue',
      due_date: admin ? (input.due_date ?? null) : null,
      milestone_id: milestoneId ?? null,
      weight: admin ? (input.weight ?? null) : null,
      relative_position: null,
      created_at: createdAt,
      updated_at: createdAt,
    },
    owner && input.iid !== undefined ? input.iid : null,
    assignees,
  );
  if (!row) throw validation({ iid: ['has already been taken'] });
  if (input.labels?.length && admin) {
    const labels = await labelsForTitles(c, project, input.labels, canAdminProjectLabels(access));
    await changeTargetLabels(c.db, 'Issue', row.id, labels.map((l) => l.id), [], now);
  }
  await setSubscription(c.db, actor.user.id, 'Issue', row.id, 0, true, now);
  return (await issueViews(c, actor, [row], { subscribed: true }))[0];
}

export async function updateIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number, input: IssueInput): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  const { issue, project, access } = found;
  if (!canUpdateIssue(project, access, issue, actor.user.id, found.assigneeIds)) throw forbidden();
  const admin = canAdminIssues(access);
  const errors: Record<string, string[]> = {};
  checkTitle(input.title, errors);
  if (input.due_date && !isDate(input.due_date)) errors.due_date = ['is not a valid date'];
  if (Object.keys(errors).length) throw validation(errors);
  const now = nowIso();
  const patch: Partial<IssueRow> = {};
  if (input.title !== undefined) patch.title = input.title.trim();
  if (input.description !== undefined) patch.description = input.description;
  if (input.title !== undefined || input.description !== undefined) {
    patch.last_edited_at = now;
    patch.last_edited_by_id = actor.user.id;
  }
  if (input.state_event === 'close' && issue.state !== 'closed') Object.assign(patch, { state: 'closed', closed_at: now, closed_by_id: actor.user.id });
  if (input.state_event === 'reopen' && issue.state === 'closed') Object.assign(patch, { state: 'opened', closed_at: null, closed_by_id: null });
  let labelsChanged = false;
  if (admin) {
    if (input.confidential !== undefined) patch.confidential = input.confidential ? 1 : 0;
    if (input.discussion_locked !== undefined) patch.discussion_locked = input.discussion_locked ? 1 : 0;
    if (input.due_date !== undefined) patch.due_date = input.due_date || null;
    if (input.weight !== undefined) patch.weight = input.weight;
    if (input.issue_type !== undefined) patch.issue_type = input.issue_type;
    const milestoneId = await checkedMilestone(c, project, input.milestone_id);
    if (milestoneId !== undefined) patch.milestone_id = milestoneId;
    if (input.assignee_ids !== undefined || input.assignee_id !== undefined) {
      const wanted = input.assignee_ids ?? (input.assignee_id ? [input.assignee_id] : []);
      await setAssignees(c.db, issue.id, await assignableIds(c, project, wanted ?? []));
    }
    const createLabels = canAdminProjectLabels(access);
    if (input.labels !== undefined) {
      const wanted = await labelsForTitles(c, project, input.labels, createLabels);
      const current = (await labelsOfTargets(c.db, 'Issue', [issue.id])).get(issue.id) ?? [];
      const r = await changeTargetLabels(c.db, 'Issue', issue.id, wanted.map((l) => l.id), current.filter((l) => !wanted.some((w) => w.id === l.id)).map((l) => l.id), now);
      labelsChanged = r.added.length + r.removed.length > 0;
    }
    if (input.add_labels?.length || input.remove_labels?.length) {
      const add = await labelsForTitles(c, project, input.add_labels ?? [], createLabels);
      const remove = await labelsForTitles(c, project, input.remove_labels ?? [], false);
      const r = await changeTargetLabels(c.db, 'Issue', issue.id, add.map((l) => l.id), remove.map((l) => l.id), now);
      labelsChanged = labelsChanged || r.added.length + r.removed.length > 0;
    }
  }
  const owner = access.admin || access.level >= ACCESS.OWNER;
  const updatedAt = owner && input.updated_at ? new Date(input.updated_at).toISOString() : now;
  const row = await updateIssueRow(c.db, issue.id, { ...patch, updated_at: updatedAt, updated_by_id: actor.user.id });
  void labelsChanged;
  return (await issueViews(c, actor, [row], { subscribed: true }))[0];
}

export async function deleteIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<void> {
  const found = await findIssue(c, actor, idOrPath, iid);
  if (!canDeleteIssues(found.access)) throw forbidden();
  await deleteIssueRow(c.db, found.issue.id);
}

/** A project the actor may create issues in (the target of a move or a clone). */
async function targetProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectRow> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canCreateIssue(row, access)) throw forbidden();
  return row;
}

/** Copies an issue into another project (labels by title, milestone by title, assignees); its new row. */
async function copyIssue(c: Container, actor: Actor, from: FoundIssue, to: ProjectRow): Promise<IssueRow> {
  const now = nowIso();
  const milestone = from.issue.milestone_id !== null ? (await milestoneViewsByIds(c, [from.issue.milestone_id])).get(from.issue.milestone_id) : undefined;
  const targetMilestone = milestone ? (await milestonesTitled(c.db, await projectMilestoneOwners(c, to), [milestone.row.title]))[0] : undefined;
  const row = await insertIssue(
    c.db,
    {
      project_id: to.id,
      title: from.issue.title,
      description: from.issue.description,
      author_id: from.issue.author_id,
      confidential: from.issue.confidential,
      issue_type: from.issue.issue_type,
      due_date: from.issue.due_date,
      milestone_id: targetMilestone?.id ?? null,
      weight: from.issue.weight,
      time_estimate: from.issue.time_estimate,
      relative_position: null,
      created_at: now,
      updated_at: now,
    },
    null,
    from.assigneeIds,
  );
  const labels = (await labelsOfTargets(c.db, 'Issue', [from.issue.id])).get(from.issue.id) ?? [];
  const mapped = await labelsForTitles(c, to, labels.map((l) => l.title), false);
  if (mapped.length) await changeTargetLabels(c.db, 'Issue', row!.id, mapped.map((l) => l.id), [], now);
  return row!;
}

/** POST …/issues/:iid/move: a copy in the other project; this one closes, pointing at it. */
export async function moveIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number, toProjectId: number): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  if (!canUpdateIssue(found.project, found.access, found.issue, actor.user.id, found.assigneeIds) || !canAdminIssues(found.access)) throw forbidden();
  const to = await targetProject(c, actor, toProjectId);
  if (to.id === found.project.id) throw apiError('Cannot move issue to project it originates from!', 400);
  if (found.issue.moved_to_id !== null) throw apiError('Cannot move issue due to insufficient permissions!', 400);
  const copy = await copyIssue(c, actor, found, to);
  const now = nowIso();
  await updateIssueRow(c.db, found.issue.id, { state: 'closed', closed_at: now, closed_by_id: actor.user.id, moved_to_id: copy.id, updated_at: now });
  return (await issueViews(c, actor, [copy], { subscribed: true }))[0];
}

/** POST …/issues/:iid/clone: a copy in the other project; this one stays. */
export async function cloneIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number, toProjectId: number): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  if (!canAdminIssues(found.access)) throw forbidden();
  const to = await targetProject(c, actor, toProjectId);
  const copy = await copyIssue(c, actor, found, to);
  return (await issueViews(c, actor, [copy], { subscribed: true }))[0];
}

/** PUT …/issues/:iid/reorder: between two issues of the project (by id), or after/before one. */
export async function reorderIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number, after: number | undefined, before: number | undefined): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  if (!canAdminIssues(found.access)) throw forbidden();
  const [a, b] = await Promise.all([after ? findIssueById(c.db, after) : undefined, before ? findIssueById(c.db, before) : undefined]);
  const pos = async (i: IssueRow | undefined): Promise<number | null> => {
    if (!i || i.project_id !== found.project.id) return null;
    if (i.relative_position === null) {
      const max = (await maxRelativePosition(c.db, found.project.id)) ?? 0;
      await updateIssueRow(c.db, i.id, { relative_position: max + 1000 });
      return max + 1000;
    }
    return i.relative_position;
  };
  const pa = await pos(a);
  const pb = await pos(b);
  let position: number;
  if (pa !== null && pb !== null) position = Math.floor((pa + pb) / 2);
  else if (pa !== null) position = pa + 500;
  else if (pb !== null) position = pb - 500;
  else position = ((await maxRelativePosition(c.db, found.project.id)) ?? 0) + 1000;
  const row = await updateIssueRow(c.db, found.issue.id, { relative_position: position });
  return (await issueViews(c, actor, [row], { subscribed: true }))[0];
}

export async function subscribeIssue(c: Container, actor: Actor, idOrPath: number | string, iid: number, subscribed: boolean): Promise<IssueView> {
  const found = await findIssue(c, actor, idOrPath, iid);
  const [view] = await issueViews(c, actor, [found.issue], { subscribed: true });
  if (view.subscribed === subscribed) throw notModified();
  await setSubscription(c.db, actor.user.id, 'Issue', found.issue.id, 0, subscribed, nowIso());
  return { ...view, subscribed };
}

// ---- time tracking ----

export interface TimeStats {
  time_estimate: number;
  total_time_spent: number;
}

async function timeStatsOf(c: Container, issue: IssueRow): Promise<TimeStats> {
  return { time_estimate: issue.time_estimate, total_time_spent: (await timeSpentOn(c.db, 'Issue', [issue.id])).get(issue.id) ?? 0 };
}

export async function issueTimeStats(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<TimeStats> {
  return timeStatsOf(c, (await findIssue(c, actor, idOrPath, iid)).issue);
}

async function timeTracked(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<FoundIssue> {
  const found = await findIssue(c, actor, idOrPath, iid);
  if (!canAdminIssues(found.access) || found.project.archived === 1) throw forbidden();
  return found;
}

export async function setTimeEstimate(c: Container, actor: Actor, idOrPath: number | string, iid: number, duration: string | null): Promise<TimeStats> {
  const found = await timeTracked(c, actor, idOrPath, iid);
  const seconds = duration === null ? 0 : parseDuration(duration);
  if (seconds === null || seconds < 0) throw validation({ time_estimate: ['must have a valid format and be greater than or equal to zero'] });
  return timeStatsOf(c, await updateIssueRow(c.db, found.issue.id, { time_estimate: seconds, updated_at: nowIso() }));
}

export async function addSpentTime(c: Container, actor: Actor, idOrPath: number | string, iid: number, duration: string, summary: string | undefined): Promise<TimeStats> {
  const found = await timeTracked(c, actor, idOrPath, iid);
  const seconds = parseDuration(duration);
  if (seconds === null || seconds === 0) throw validation({ base: ['Time spent can\'t be blank'] });
  const now = nowIso();
  const total = ((await timeSpentOn(c.db, 'Issue', [found.issue.id])).get(found.issue.id) ?? 0) + seconds;
  if (total < 0) throw validation({ base: ['Time to subtract exceeds the total time spent'] });
  await insertTimelog(c.db, { target_type: 'Issue', target_id: found.issue.id, user_id: actor.user.id, time_spent: seconds, spent_at: now, summary: summary ?? null, created_at: now });
  return timeStatsOf(c, found.issue);
}

export async function resetSpentTime(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<TimeStats> {
  const found = await timeTracked(c, actor, idOrPath, iid);
  await clearTimelogs(c.db, 'Issue', found.issue.id);
  return timeStatsOf(c, found.issue);
}

// ---- links ----

export interface IssueLinkView {
  issue: IssueView;
  linkId: number;
  linkType: string;
  createdAt: string;
  updatedAt: string;
}

export async function listIssueLinks(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<IssueLinkView[]> {
  const found = await findIssue(c, actor, idOrPath, iid);
  const links = await linksOf(c.db, found.issue.id);
  const others = await issuesByIds(c.db, links.map((l) => (l.source_id === found.issue.id ? l.target_id : l.source_id)));
  const visible: IssueRow[] = [];
  const assignees = await assigneesOf(c.db, others.map((o) => o.id));
  const projects = new Map((await findProjectsByIds(c.db, [...new Set(others.map((o) => o.project_id))])).map((p) => [p.id, p]));
  for (const o of others) {
    const p = projects.get(o.project_id)!;
    if (canReadIssue(p, await projectAccess(c, actor, p), o, actor.user.id, assignees.get(o.id) ?? [])) visible.push(o);
  }
  const views = new Map((await issueViews(c, actor, visible)).map((v) => [v.row.id, v]));
  return links.flatMap((l) => {
    const otherId = l.source_id === found.issue.id ? l.target_id : l.source_id;
    const v = views.get(otherId);
    if (!v) return [];
    // Seen from the target, "blocks" reads "is_blocked_by".
    const type = l.link_type === 'blocks' && l.target_id === found.issue.id ? 'is_blocked_by' : l.link_type;
    return [{ issue: v, linkId: l.id, linkType: type, createdAt: l.created_at, updatedAt: l.updated_at }];
  });
}

export async function createIssueLink(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  iid: number,
  target: { project: number | string; iid: number },
  linkType: string,
): Promise<{ source: IssueView; target: IssueView; linkType: string }> {
  const source = await findIssue(c, actor, idOrPath, iid);
  if (!canAdminIssues(source.access)) throw forbidden();
  const other = await findIssue(c, actor, target.project, target.iid).catch(() => {
    throw notFound('Project');
  });
  if (!canAdminIssues(other.access)) throw notFound('Project');
  if (other.issue.id === source.issue.id) throw apiError('Cannot link an issue to itself', 400);
  if (await findLinkBetween(c.db, source.issue.id, other.issue.id)) throw conflict('Issue(s) already assigned');
  const now = nowIso();
  const [from, to] = linkType === 'is_blocked_by' ? [other.issue, source.issue] : [source.issue, other.issue];
  await insertIssueLink(c.db, { source_id: from.id, target_id: to.id, link_type: linkType === 'relates_to' ? 'relates_to' : 'blocks', created_at: now, updated_at: now });
  const [s, t] = await issueViews(c, actor, [source.issue, other.issue]);
  return { source: s, target: t, linkType };
}

export async function deleteIssueLinkById(c: Container, actor: Actor, idOrPath: number | string, iid: number, linkId: number): Promise<{ source: IssueView; target: IssueView; linkType: string }> {
  const source = await findIssue(c, actor, idOrPath, iid);
  if (!canAdminIssues(source.access)) throw forbidden();
  const link = await findLinkById(c.db, linkId);
  if (!link || (link.source_id !== source.issue.id && link.target_id !== source.issue.id)) throw notFound('Not found');
  await deleteIssueLink(c.db, link.id);
  const rows = await issuesByIds(c.db, [link.source_id, link.target_id]);
  const views = await issueViews(c, actor, rows);
  const s = views.find((v) => v.row.id === link.source_id)!;
  const t = views.find((v) => v.row.id === link.target_id)!;
  return { source: s, target: t, linkType: link.link_type };
}

/** Author, assignees (and, once notes exist, those who commented), in that order, once each. */
export async function issueParticipants(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<UserRow[]> {
  const found = await findIssue(c, actor, idOrPath, iid);
  const ids = [...new Set([...(found.issue.author_id !== null ? [found.issue.author_id] : []), ...found.assigneeIds])];
  const users = new Map((await findUsersByIds(c.db, ids)).map((u) => [u.id, u]));
  return ids.map((id) => users.get(id)).filter((u): u is UserRow => u !== undefined);
}

export type { IdMatch };
