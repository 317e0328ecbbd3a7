// Issues, their assignees, links and time logs, and the issue lists with the reference's filters.
import { sql, type Expression, type Insertable, type Kysely, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { ilike, isUniqueViolation, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import { inTransaction } from '../transaction.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, IssuesTable } from '../schema.js';
import { authorizedCondition, visibleProjectCondition, type AuthorizedScope, type ProjectVisibilityScope } from './projects.js';

export type IssueRow = Selectable<IssuesTable>;
export type NewIssue = Omit<Insertable<IssuesTable>, 'iid'>;

/** Moves the issues of these milestones to another (or to none). */
export async function moveIssuesToMilestone(db: Kysely<DB>, fromIds: number[], toId: number | null): Promise<void> {
  if (fromIds.length === 0) return;
  await db.updateTable('issues').set({ milestone_id: toId }).where('milestone_id', 'in', fromIds).execute();
}

/** Inserts an issue with the next iid of its project (or the iid given; undefined when that one is taken). */
export async function insertIssue(db: Kysely<DB>, row: NewIssue, iid: number | null, assigneeIds: number[]): Promise<IssueRow | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(db, async (tx) => {
        let next = iid;
        if (next === null) {
          const last = await tx.selectFrom('issues').select('iid').where('project_id', '=', row.project_id).orderBy('iid', 'desc').limit(1).executeTakeFirst();
          next = (last?.iid ?? 0) + 1;
        }
        const issue = await tx.insertInto('issues').values({ ...row, iid: next }).returningAll().executeTakeFirstOrThrow();
        if (assigneeIds.length) await tx.insertInto('issue_assignees').values(assigneeIds.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
        return issue;
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        if (iid !== null) return undefined;
        if (attempt < 20) continue;
      }
      throw err;
    }
  }
}

export const findIssueByIid = (db: Kysely<DB>, projectId: number, iid: number): Promise<IssueRow | undefined> =>
  db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();

export const findIssueById = (db: Kysely<DB>, id: number): Promise<IssueRow | undefined> =>
  db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst();

export const issuesByIds = (db: Kysely<DB>, ids: number[]): Promise<IssueRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('issues').selectAll().where('id', 'in', ids).execute();

export const updateIssueRow = (db: Kysely<DB>, id: number, patch: Updateable<IssuesTable>): Promise<IssueRow> =>
  db.updateTable('issues').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export async function deleteIssueRow(db: Kysely<DB>, id: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('label_links').where('target_type', '=', 'Issue').where('target_id', '=', id).execute();
    await tx.deleteFrom('subscriptions').where('subscribable_type', '=', 'Issue').where('subscribable_id', '=', id).execute();
    await tx.deleteFrom('timelogs').where('target_type', '=', 'Issue').where('target_id', '=', id).execute();
    await tx.deleteFrom('issues').where('id', '=', id).execute();
  });
}

// ---- assignees ----

export async function assigneesOf(db: Kysely<DB>, issueIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return out;
  const rows = await db.selectFrom('issue_assignees').select(['issue_id', 'user_id']).where('issue_id', 'in', issueIds).orderBy('user_id').execute();
  for (const r of rows) out.get(r.issue_id)?.push(r.user_id);
  return out;
}

export async function setAssignees(db: Kysely<DB>, issueId: number, userIds: number[]): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('issue_assignees').where('issue_id', '=', issueId).execute();
    if (userIds.length) await tx.insertInto('issue_assignees').values([...new Set(userIds)].map((user_id) => ({ issue_id: issueId, user_id }))).execute();
  });
}

// ---- time ----

/** Total seconds logged on each of these issues or merge requests. */
export async function timeSpentOn(db: Kysely<DB>, type: 'Issue' | 'MergeRequest', ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('timelogs')
    .select('target_id')
    .select((eb) => eb.fn.sum<number>('time_spent').as('total'))
    .where('target_type', '=', type)
    .where('target_id', 'in', ids)
    .groupBy('target_id')
    .execute();
  return new Map(rows.map((r) => [r.target_id, Number(r.total)]));
}

export const insertTimelog = (db: Kysely<DB>, row: Insertable<DB['timelogs']>) => db.insertInto('timelogs').values(row).execute();

export const clearTimelogs = (db: Kysely<DB>, type: 'Issue' | 'MergeRequest', id: number) =>
  db.deleteFrom('timelogs').where('target_type', '=', type).where('target_id', '=', id).execute();

// ---- links ----

export interface IssueLinkRow {
  id: number;
  source_id: number;
  target_id: number;
  link_type: string;
  created_at: string;
  updated_at: string;
}

/** The links of an issue, either side, oldest first. */
export const linksOf = (db: Kysely<DB>, issueId: number): Promise<IssueLinkRow[]> =>
  db
    .selectFrom('issue_links')
    .selectAll()
    .where((eb) => eb.or([eb('source_id', '=', issueId), eb('target_id', '=', issueId)]))
    .orderBy('id')
    .execute();

export const findLinkBetween = (db: Kysely<DB>, a: number, b: number): Promise<IssueLinkRow | undefined> =>
  db
    .selectFrom('issue_links')
    .selectAll()
    .where((eb) => eb.or([eb.and([eb('source_id', '=', a), eb('target_id', '=', b)]), eb.and([eb('source_id', '=', b), eb('target_id', '=', a)])]))
    .executeTakeFirst();

export const findLinkById = (db: Kysely<DB>, id: number): Promise<IssueLinkRow | undefined> =>
  db.selectFrom('issue_links').selectAll().where('id', '=', id).executeTakeFirst();

export const insertIssueLink = (db: Kysely<DB>, row: Insertable<DB['issue_links']>): Promise<IssueLinkRow> =>
  db.insertInto('issue_links').values(row).returningAll().executeTakeFirstOrThrow();

export const deleteIssueLink = (db: Kysely<DB>, id: number) => db.deleteFrom('issue_links').where('id', '=', id).execute();

// ---- lists ----

/** Who reads a list: the issues they may see are decided in the statement. */
export type IssueViewer =
  | { kind: 'all' } // admins
  | { kind: 'public' } // anonymous
  | { kind: 'user'; userId: number; scope: ProjectVisibilityScope; guest: AuthorizedScope; reporter: AuthorizedScope };

export type IdMatch = number | 'None' | 'Any';
export type MilestoneMatch = { kind: 'ids'; ids: number[] } | { kind: 'None' } | { kind: 'Any' };

export interface IssueFilter {
  viewer: IssueViewer;
  projectIds?: number[];
  /** Only projects that are not archived. */
  nonArchived?: boolean;
  state?: 'opened' | 'closed';
  /** Every one of these label titles. */
  labels?: string[];
  labelsNone?: boolean;
  labelsAny?: boolean;
  milestone?: MilestoneMatch;
  authorId?: IdMatch;
  assigneeIds?: number[];
  assigneeNone?: boolean;
  assigneeAny?: boolean;
  iids?: number[];
  search?: string;
  searchIn?: ('title' | 'description')[];
  confidential?: boolean;
  issueType?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  dueAfter?: string;
  dueBefore?: string;
  dueNone?: boolean;
  not?: {
    labels?: string[];
    milestoneIds?: number[];
    authorIds?: number[];
    assigneeIds?: number[];
    iids?: number[];
  };
}

export type IssueOrder = 'created_at' | 'updated_at' | 'due_date' | 'title' | 'relative_position' | 'milestone_due' | 'label_priority' | 'priority' | 'popularity';

function viewerCondition(v: IssueViewer): Expression<SqlBool> {
  if (v.kind === 'all') return sql<SqlBool>`1 = 1`;
  if (v.kind === 'public') return sql<SqlBool>`(projects.visibility_level = 20 AND projects.issues_access_level = 'enabled' AND issues.confidential = 0)`;
  return sql<SqlBool>`(${visibleProjectCondition(v.scope)}
    AND (projects.issues_access_level = 'enabled' OR (projects.issues_access_level = 'private' AND ${authorizedCondition(v.guest)}))
    AND (issues.confidential = 0 OR issues.author_id = ${v.userId}
      OR EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = issues.id AND ia.user_id = ${v.userId})
      OR ${authorizedCondition(v.reporter)}))`;
}

const hasLabelTitled = (title: string) =>
  sql<SqlBool>`EXISTS (SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Issue' AND ll.target_id = issues.id AND l.title = ${title})`;
const hasAnyLabel = sql<SqlBool>`EXISTS (SELECT 1 FROM label_links ll WHERE ll.target_type = 'Issue' AND ll.target_id = issues.id)`;
const assignedTo = (ids: number[]) => sql<SqlBool>`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = issues.id AND ia.user_id IN (${sql.join(ids)}))`;
const anyAssignee = sql<SqlBool>`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = issues.id)`;
const NONE = sql<SqlBool>`1 = 0`;

function filtered(db: Kysely<DB>, f: IssueFilter) {
  let q = db.selectFrom('issues').innerJoin('projects', 'projects.id', 'issues.project_id').selectAll('issues').where(viewerCondition(f.viewer));
  if (f.projectIds) q = f.projectIds.length ? q.where('issues.project_id', 'in', f.projectIds) : q.where(NONE);
  if (f.nonArchived) q = q.where('projects.archived', '=', 0);
  if (f.state) q = q.where('issues.state', '=', f.state);
  for (const title of f.labels ?? []) q = q.where(hasLabelTitled(title));
  if (f.labelsNone) q = q.where(sql<SqlBool>`NOT ${hasAnyLabel}`);
  if (f.labelsAny) q = q.where(hasAnyLabel);
  if (f.milestone) {
    if (f.milestone.kind === 'None') q = q.where('issues.milestone_id', 'is', null);
    else if (f.milestone.kind === 'Any') q = q.where('issues.milestone_id', 'is not', null);
    else q = f.milestone.ids.length ? q.where('issues.milestone_id', 'in', f.milestone.ids) : q.where(NONE);
  }
  if (f.authorId !== undefined) {
    if (f.authorId === 'None') q = q.where('issues.author_id', 'is', null);
    else if (f.authorId === 'Any') q = q.where('issues.author_id', 'is not', null);
    else q = q.where('issues.author_id', '=', f.authorId);
  }
  if (f.assigneeIds) q = f.assigneeIds.length ? q.where(assignedTo(f.assigneeIds)) : q.where(NONE);
  if (f.assigneeNone) q = q.where(sql<SqlBool>`NOT ${anyAssignee}`);
  if (f.assigneeAny) q = q.where(anyAssignee);
  if (f.iids) q = f.iids.length ? q.where('issues.iid', 'in', f.iids) : q.where(NONE);
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    const fields = f.searchIn?.length ? f.searchIn : ['title', 'description'];
    q = q.where((eb) => eb.or(fields.map((field) => ilike(db, `issues.${field}`, pattern))));
  }
  if (f.confidential !== undefined) q = q.where('issues.confidential', '=', f.confidential ? 1 : 0);
  if (f.issueType) q = q.where('issues.issue_type', '=', f.issueType);
  if (f.createdAfter) q = q.where('issues.created_at', '>=', f.createdAfter);
  if (f.createdBefore) q = q.where('issues.created_at', '<=', f.createdBefore);
  if (f.updatedAfter) q = q.where('issues.updated_at', '>=', f.updatedAfter);
  if (f.updatedBefore) q = q.where('issues.updated_at', '<=', f.updatedBefore);
  if (f.dueAfter) q = q.where('issues.due_date', '>=', f.dueAfter);
  if (f.dueBefore) q = q.where('issues.due_date', '<', f.dueBefore);
  if (f.dueNone) q = q.where('issues.due_date', 'is', null);
  const not = f.not ?? {};
  for (const title of not.labels ?? []) q = q.where(sql<SqlBool>`NOT ${hasLabelTitled(title)}`);
  if (not.milestoneIds?.length) q = q.where((eb) => eb.or([eb('issues.milestone_id', 'is', null), eb('issues.milestone_id', 'not in', not.milestoneIds!)]));
  if (not.authorIds?.length) q = q.where((eb) => eb.or([eb('issues.author_id', 'is', null), eb('issues.author_id', 'not in', not.authorIds!)]));
  if (not.assigneeIds?.length) q = q.where(sql<SqlBool>`NOT ${assignedTo(not.assigneeIds)}`);
  if (not.iids?.length) q = q.where('issues.iid', 'not in', not.iids);
  return q;
}

const ORDER_COLUMN: Partial<Record<IssueOrder, string>> = { created_at: 'issues.created_at', updated_at: 'issues.updated_at', title: 'issues.title' };

/** The issues a filter matches, as one page in the order asked. */
export function pageIssues(db: Kysely<DB>, f: IssueFilter, order: IssueOrder, sort: 'asc' | 'desc', page: PageRequest): Promise<PageResult<IssueRow>> {
  let q = filtered(db, f);
  const nullsLast = (expr: ReturnType<typeof sql>) => q.orderBy(sql`CASE WHEN ${expr} IS NULL THEN 1 ELSE 0 END`).orderBy(expr as any, sort);
  switch (order) {
    case 'due_date':
      q = nullsLast(sql.ref('issues.due_date'));
      break;
    case 'relative_position':
      q = nullsLast(sql.ref('issues.relative_position'));
      break;
    case 'milestone_due':
      q = nullsLast(sql`(SELECT m.due_date FROM milestones m WHERE m.id = issues.milestone_id)`);
      break;
    case 'label_priority':
    case 'priority': {
      if (order === 'priority') q = nullsLast(sql`(SELECT m.due_date FROM milestones m WHERE m.id = issues.milestone_id)`);
      const best = sql`(SELECT MIN(lp.priority) FROM label_links ll JOIN label_priorities lp ON lp.label_id = ll.label_id AND lp.project_id = issues.project_id
        WHERE ll.target_type = 'Issue' AND ll.target_id = issues.id)`;
      q = q.orderBy(sql`CASE WHEN ${best} IS NULL THEN 1 ELSE 0 END`).orderBy(best as any, sort);
      break;
    }
    case 'popularity':
      q = q.orderBy(sql`0`);
      break;
    default:
      q = q.orderBy(sql.ref(ORDER_COLUMN[order]!), sort);
  }
  return runPage(db, q.orderBy('issues.id', sort), page, { idColumn: 'issues.id' });
}

/** How many issues a filter matches in each state (issues_statistics). */
export async function countIssuesByState(db: Kysely<DB>, f: IssueFilter): Promise<{ all: number; opened: number; closed: number }> {
  const rows = await filtered(db, { ...f, state: undefined })
    .clearSelect()
    .select('issues.state')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .groupBy('issues.state')
    .execute();
  const by = new Map(rows.map((r) => [r.state, Number(r.n)]));
  const opened = f.state === 'closed' ? 0 : (by.get('opened') ?? 0);
  const closed = f.state === 'opened' ? 0 : (by.get('closed') ?? 0);
  return { all: opened + closed, opened, closed };
}

/** Open issues of a project: open_issues_count. */
export async function openIssueCount(db: Kysely<DB>, projectId: number): Promise<number> {
  const r = await db.selectFrom('issues').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).where('state', '=', 'opened').executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** The highest relative position among a project's issues (a moved issue goes after it). */
export async function maxRelativePosition(db: Kysely<DB>, projectId: number): Promise<number | null> {
  const r = await db.selectFrom('issues').select((eb) => eb.fn.max('relative_position').as('m')).where('project_id', '=', projectId).executeTakeFirst();
  return r?.m === null || r?.m === undefined ? null : Number(r.m);
}
