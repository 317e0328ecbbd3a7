// Branches of a project's repository: list (search, pages), get, HEAD, create, delete, and
// "delete merged branches" in the background. Every ref change goes through checkRefUpdates
// first and moveRefs (its intent, the move, its publication) after, like a push.
import type { Container } from '../context.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import {
  branchesWithCommits,
  createBranchRef,
  deleteBranchRef,
  findBranch,
  isValidBranchName,
  mergedInto,
  type BranchRef,
  type CommitInfo,
} from '../../git/refs.js';
import { branchNames, branchTips, branchWithCommit, commitsBySha, mergedBranches } from '../../git/ref_files.js';
import { aheadBehind, countCommits, resolveRevision, ZERO_SHA } from '../../git/repository.js';
import { compareAndSwapRef, readCommit, writeCommit } from '../../git/objects.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { apiError, DomainError, forbidden, notFound } from '../errors.js';
import { canPushCode, canReadCode, projectAccess, type ProjectAccess } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import { canPushToBranch, developersCan, loadProtection, matchingRules, type ProtectionSet, type Pusher } from '../protected_branches/policy.js';
import { checkRefUpdates, type RefUpdate } from '../repository/protection.js';
import { moveRefs } from '../repository/ref_changes.js';
import { repositoryDir } from '../repository/service.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ensureCommitGraph } from '../repository/statistics.js';

export const DELETE_MERGED_BRANCHES_JOB = 'delete_merged_branches';
/** A new branch on a huge history: its push event counts no further. */
const COMMIT_COUNT_CAP = 100_000;

export interface BranchView {
  project: ProjectRow;
  name: string;
  commit: CommitInfo;
  merged: boolean;
  protected: boolean;
  default: boolean;
  developersCanPush: boolean;
  developersCanMerge: boolean;
  canPush: boolean;
}

async function readable(c: Container, actor: Actor | null, idOrPath: number | string) {
  const found = await findProject(c, actor, idOrPath);
  if (!canReadCode(found.access)) throw forbidden();
  return found;
}

async function views(c: Container, actor: Actor | null, project: ProjectRow, access: ProjectAccess, refs: BranchRef[]): Promise<BranchView[]> {
  const dir = repositoryDir(c, project.id);
  const set = await loadProtection(c, project.id);
  const head = project.default_branch ? branchTips(dir).get(project.default_branch) : undefined;
  if (head) await ensureCommitGraph(c, project.id, dir); // "merged" is walked on it
  const merged = head ? await mergedBranches(dir, head, new Map(refs.map((r) => [r.name, r.commit.id]))) : new Set<string>();
  const who: Pusher | null = actor ? { actor, access } : null;
  const out: BranchView[] = [];
  for (const r of refs) {
    out.push({
      project,
      name: r.name,
      commit: r.commit,
      merged: merged.has(r.name),
      protected: matchingRules(set, r.name).length > 0,
      default: r.name === project.default_branch,
      developersCanPush: developersCan(set, r.name, 'push'),
      developersCanMerge: developersCan(set, r.name, 'merge'),
      canPush: await canPushToBranch(c, who, project, set, r.name),
    });
  }
  return out;
}

/** The reference's branch search: `^term` starts with, `term$` ends with, otherwise contains; case-insensitive. */
export function branchSearch(names: string[], search: string | undefined): string[] {
  if (!search) return names;
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  // One case-insensitive pattern tested on each name: no upper-cased copy of 5,000 names per request.
  const pattern = search.startsWith('^') ? `^${literal(search.slice(1))}` : search.endsWith('$') ? `${literal(search.slice(0, -1))}$` : literal(search);
  const matches = new RegExp(pattern, 'iu');
  return names.filter((n) => matches.test(n));
}

/**
 * GET /projects/:id/repository/branches: sorted by name. Names and tips are read from the
 * repository's ref files; the page's commits and merged answers come from git only the first time.
 */
export async function listBranches(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  search: string | undefined,
  page: PageRequest,
): Promise<PageResult<BranchView>> {
  const { row, access } = await readable(c, actor, idOrPath);
  const dir = repositoryDir(c, row.id);
  const tips = branchTips(dir);
  const names = branchSearch([...tips.keys()], search);
  const perPage = page.perPage;
  const start = page.kind === 'offset' ? (page.page - 1) * perPage : 0;
  const slice = names.slice(start, start + perPage);
  const commits = await commitsBySha(dir, slice.map((n) => tips.get(n)!));
  const refs = slice.filter((n) => commits.has(tips.get(n)!)).map((name) => ({ name, commit: commits.get(tips.get(name)!)! }));
  return { items: await views(c, actor, row, access, refs), total: names.length, hasNext: start + perPage < names.length };
}

export async function getBranch(c: Container, actor: Actor | null, idOrPath: number | string, name: string): Promise<BranchView> {
  const { row, access } = await readable(c, actor, idOrPath);
  const ref = await branchWithCommit(repositoryDir(c, row.id), name);
  if (!ref) throw notFound('Branch');
  return (await views(c, actor, row, access, [ref]))[0];
}

/**
 * How many commits each named branch is ahead of and behind the default branch (the branches
 * page's counts; the reference's web answers them beside its API). Unknown names are left out.
 */
export async function divergingCounts(c: Container, actor: Actor | null, idOrPath: number | string, names: string[]): Promise<Map<string, { ahead: number; behind: number }>> {
  const { row } = await readable(c, actor, idOrPath);
  const dir = repositoryDir(c, row.id);
  const tips = branchTips(dir);
  const base = row.default_branch ? tips.get(row.default_branch) : undefined;
  const out = new Map<string, { ahead: number; behind: number }>();
  if (!base) return out;
  const known = names.filter((n) => tips.has(n));
  const counts = await aheadBehind(dir, base, known.map((n) => tips.get(n)!));
  for (const n of known) {
    const count = counts.get(tips.get(n)!);
    if (count) out.set(n, count);
  }
  return out;
}

/** HEAD /projects/:id/repository/branches/:branch: 204 when it exists, else 404. */
export async function branchExists(c: Container, actor: Actor | null, idOrPath: number | string, name: string): Promise<void> {
  const { row } = await readable(c, actor, idOrPath);
  if (!(await branchWithCommit(repositoryDir(c, row.id), name))) throw notFound();
}

/** Names the reference's GitRefValidator refuses besides git's own rules. */
const validNewBranch = (name: string): boolean =>
  isValidBranchName(name) && !name.startsWith('refs/heads/') && !name.startsWith('refs/remotes/') && !/^[0-9a-f]{40}$/i.test(name);

/**
 * POST /projects/:id/repository/branches. An empty repository first gets its default branch
 * (an empty `.gitkeep`, as the reference does). The ref is created only if absent (git's
 * old-value check), so of concurrent creations of one name exactly one succeeds.
 */
export async function createBranch(c: Container, actor: Actor, idOrPath: number | string, name: string, ref: string): Promise<BranchView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canPushCode(row, access)) throw forbidden();
  const dir = repositoryDir(c, row.id);
  if (branchNames(dir).length === 0 && row.default_branch && isValidBranchName(row.default_branch)) {
    const author = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };
    const initial = await writeCommit(dir, { parent: null, actions: [{ action: 'create', filePath: '.gitkeep', content: Buffer.alloc(0) }], message: 'Initial commit', author, committer: author });
    const head = `refs/heads/${row.default_branch}`;
    // created only if it still does not exist (another request may have made it meanwhile)
    await moveRefs(c, actor, row, [{ ref: head, oldSha: ZERO_SHA, newSha: initial.sha, force: false, commitCount: 1, commitTitle: 'Initial commit' }], () =>
      compareAndSwapRef(dir, head, initial.sha, ZERO_SHA));
  }
  if (!validNewBranch(name)) throw apiError('Branch name is invalid');
  if (await findBranch(dir, name)) throw apiError('Branch already exists');
  const sha = await resolveRevision(dir, ref);
  if (!sha) throw apiError(`Invalid reference name: ${ref}`);

  const update: RefUpdate = { ref: `refs/heads/${name}`, oldSha: ZERO_SHA, newSha: sha, force: false };
  await checkRefUpdates(c, actor, row, [update], { via: 'web' }); // a refusal is the reference's 400 with git's message
  const base = row.default_branch && row.default_branch !== name ? await resolveRevision(dir, `refs/heads/${row.default_branch}`) : null;
  const change = { ...update, commitCount: await countCommits(dir, sha, base, COMMIT_COUNT_CAP), commitTitle: (await readCommit(dir, sha))?.message.split('\n')[0] ?? null };
  if (!(await moveRefs(c, actor, row, [change], () => createBranchRef(dir, name, sha)))) throw apiError('Branch already exists');
  const created = await findBranch(dir, name);
  if (!created) throw apiError('Branch already exists'); // deleted again in between
  return (await views(c, actor, row, access, [created]))[0];
}

/** DELETE /projects/:id/repository/branches/:branch (If-Unmodified-Since against the tip's authored date). */
export async function deleteBranch(c: Container, actor: Actor, idOrPath: number | string, name: string, ifUnmodifiedSince: Date | null): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canPushCode(row, access)) throw forbidden();
  const dir = repositoryDir(c, row.id);
  const branch = await findBranch(dir, name);
  if (!branch) throw notFound('Branch');
  checkUnmodifiedSince(branch.commit.authoredDate, ifUnmodifiedSince);
  const update: RefUpdate = { ref: `refs/heads/${name}`, oldSha: branch.commit.id, newSha: ZERO_SHA, force: false };
  await checkRefUpdates(c, actor, row, [update], { via: 'web' }); // a refusal is the reference's 400 with git's message
  if (!(await moveRefs(c, actor, row, [{ ...update, commitCount: 0, commitTitle: null }], () => deleteBranchRef(dir, name, branch.commit.id)))) {
    throw apiError('Failed to remove branch');
  }
}

/** DELETE /projects/:id/repository/merged_branches: queued; the job does the work. */
export async function deleteMergedBranches(c: Container, actor: Actor, idOrPath: number | string): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canPushCode(row, access)) throw forbidden();
  await c.queue.enqueue(DELETE_MERGED_BRANCHES_JOB, { projectId: row.id, userId: actor.user.id });
}

/**
 * The job: every branch merged into the default branch, except the default branch itself and
 * protected branches, deleted as its requester (each through the checks, each old-value
 * checked, so a branch that moved meanwhile stays). Safe to run twice.
 */
export async function runDeleteMergedBranches(c: Container, payload: { projectId: number; userId: number }): Promise<void> {
  const row = await findProjectById(c.db, payload.projectId);
  const user = await findUserById(c.db, payload.userId);
  if (!row || !user || !row.default_branch) return;
  const actor = actingAs(user);
  const access = await projectAccess(c, actor, row);
  if (!canPushCode(row, access)) return;
  const dir = repositoryDir(c, row.id);
  const set: ProtectionSet = await loadProtection(c, row.id);
  const names = branchNames(dir).filter((n) => n !== row.default_branch && matchingRules(set, n).length === 0);
  const merged = await mergedInto(dir, row.default_branch, names);
  for (const ref of await branchesWithCommits(dir, [...merged])) {
    const update: RefUpdate = { ref: `refs/heads/${ref.name}`, oldSha: ref.commit.id, newSha: ZERO_SHA, force: false };
    try {
      await checkRefUpdates(c, actor, row, [update], { via: 'web' });
    } catch (e) {
      if (e instanceof DomainError) continue;
      throw e;
    }
    await moveRefs(c, actor, row, [{ ...update, commitCount: 0, commitTitle: null }], () => deleteBranchRef(dir, ref.name, ref.commit.id));
  }
}

