// Merge requests, their assignees and reviewers, and their diff versions.
import { sql, type Expression, type Insertable, type Kysely, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { isUniqueViolation, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, MergeRequestDiffsTable, MergeRequestsTable } from '../schema.js';
import { authorizedCondition, type AuthorizedScope } from './projects.js';

export type MergeRequestRow = Selectable<MergeRequestsTable>;
export type NewMergeRequest = Omit<Insertable<MergeRequestsTable>, 'iid'>;
export type MergeRequestPatch = Updateable<MergeRequestsTable>;
export type MergeRequestDiffRow = Selectable<MergeRequestDiffsTable>;

/** Inserts a merge request with the next iid of its project, and its assignees and reviewers. */
export async function insertMergeRequest(db: Kysely<DB>, row: NewMergeRequest, assigneeIds: number[], reviewerIds: number[]): Promise<MergeRequestRow> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(async (tx) => {
        const last = await tx.selectFrom('merge_requests').select('iid').where('project_id', '=', row.project_id).orderBy('iid', 'desc').limit(1).executeTakeFirst();
        const mr = await tx.insertInto('merge_requests').values({ ...row, iid: (last?.iid ?? 0) + 1 }).returningAll().executeTakeFirstOrThrow();
        await writeUsers(tx, 'merge_request_assignees', mr.id, assigneeIds, row.created_at);
        await writeUsers(tx, 'merge_request_reviewers', mr.id, reviewerIds, row.created_at);
        return mr;
      });
    } catch (err) {
      if (attempt < 20 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

type UserTable = 'merge_request_assignees' | 'merge_request_reviewers';

async function writeUsers(db: Kysely<DB>, table: UserTable, mrId: number, ids: number[], now: string): Promise<void> {
  if (ids.length) await db.insertInto(table).values(ids.map((user_id) => ({ merge_request_id: mrId, user_id, created_at: now }))).execute();
}

/** Replaces the assignees (or reviewers) of a merge request, keeping the order given. */
export async function replaceUsers(db: Kysely<DB>, table: UserTable, mrId: number, ids: number[], now: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom(table).where('merge_request_id', '=', mrId).execute();
    await writeUsers(tx, table, mrId, ids, now);
  });
}

/** The user ids of these merge requests' assignees (or reviewers), in the order they were set. */
export const usersOf = (db: Kysely<DB>, table: UserTable, mrIds: number[]): Promise<{ merge_request_id: number; user_id: number }[]> =>
  mrIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom(table).select(['merge_request_id', 'user_id']).where('merge_request_id', 'in', mrIds).orderBy('id').execute();

/** A request's reviewers with their review state, in the order they were set. */
export const reviewersOf = (db: Kysely<DB>, mrId: number) => db.selectFrom('merge_request_reviewers').selectAll().where('merge_request_id', '=', mrId).orderBy('id').execute();

export const findMergeRequest = (db: Kysely<DB>, projectId: number, iid: number) =>
  db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();

export const findMergeRequestById = (db: Kysely<DB>, id: number) => db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst();

export const updateMergeRequest = (db: Kysely<DB>, id: number, patch: MergeRequestPatch) =>
  db.updateTable('merge_requests').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Updates only while the request is still in `state` (a merge or close racing another): undefined when it was not. */
export const updateMergeRequestIn = (db: Kysely<DB>, id: number, state: string, patch: MergeRequestPatch) =>
  db.updateTable('merge_requests').set(patch).where('id', '=', id).where('state', '=', state).returningAll().executeTakeFirst();

export async function deleteMergeRequest(db: Kysely<DB>, id: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const t of ['merge_request_assignees', 'merge_request_reviewers', 'merge_request_diffs'] as const) await tx.deleteFrom(t).where('merge_request_id', '=', id).execute();
    await tx.deleteFrom('merge_requests').where('id', '=', id).execute();
  });
}

/** Another open request from the same source branch into the same target branch. */
export const openDuplicate = (db: Kysely<DB>, projectId: number, sourceProjectId: number, source: string, target: string, exceptId: number | null) => {
  let q = db
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('source_project_id', '=', sourceProjectId)
    .where('source_branch', '=', source)
    .where('target_branch', '=', target)
    .where('state', '=', 'opened');
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return q.orderBy('id').executeTakeFirst();
};

/** Open requests whose source is one of these branches of a project (pushes refresh them). */
export const openFromBranches = (db: Kysely<DB>, sourceProjectId: number, branches: string[]) =>
  branches.length === 0
    ? Promise.resolve([] as MergeRequestRow[])
    : db.selectFrom('merge_requests').selectAll().where('source_project_id', '=', sourceProjectId).where('source_branch', 'in', branches).where('state', '=', 'opened').orderBy('id').execute();

/** Open requests into one of these branches of a project. */
export const openIntoBranches = (db: Kysely<DB>, projectId: number, branches: string[]) =>
  branches.length === 0
    ? Promise.resolve([] as MergeRequestRow[])
    : db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('target_branch', 'in', branches).where('state', '=', 'opened').orderBy('id').execute();

/** Open requests of a project (as target or source) set to merge when their pipeline succeeds. */
export const waitingForPipelines = (db: Kysely<DB>, projectId: number) =>
  db
    .selectFrom('merge_requests')
    .selectAll()
    .where((eb) => eb.or([eb('project_id', '=', projectId), eb('source_project_id', '=', projectId)]))
    .where('merge_when_pipeline_succeeds', '=', 1)
    .where('state', '=', 'opened')
    .orderBy('id')
    .execute();

export const countOpenMergeRequests = async (db: Kysely<DB>, projectId: number): Promise<number> =>
  Number((await db.selectFrom('merge_requests').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).where('state', '=', 'opened').executeTakeFirst())?.n ?? 0);

// ---- diff versions ----

export const insertDiff = (db: Kysely<DB>, row: Insertable<MergeRequestDiffsTable>) => db.insertInto('merge_request_diffs').values(row).returningAll().executeTakeFirstOrThrow();

export const diffsOf = (db: Kysely<DB>, mrId: number) => db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mrId).orderBy('id', 'desc').execute();

export const diffsByIds = (db: Kysely<DB>, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([] as MergeRequestDiffRow[]) : db.selectFrom('merge_request_diffs').selectAll().where('id', 'in', ids).execute();

export const findDiff = (db: Kysely<DB>, mrId: number, id: number) =>
  db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mrId).where('id', '=', id).executeTakeFirst();

// ---- lists ----

/** Which projects a list reads: one project, some projects (a group's), or every project the caller may read requests of. */
export type MergeRequestScope =
  | { kind: 'project'; projectId: number }
  | { kind: 'group'; groupId: number; fullPathLower: string; visible: MergeRequestVisibility }
  | { kind: 'all'; visible: MergeRequestVisibility };

/**
 * The requests a caller may read across projects: those of projects open to them (levels) whose
 * merge requests are open to everyone, and of projects where they are reporter or more (access)
 * whose merge requests are not off. Null: an administrator (all).
 */
export type MergeRequestVisibility = { levels: number[]; access: AuthorizedScope | null } | null;

export type UserMatch = number | 'none' | 'any';

export interface MergeRequestFilter {
  scope: MergeRequestScope;
  state?: string;
  authorId?: number;
  assigneeId?: UserMatch;
  reviewerId?: UserMatch;
  sourceBranch?: string;
  targetBranch?: string;
  milestone?: 'none' | 'any';
  /** Requests with these milestone ids (a title resolved by the caller); empty matches none. */
  milestoneIds?: number[];
  search?: string;
  searchIn?: ('title' | 'description')[];
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  draft?: boolean;
  iids?: number[];
  /** Another id set that must contain the request (e.g. my reactions), none when empty. */
  not?: { authorId?: number; assigneeId?: number; reviewerId?: number; sourceBranch?: string; targetBranch?: string; milestoneIds?: number[] };
  orderBy: 'created_at' | 'updated_at' | 'title';
  sort: 'asc' | 'desc';
}

/** The title prefixes that make a request a draft (the reference's Draft/WIP words). */
export const DRAFT_PATTERN = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s|\[wip\]|wip:|wip\s-\s|wip\s)\s*/i;

function draftCondition(draft: boolean): Expression<SqlBool> {
  const t = sql`lower(merge_requests.title)`;
  const like = ['[draft]', '(draft)', 'draft:', 'draft ', '[wip]', 'wip:', 'wip '].map((p) => sql`ltrim(${t}) LIKE ${`${likeEscape(p)}%`} ESCAPE '\\'`);
  const any = sql<SqlBool>`(${sql.join(like, sql` OR `)})`;
  return draft ? any : sql<SqlBool>`NOT ${any}`;
}

function userCondition(table: UserTable, m: UserMatch, negate = false): Expression<SqlBool> {
  const sub = (extra: ReturnType<typeof sql>) => sql<SqlBool>`EXISTS (SELECT 1 FROM ${sql.table(table)} u WHERE u.merge_request_id = merge_requests.id ${extra})`;
  if (m === 'any') return sub(sql``);
  if (m === 'none') return sql<SqlBool>`NOT ${sub(sql``)}`;
  const c = sub(sql`AND u.user_id = ${m}`);
  return negate ? sql<SqlBool>`NOT ${c}` : c;
}

function visibleCondition(v: MergeRequestVisibility): Expression<SqlBool> {
  if (v === null) return sql<SqlBool>`1 = 1`;
  const open = sql<SqlBool>`(p.visibility_level IN (${sql.join(v.levels.length ? v.levels : [-1])}) AND p.merge_requests_access_level = 'enabled')`;
  if (!v.access) return sql<SqlBool>`EXISTS (SELECT 1 FROM projects p WHERE p.id = merge_requests.project_id AND ${open})`;
  // authorizedCondition speaks of `projects`: the subquery names its table so
  return sql<SqlBool>`EXISTS (SELECT 1 FROM projects p WHERE p.id = merge_requests.project_id AND (${open}
    OR (p.merge_requests_access_level != 'disabled' AND p.id IN (SELECT projects.id FROM projects WHERE ${authorizedCondition(v.access)}))))`;
}

export function pageMergeRequests(db: Kysely<DB>, f: MergeRequestFilter, page: PageRequest): Promise<PageResult<MergeRequestRow>> {
  let q = db.selectFrom('merge_requests').selectAll();
  const s = f.scope;
  if (s.kind === 'project') q = q.where('merge_requests.project_id', '=', s.projectId);
  else {
    if (s.kind === 'group') {
      // the group and every group below it
      const prefix = `${likeEscape(s.fullPathLower)}/%`;
      q = q.where(sql<SqlBool>`merge_requests.project_id IN (SELECT pr.id FROM projects pr WHERE pr.namespace_id IN
        (SELECT n.id FROM namespaces n WHERE n.id = ${s.groupId} OR n.full_path_lower LIKE ${prefix} ESCAPE '\\'))`);
    }
    q = q.where(visibleCondition(s.visible));
  }
  if (f.state) q = q.where('merge_requests.state', '=', f.state);
  if (f.authorId !== undefined) q = q.where('merge_requests.author_id', '=', f.authorId);
  if (f.assigneeId !== undefined) q = q.where(userCondition('merge_request_assignees', f.assigneeId));
  if (f.reviewerId !== undefined) q = q.where(userCondition('merge_request_reviewers', f.reviewerId));
  if (f.sourceBranch !== undefined) q = q.where('merge_requests.source_branch', '=', f.sourceBranch);
  if (f.targetBranch !== undefined) q = q.where('merge_requests.target_branch', '=', f.targetBranch);
  if (f.milestone === 'none') q = q.where('merge_requests.milestone_id', 'is', null);
  if (f.milestone === 'any') q = q.where('merge_requests.milestone_id', 'is not', null);
  if (f.milestoneIds) q = q.where('merge_requests.milestone_id', 'in', f.milestoneIds.length ? f.milestoneIds : [-1]);
  if (f.search) {
    const pattern = `%${likeEscape(f.search.toLowerCase())}%`;
    const cols = f.searchIn?.length ? f.searchIn : ['title', 'description'];
    q = q.where(sql<SqlBool>`(${sql.join(cols.map((col) => sql`lower(coalesce(${sql.ref(`merge_requests.${col}`)}, '')) LIKE ${pattern} ESCAPE '\\'`), sql` OR `)})`);
  }
  if (f.createdAfter) q = q.where('merge_requests.created_at', '>=', f.createdAfter);
  if (f.createdBefore) q = q.where('merge_requests.created_at', '<=', f.createdBefore);
  if (f.updatedAfter) q = q.where('merge_requests.updated_at', '>=', f.updatedAfter);
  if (f.updatedBefore) q = q.where('merge_requests.updated_at', '<=', f.updatedBefore);
  if (f.draft !== undefined) q = q.where(draftCondition(f.draft));
  if (f.iids) q = q.where('merge_requests.iid', 'in', f.iids.length ? f.iids : [-1]);
  const n = f.not;
  if (n) {
    if (n.authorId !== undefined) q = q.where('merge_requests.author_id', '!=', n.authorId);
    if (n.assigneeId !== undefined) q = q.where(userCondition('merge_request_assignees', n.assigneeId, true));
    if (n.reviewerId !== undefined) q = q.where(userCondition('merge_request_reviewers', n.reviewerId, true));
    if (n.sourceBranch !== undefined) q = q.where('merge_requests.source_branch', '!=', n.sourceBranch);
    if (n.targetBranch !== undefined) q = q.where('merge_requests.target_branch', '!=', n.targetBranch);
    if (n.milestoneIds?.length) {
      const ids = n.milestoneIds;
      q = q.where((eb) => eb.or([eb('merge_requests.milestone_id', 'is', null), eb('merge_requests.milestone_id', 'not in', ids)]));
    }
  }
  if (page.kind === 'keyset') {
    // keyset pages walk the id (creation order), in the page's direction
    return runPage(db, q.orderBy('merge_requests.id', page.sort), page, { idColumn: 'merge_requests.id' });
  }
  const column = `merge_requests.${f.orderBy}` as const;
  return runPage(db, q.orderBy(column, f.sort).orderBy('merge_requests.id', f.sort), page);
}

/** The newest pipeline of a project for one of these refs at this commit (a request's head pipeline). */
export const latestPipelineFor = (db: Kysely<DB>, projectId: number, refs: string[], sha: string) =>
  db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('ref', 'in', refs)
    .where('sha', '=', sha)
    .where('parent_pipeline_id', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/** A page of a project's pipelines for these refs (a request's pipelines), newest first. */
export const pagePipelinesFor = (db: Kysely<DB>, projectId: number, refs: string[], page: PageRequest) =>
  runPage(db, db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('ref', 'in', refs).where('parent_pipeline_id', 'is', null).orderBy('id', 'desc'), page);
