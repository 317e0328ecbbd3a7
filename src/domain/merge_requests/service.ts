// Merge requests: list (a project's, a group's, everyone's), get, create, update, delete, and the
// views the API presents. Branch state (versions, merge status) lives in refresh.ts; merging in
// merge.ts; what a request changes (commits, diffs, versions) in changes.ts.
import { dateTimeParam } from '../shared/params.js';
import type { Container } from '../context.js';
import {
  deleteMergeRequest, diffsByIds, findMergeRequest, insertMergeRequest, latestPipelineFor, openDuplicate, pageMergeRequests, replaceUsers, updateMergeRequest, usersOf,
  DRAFT_PATTERN, type MergeRequestDiffRow, type MergeRequestFilter, type MergeRequestRow, type MergeRequestScope, type UserMatch,
} from '../../db/repos/merge_requests.js';
import { findProjectById, findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import { findUserByUsername, findUsersByIds, type UserRow } from '../../db/repos/users.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import { countCommits, resolveRevision } from '../../git/repository.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { ciAccessFrom } from '../ci/policy.js';
import { apiError, exactError, forbidden, invalidParams, recordNotFound, unauthorized, validation } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { findGroup } from '../groups/find.js';
import { ACCESS, authorizedScope, visibleLevelsFor } from '../members/policy.js';
import { canCreateMergeRequestIn, ensureWritable, projectAccess, type ProjectAccess } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import { canMergeToBranch, loadProtection } from '../protected_branches/policy.js';
import { repositoryDir } from '../repository/service.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { canAdminMergeRequest, canCreateMergeRequestFrom, canDestroyMergeRequest, canReadMergeRequests, canUpdateMergeRequest } from './policy.js';
import { createMergeRequestPipeline } from './pipelines.js';
import { headRef, refreshMergeRequest } from './refresh.js';

export interface MergeRequestView {
  mr: MergeRequestRow;
  /** The target project (where the request lives). */
  project: ProjectRow;
  users: Map<number, UserRow>;
  assigneeIds: number[];
  reviewerIds: number[];
  /** The latest version (its head is the request's sha). */
  diff: MergeRequestDiffRow | null;
}

export interface MergeRequestDetail extends MergeRequestView {
  /** Null when there is none or the caller may not read pipelines (then `hidePipeline`). */
  headPipeline: { pipeline: PipelineRow; project: ProjectRow; user: UserRow | null } | null;
  hidePipeline: boolean;
  canMerge: boolean;
  detailedMergeStatus: string;
  blockingDiscussionsResolved: boolean;
  /** Commits the target branch has that the source lacks. */
  divergedCommitsCount: number;
}

export interface FoundMergeRequest {
  project: ProjectRow;
  access: ProjectAccess;
  mr: MergeRequestRow;
}

/** The reference's refusals whose body is a list (`{"message": ["…"]}`: a model's errors on one key). */
const listError = (status: number, messages: string[]) => exactError(status, { message: messages });

export const isDraft = (title: string): boolean => DRAFT_PATTERN.test(title);
const withoutDraft = (title: string): string => title.replace(DRAFT_PATTERN, '');

/** A project whose merge requests the actor may read: 404 when invisible, 403 when the feature is closed to them. */
export async function mergeRequestProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<{ row: ProjectRow; access: ProjectAccess }> {
  const found = await findProject(c, actor, idOrPath);
  if (!canReadMergeRequests(found.row, found.access)) throw forbidden();
  return found;
}

/** A request by iid in a project the actor may read requests of; 404 Not found otherwise. */
export async function findMergeRequestFor(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<FoundMergeRequest> {
  const { row, access } = await mergeRequestProject(c, actor, idOrPath);
  const mr = await findMergeRequest(c.db, row.id, iid);
  if (!mr) throw recordNotFound();
  return { project: row, access, mr };
}

/** Views of rows: their users read at once. */
export async function viewsOf(c: Container, rows: MergeRequestRow[], projects?: Map<number, ProjectRow>): Promise<MergeRequestView[]> {
  const ids = rows.map((r) => r.id);
  const [assignees, reviewers, diffs] = await Promise.all([
    usersOf(c.db, 'merge_request_assignees', ids),
    usersOf(c.db, 'merge_request_reviewers', ids),
    diffsByIds(c.db, rows.flatMap((r) => (r.latest_diff_id !== null ? [r.latest_diff_id] : []))),
  ]);
  const userIds = new Set<number>();
  for (const r of rows) for (const id of [r.author_id, r.merged_by_id, r.merge_user_id, r.closed_by_id]) if (id !== null) userIds.add(id);
  for (const a of [...assignees, ...reviewers]) userIds.add(a.user_id);
  const users = new Map((await findUsersByIds(c.db, [...userIds])).map((u) => [u.id, u] as const));
  const known = projects ?? new Map<number, ProjectRow>();
  const missing = [...new Set(rows.map((r) => r.project_id))].filter((id) => !known.has(id));
  if (missing.length) for (const p of await findProjectsByIds(c.db, missing)) known.set(p.id, p);
  return rows.map((mr) => ({
    mr,
    project: known.get(mr.project_id)!,
    users,
    assigneeIds: assignees.filter((a) => a.merge_request_id === mr.id).map((a) => a.user_id),
    reviewerIds: reviewers.filter((a) => a.merge_request_id === mr.id).map((a) => a.user_id),
    diff: diffs.find((d) => d.id === mr.latest_diff_id) ?? null,
  }));
}

/** Whether this actor may merge the request (user.can_merge): merge rights on the target branch. */
export async function canMergeRequest(c: Container, actor: Actor | null, project: ProjectRow, access: ProjectAccess, mr: MergeRequestRow): Promise<boolean> {
  if (!actor || project.archived === 1) return false;
  return canMergeToBranch(c, { actor, access }, project, await loadProtection(c, project.id), mr.target_branch);
}

/** The newest pipeline of the source branch (or the request's head ref) at the request's head. */
export async function headPipelineOf(c: Container, mr: MergeRequestRow, diff: MergeRequestDiffRow | null): Promise<PipelineRow | null> {
  if (!diff) return null;
  const own = await latestPipelineFor(c.db, mr.project_id, [headRef(mr), mr.source_branch], diff.head_commit_sha);
  if (mr.source_project_id === mr.project_id || own) return own ?? null;
  return (await latestPipelineFor(c.db, mr.source_project_id, [mr.source_branch], diff.head_commit_sha)) ?? null;
}

const PIPELINE_DONE_OK = new Set(['success']);
const PIPELINE_RUNNING = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled', 'manual']);

/**
 * The reference's detailed_merge_status: what stands between the request and a merge, first
 * reason first.
 */
export function detailedStatus(project: ProjectRow, mr: MergeRequestRow, diff: Pick<MergeRequestDiffRow, 'base_commit_sha' | 'start_commit_sha'> | null, pipeline: PipelineRow | null, sourceExists: boolean): string {
  if (mr.merge_status === 'unchecked') return 'unchecked';
  if (mr.merge_status === 'checking') return 'checking';
  if (mr.state !== 'opened') return 'not_open';
  if (isDraft(mr.title)) return 'draft_status';
  if (!sourceExists || !diff) return 'broken_status';
  if (mr.merge_status === 'cannot_be_merged' || mr.merge_status === 'cannot_be_merged_recheck') return 'broken_status';
  if (project.only_allow_merge_if_pipeline_succeeds === 1) {
    if (pipeline && PIPELINE_RUNNING.has(pipeline.status)) return 'ci_still_running';
    const ok = pipeline && (PIPELINE_DONE_OK.has(pipeline.status) || (pipeline.status === 'skipped' && project.allow_merge_on_skipped_pipeline === 1));
    if (!ok) return 'ci_must_pass';
  }
  if (project.merge_method !== 'merge' && diff.start_commit_sha !== null && diff.base_commit_sha !== diff.start_commit_sha) return 'need_rebase';
  return 'mergeable';
}

/** The detail of one request, brought in step with its branches first. */
export async function detailOf(c: Container, actor: Actor | null, found: FoundMergeRequest): Promise<MergeRequestDetail> {
  const { mr, diff } = await refreshMergeRequest(c, found.mr);
  const [view] = await viewsOf(c, [mr], new Map([[found.project.id, found.project]]));
  view.diff = diff;
  const pipeline = await headPipelineOf(c, mr, diff);
  const readPipelines = ciAccessFrom(found.project, found.access).readPipelines;
  let headPipeline: MergeRequestDetail['headPipeline'] = null;
  if (pipeline && readPipelines) {
    const project = pipeline.project_id === found.project.id ? found.project : ((await findProjectById(c.db, pipeline.project_id)) ?? found.project);
    const user = pipeline.user_id !== null ? ((await findUsersByIds(c.db, [pipeline.user_id]))[0] ?? null) : null;
    headPipeline = { pipeline, project, user };
  }
  const sourceExists = (await resolveRevision(repositoryDir(c, mr.source_project_id), `refs/heads/${mr.source_branch}`)) !== null;
  return {
    ...view,
    diff,
    headPipeline,
    hidePipeline: !readPipelines,
    canMerge: await canMergeRequest(c, actor, found.project, found.access, mr),
    detailedMergeStatus: detailedStatus(found.project, mr, diff, pipeline, sourceExists),
    blockingDiscussionsResolved: true,
    divergedCommitsCount: diff?.start_commit_sha ? await countCommits(repositoryDir(c, mr.project_id), diff.start_commit_sha, diff.head_commit_sha) : 0,
  };
}

export async function getMergeRequest(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<MergeRequestDetail> {
  return detailOf(c, actor, await findMergeRequestFor(c, actor, idOrPath, iid));
}

// ---- lists ----

export interface ListInput {
  state?: string;
  order_by?: 'created_at' | 'updated_at' | 'title';
  sort?: 'asc' | 'desc';
  milestone?: string;
  labels?: string[];
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  scope?: string;
  author_id?: number;
  author_username?: string;
  assignee_id?: string;
  assignee_username?: string[];
  reviewer_id?: string;
  reviewer_username?: string;
  source_branch?: string;
  target_branch?: string;
  search?: string;
  in?: string;
  wip?: 'yes' | 'no';
  iids?: number[];
  not?: Record<string, unknown>;
}

/** An `assignee_id`-style value: an integer, `None` or `Any` (any case). */
function userMatch(name: string, v: string | undefined): UserMatch | undefined {
  if (v === undefined) return undefined;
  if (/^none$/i.test(v)) return 'none';
  if (/^any$/i.test(v)) return 'any';
  if (/^\d+$/.test(v)) return Number(v);
  throw invalidParams(`${name} should be an integer, none or any`);
}

async function userIdByName(c: Container, username: string | undefined): Promise<number | undefined> {
  if (username === undefined) return undefined;
  return (await findUserByUsername(c.db, username))?.id ?? -1;
}

/** The filter of a list, as the reference's MergeRequestsFinder reads its params. */
async function filterOf(c: Container, actor: Actor | null, input: ListInput, scope: MergeRequestScope): Promise<MergeRequestFilter | null> {
  const f: MergeRequestFilter = { scope, orderBy: input.order_by ?? 'created_at', sort: input.sort ?? 'desc' };
  if (input.state && input.state !== 'all') f.state = input.state;
  f.authorId = input.author_id ?? (await userIdByName(c, input.author_username));
  f.assigneeId = userMatch('assignee_id', input.assignee_id);
  if (input.assignee_username?.length) f.assigneeId = (await userIdByName(c, input.assignee_username[0])) ?? -1;
  f.reviewerId = userMatch('reviewer_id', input.reviewer_id);
  if (input.reviewer_username !== undefined) f.reviewerId = /^(none|any)$/i.test(input.reviewer_username) ? (input.reviewer_username.toLowerCase() as 'none' | 'any') : ((await userIdByName(c, input.reviewer_username)) ?? -1);
  if (input.scope === 'created_by_me' || input.scope === 'created-by-me') {
    if (!actor) return null;
    f.authorId = actor.user.id;
  } else if (input.scope === 'assigned_to_me' || input.scope === 'assigned-to-me') {
    if (!actor) return null;
    f.assigneeId = actor.user.id;
  }
  f.sourceBranch = input.source_branch;
  f.targetBranch = input.target_branch;
  if (input.milestone !== undefined) {
    if (/^none$/i.test(input.milestone)) f.milestone = 'none';
    else if (/^any$/i.test(input.milestone)) f.milestone = 'any';
    else f.milestoneIds = []; // no milestone has that title (milestones are not wired to requests yet)
  }
  if (input.labels?.length) {
    // no request carries a label yet: None matches all, any other label none
    if (!(input.labels.length === 1 && /^none$/i.test(input.labels[0]))) return null;
  }
  if (input.search) {
    f.search = input.search;
    const parts = (input.in ?? 'title,description').split(',').map((s) => s.trim());
    f.searchIn = parts.filter((s): s is 'title' | 'description' => s === 'title' || s === 'description');
  }
  f.createdAfter = dateTimeParam('created_after', input.created_after);
  f.createdBefore = dateTimeParam('created_before', input.created_before);
  f.updatedAfter = dateTimeParam('updated_after', input.updated_after);
  f.updatedBefore = dateTimeParam('updated_before', input.updated_before);
  if (input.wip !== undefined) f.draft = input.wip === 'yes';
  if (input.iids) f.iids = input.iids;
  const n = input.not;
  if (n && typeof n === 'object') {
    const str = (k: string) => (typeof n[k] === 'string' || typeof n[k] === 'number' ? String(n[k]) : undefined);
    const int = (k: string) => {
      const v = str(k);
      if (v === undefined) return undefined;
      if (!/^\d+$/.test(v)) throw invalidParams(`not[${k}] is invalid`);
      return Number(v);
    };
    f.not = {
      authorId: int('author_id') ?? (await userIdByName(c, str('author_username'))),
      assigneeId: int('assignee_id') ?? (await userIdByName(c, str('assignee_username'))),
      reviewerId: int('reviewer_id') ?? (await userIdByName(c, str('reviewer_username'))),
      sourceBranch: str('source_branch'),
      targetBranch: str('target_branch'),
    };
    if (str('milestone') !== undefined && /^(none|any)$/i.test(str('milestone')!)) {
      if (/^none$/i.test(str('milestone')!)) f.milestone = 'any';
      else f.milestone = 'none';
    }
  }
  return f;
}

const EMPTY = <T>(): PageResult<T> => ({ items: [], total: 0, hasNext: false });

/** The requests a caller may read across projects (null: all, for admins). */
function visibility(actor: Actor | null) {
  if (isAdmin(actor)) return null;
  return { levels: visibleLevelsFor(actor), access: actor ? authorizedScope(actor, ACCESS.REPORTER) : null };
}

export async function listProjectMergeRequests(c: Container, actor: Actor | null, idOrPath: number | string, input: ListInput, page: PageRequest): Promise<PageResult<MergeRequestView>> {
  const { row } = await mergeRequestProject(c, actor, idOrPath);
  const f = await filterOf(c, actor, input, { kind: 'project', projectId: row.id });
  if (!f) return EMPTY();
  const result = await pageMergeRequests(c.db, f, page);
  return { ...result, items: await viewsOf(c, result.items, new Map([[row.id, row]])) };
}

export async function listGroupMergeRequests(c: Container, actor: Actor | null, idOrPath: number | string, input: ListInput, page: PageRequest): Promise<PageResult<MergeRequestView>> {
  const group = await findGroup(c, actor, idOrPath);
  const f = await filterOf(c, actor, input, { kind: 'group', groupId: group.row.id, fullPathLower: group.row.full_path_lower, visible: visibility(actor) });
  if (!f) return EMPTY();
  const result = await pageMergeRequests(c.db, f, page);
  return { ...result, items: await viewsOf(c, result.items) };
}

/** GET /merge_requests: the caller's (created_by_me by default); `scope=all` for everything they may read (anonymous callers: only that). */
export async function listAllMergeRequests(c: Container, actor: Actor | null, input: ListInput, page: PageRequest): Promise<PageResult<MergeRequestView>> {
  if (!actor && input.scope !== 'all') throw unauthorized();
  const f = await filterOf(c, actor, { ...input, scope: input.scope ?? 'created_by_me' }, { kind: 'all', visible: visibility(actor) });
  if (!f) return EMPTY();
  const result = await pageMergeRequests(c.db, f, page);
  return { ...result, items: await viewsOf(c, result.items) };
}

// ---- create, update, delete ----

export interface CreateInput {
  source_branch: string;
  target_branch: string;
  title: string;
  description?: string;
  target_project_id?: number;
  assignee_id?: number;
  assignee_ids?: number[];
  reviewer_ids?: number[];
  labels?: string[];
  milestone_id?: number;
  remove_source_branch?: boolean;
  allow_collaboration?: boolean;
  allow_maintainer_to_push?: boolean;
  squash?: boolean;
}

/** Users that exist, in the order given, each once; 0 clears. */
async function existingUsers(c: Container, ids: number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined;
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  const found = new Set((await findUsersByIds(c.db, wanted)).map((u) => u.id));
  return wanted.filter((id) => found.has(id));
}

/** The squash flag a project's squash option allows: forced on or off, or the caller's (default per option). */
export function squashFor(project: ProjectRow, asked: boolean | undefined, current = false): boolean {
  if (project.squash_option === 'always') return true;
  if (project.squash_option === 'never') return false;
  return asked ?? (project.squash_option === 'default_on' ? true : current);
}

/** A fork's upstream, when the request goes there by default (the reference's default_merge_request_target). */
async function defaultTarget(c: Container, actor: Actor, source: ProjectRow): Promise<ProjectRow> {
  if (source.forked_from_id === null) return source;
  const upstream = await findProjectById(c.db, source.forked_from_id);
  if (!upstream) return source;
  const access = await projectAccess(c, actor, upstream);
  return canCreateMergeRequestIn(upstream, access) ? upstream : source;
}

/** True when `a` and `b` are one project or in one fork network (one forked, directly or not, from the other's root). */
async function sameForkNetwork(c: Container, a: ProjectRow, b: ProjectRow): Promise<boolean> {
  const root = async (p: ProjectRow) => {
    let cur = p;
    for (let i = 0; i < 20 && cur.forked_from_id !== null; i++) {
      const up = await findProjectById(c.db, cur.forked_from_id);
      if (!up) break;
      cur = up;
    }
    return cur.id;
  };
  return a.id === b.id || (await root(a)) === (await root(b));
}

export async function createMergeRequest(c: Container, actor: Actor, idOrPath: number | string, input: CreateInput): Promise<MergeRequestDetail> {
  const source = await findProject(c, actor, idOrPath);
  ensureWritable(source.row);
  if (!canCreateMergeRequestFrom(source.row, source.access)) throw forbidden();
  let target = { row: source.row, access: source.access };
  if (input.target_project_id !== undefined && input.target_project_id !== source.row.id) {
    target = await findProject(c, actor, input.target_project_id);
  } else if (input.target_project_id === undefined) {
    const t = await defaultTarget(c, actor, source.row);
    if (t.id !== source.row.id) target = { row: t, access: await projectAccess(c, actor, t) };
  }
  if (!canCreateMergeRequestIn(target.row, target.access)) throw forbidden();
  if (!(await sameForkNetwork(c, source.row, target.row))) throw apiError('Source project is not a fork of the target project', 422);
  if (source.row.id === target.row.id && input.source_branch === input.target_branch) {
    throw listError(422, ["You can't use same project/branch for source and target"]);
  }
  const missingBranch: Record<string, string[]> = {};
  if (!(await resolveRevision(repositoryDir(c, source.row.id), `refs/heads/${input.source_branch}`))) missingBranch.source_branch = ['does not exist'];
  if (!(await resolveRevision(repositoryDir(c, target.row.id), `refs/heads/${input.target_branch}`))) missingBranch.target_branch = ['does not exist'];
  if (Object.keys(missingBranch).length) throw validation(missingBranch);
  const dup = await openDuplicate(c.db, target.row.id, source.row.id, input.source_branch, input.target_branch, null);
  if (dup) throw listError(409, [`Another open merge request already exists for this source branch: !${dup.iid}`]);

  // Assignees, reviewers and milestone are set only by those who may administer requests (the reference drops them otherwise).
  const admin = canAdminMergeRequest(target.row, target.access);
  const assignees = admin ? ((await existingUsers(c, input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined))) ?? []) : [];
  const reviewers = admin ? ((await existingUsers(c, input.reviewer_ids)) ?? []) : [];
  const now = nowIso();
  const mr = await insertMergeRequest(
    c.db,
    {
      project_id: target.row.id,
      source_project_id: source.row.id,
      source_branch: input.source_branch,
      target_branch: input.target_branch,
      title: input.title,
      description: input.description ?? null,
      author_id: actor.user.id,
      milestone_id: admin ? (input.milestone_id || null) : null,
      squash: squashFor(target.row, input.squash) ? 1 : 0,
      force_remove_source_branch: input.remove_source_branch ? 1 : 0,
      allow_collaboration: source.row.id !== target.row.id && (input.allow_collaboration ?? input.allow_maintainer_to_push) ? 1 : 0,
      created_at: now,
      updated_at: now,
    },
    assignees,
    reviewers,
  );
  await recordEvent(c, { action: 'created', authorId: actor.user.id, projectId: target.row.id, target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title } });
  const fresh = await refreshMergeRequest(c, mr);
  await createMergeRequestPipeline(c, actor.user, target.row, fresh.mr, fresh.diff);
  const detail = await detailOf(c, actor, { project: target.row, access: target.access, mr: fresh.mr });
  await mergeRequestChanged(c, actor, detail, 'open', {});
  return detail;
}


export interface UpdateInput {
  title?: string;
  description?: string;
  target_branch?: string;
  state_event?: 'close' | 'reopen';
  assignee_id?: number;
  assignee_ids?: number[];
  reviewer_ids?: number[];
  labels?: string[];
  add_labels?: string[];
  remove_labels?: string[];
  milestone_id?: number;
  remove_source_branch?: boolean;
  allow_collaboration?: boolean;
  allow_maintainer_to_push?: boolean;
  squash?: boolean;
  discussion_locked?: boolean;
  draft?: boolean;
}

/** What an update changed, as a hook's `changes` names them: [before, after]. */
export type Changes = Record<string, [unknown, unknown]>;

export async function updateMergeRequestFields(c: Container, actor: Actor, idOrPath: number | string, iid: number, input: UpdateInput): Promise<MergeRequestDetail> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const { project, access } = found;
  let mr = found.mr;
  ensureWritable(project);
  if (!canUpdateMergeRequest(project, access, actor, mr)) throw forbidden();
  const admin = canAdminMergeRequest(project, access);
  const now = nowIso();
  const patch: Parameters<typeof updateMergeRequest>[2] = {};
  const changes: Changes = {};
  const set = <K extends keyof MergeRequestRow>(k: K, v: MergeRequestRow[K]) => {
    if (mr[k] !== v) {
      (patch as Record<string, unknown>)[k] = v;
      changes[k] = [mr[k], v];
    }
  };
  let title = input.title ?? mr.title;
  if (input.draft === true && !isDraft(title)) title = `Draft: ${title}`;
  if (input.draft === false) title = withoutDraft(title);
  if (title.trim() === '') throw validation({ title: ["can't be blank"] });
  set('title', title);
  if (input.description !== undefined) set('description', input.description);
  if (input.target_branch !== undefined && input.target_branch !== mr.target_branch) {
    if (mr.state === 'merged') throw validation({ target_branch: ['cannot be changed on a merged merge request'] });
    if (!(await resolveRevision(repositoryDir(c, project.id), `refs/heads/${input.target_branch}`))) throw validation({ target_branch: ['does not exist'] });
    if (mr.source_project_id === project.id && input.target_branch === mr.source_branch) throw listError(422, ["You can't use same project/branch for source and target"]);
    const dup = await openDuplicate(c.db, project.id, mr.source_project_id, mr.source_branch, input.target_branch, mr.id);
    if (dup && mr.state === 'opened') throw listError(409, [`Another open merge request already exists for this source branch: !${dup.iid}`]);
    set('target_branch', input.target_branch);
    patch.merge_status = 'unchecked';
  }
  if (input.remove_source_branch !== undefined) set('force_remove_source_branch', input.remove_source_branch ? 1 : 0);
  if (input.squash !== undefined) set('squash', squashFor(project, input.squash, mr.squash === 1) ? 1 : 0);
  const collab = input.allow_collaboration ?? input.allow_maintainer_to_push;
  if (collab !== undefined && mr.source_project_id !== mr.project_id) set('allow_collaboration', collab ? 1 : 0);
  if (admin) {
    if (input.discussion_locked !== undefined) set('discussion_locked', input.discussion_locked ? 1 : 0);
    if (input.milestone_id !== undefined) set('milestone_id', input.milestone_id || null);
  }
  let action: 'update' | 'close' | 'reopen' = 'update';
  if (input.state_event === 'close' && (mr.state === 'opened' || mr.state === 'locked')) {
    set('state', 'closed');
    patch.closed_at = now;
    patch.closed_by_id = actor.user.id;
    patch.merge_when_pipeline_succeeds = 0;
    action = 'close';
  } else if (input.state_event === 'reopen' && mr.state === 'closed') {
    if (!(await resolveRevision(repositoryDir(c, mr.source_project_id), `refs/heads/${mr.source_branch}`))) {
      throw listError(409, ['Cannot reopen merge request: source branch does not exist']);
    }
    const dup = await openDuplicate(c.db, project.id, mr.source_project_id, mr.source_branch, input.target_branch ?? mr.target_branch, mr.id);
    if (dup) throw listError(409, [`Another open merge request already exists for this source branch: !${dup.iid}`]);
    set('state', 'opened');
    patch.merge_status = 'unchecked';
    action = 'reopen';
  }
  const before = { assignees: (await usersOf(c.db, 'merge_request_assignees', [mr.id])).map((u) => u.user_id), reviewers: (await usersOf(c.db, 'merge_request_reviewers', [mr.id])).map((u) => u.user_id) };
  if (admin) {
    const assignees = await existingUsers(c, input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined));
    if (assignees && assignees.join() !== before.assignees.join()) {
      await replaceUsers(c.db, 'merge_request_assignees', mr.id, assignees, now);
      changes.assignees = [before.assignees, assignees];
    }
    const reviewers = await existingUsers(c, input.reviewer_ids);
    if (reviewers && reviewers.join() !== before.reviewers.join()) {
      await replaceUsers(c.db, 'merge_request_reviewers', mr.id, reviewers, now);
      changes.reviewers = [before.reviewers, reviewers];
    }
  }
  if (Object.keys(changes).length) {
    patch.updated_at = now;
    changes.updated_at = [mr.updated_at, now];
    mr = await updateMergeRequest(c.db, mr.id, patch);
  }
  if (action !== 'update') {
    await recordEvent(c, { action: action === 'close' ? 'closed' : 'reopened', authorId: actor.user.id, projectId: project.id, target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title } });
  }
  const detail = await detailOf(c, actor, { project, access, mr });
  if (Object.keys(changes).length) await mergeRequestChanged(c, actor, detail, action, changes);
  return detail;
}

export async function deleteMergeRequestFor(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<void> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  if (!canDestroyMergeRequest(found.access)) throw forbidden();
  await deleteMergeRequest(c.db, found.mr.id);
}

/** What listens to request changes (hooks, system notes): set by those modules, called after each change. */
export type ChangeListener = (c: Container, actor: Actor, detail: MergeRequestDetail, action: string, changes: Changes) => Promise<void>;
const changeListeners: ChangeListener[] = [];
export const onMergeRequestChange = (l: ChangeListener): void => void changeListeners.push(l);

export async function mergeRequestChanged(c: Container, actor: Actor, detail: MergeRequestDetail, action: string, changes: Changes): Promise<void> {
  for (const l of changeListeners) {
    try {
      await l(c, actor, detail, action, changes);
    } catch (err) {
      c.log.error({ err, mergeRequestId: detail.mr.id }, 'a merge request listener failed');
    }
  }
}

