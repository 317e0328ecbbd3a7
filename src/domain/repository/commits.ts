// Commits without git: a commit made from actions (the commits and files APIs both come here), and
// the commit readers. Every commit goes through checkRefUpdates before its branch moves and
// through moveRefs (its intent, the move, its publication); the branch moves by compare-and-swap, and a commit that lost
// a race with another change of the branch is rebuilt on the new head, so none is ever lost.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import {
  ActionError,
  commitStats,
  compareAndSwapRef,
  isEmptyRepository,
  objectExists,
  readCommit,
  writeCommit,
  type CommitInfo,
  type FileAction,
} from '../../git/objects.js';
import { commitDiff, type FileDiff } from '../../git/commit_diff.js';
import { lastCommitFor, logCommits } from '../../git/log.js';
import { branchNamesContaining, tagNamesContaining } from '../../git/history.js';
import { diffPaths, isValidBranchName } from '../../git/refs.js';
import { isAncestor, resolveRevision, ZERO_SHA } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden, invalidParams, notFound } from '../errors.js';
import { canPushCode, canReadCode, ensureWritable, type ProjectAccess } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { canPushToBranch, loadProtection } from '../protected_branches/policy.js';
import { checkRefUpdates } from './protection.js';
import { moveRefs } from './ref_changes.js';
import { repositoryDir } from './service.js';
import { ensureCommitGraph } from './statistics.js';

export interface RepositoryRef {
  row: ProjectRow;
  access: ProjectAccess;
  dir: string;
}

/** A project whose code the actor may read (download_code); invisible projects are 404, others 403. */
export async function readableRepository(c: Container, actor: Actor | null, idOrPath: number | string): Promise<RepositoryRef> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canReadCode(access)) throw forbidden();
  return { row, access, dir: repositoryDir(c, row.id) };
}

/** The content APIs' refusal (authorize_push_to_branch!); a git push shows git's own words instead. */
const PUSH_INTO_BRANCH = 'You are not allowed to push into this branch';

/** A project the actor may push to through the API (push_code; an archived project is a bare 403). */
export async function writableRepository(c: Container, actor: Actor, idOrPath: number | string): Promise<RepositoryRef> {
  const repo = await readableRepository(c, actor, idOrPath);
  ensureWritable(repo.row);
  if (!canPushCode(repo.row, repo.access)) throw forbidden(PUSH_INTO_BRANCH);
  return repo;
}

export interface ActionInput extends FileAction {
  lastCommitId?: string;
}

export interface CommitRequest {
  branch: string;
  message: string;
  actions: ActionInput[];
  startBranch?: string;
  startSha?: string;
  force?: boolean;
  authorName?: string;
  authorEmail?: string;
  /** The message for a `last_commit_id` that is not the file's last commit (the files API words it differently). */
  changedMessage?: (path: string) => string;
}

const ATTEMPTS = 10;

/**
 * Commits to one repository made by this process run one at a time, so they do not race each
 * other; the compare-and-swap and its retries still cover other nodes and git pushes.
 */
const queues = new Map<string, Promise<unknown>>();
function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
  const prev = queues.get(key) ?? Promise.resolve();
  const next = prev.then(run, run);
  const tail = next.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return next;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where the commit starts: its parent (null in an empty repository) and the branch's current head. */
async function startingPoint(dir: string, req: CommitRequest): Promise<{ parent: string | null; head: string | null }> {
  const head = await resolveRevision(dir, `refs/heads/${req.branch}`);
  const exists = `A branch called '${req.branch}' already exists. Switch to that branch in order to make changes`;
  if (req.startSha !== undefined) {
    if (!/^[0-9a-fA-F]{40}$/.test(req.startSha)) throw apiError(`Invalid start_sha '${req.startSha}'`);
    if (!(await objectExists(dir, req.startSha.toLowerCase(), 'commit'))) throw apiError(`Cannot find start_sha '${req.startSha}'`);
    if (head && !req.force) throw apiError(exists);
    return { parent: req.startSha.toLowerCase(), head };
  }
  const start = req.startBranch ?? req.branch;
  const startHead = start === req.branch ? head : await resolveRevision(dir, `refs/heads/${start}`);
  if (!startHead) {
    if (await isEmptyRepository(dir)) return { parent: null, head };
    throw apiError('You can only create or edit files when you are on a branch');
  }
  if (start !== req.branch && head && !req.force) throw apiError(exists);
  return { parent: startHead, head };
}

/**
 * Makes one commit on `req.branch` from the actions; returns its sha. As the reference's content
 * APIs do, a branch the actor may not push to is refused first, in their words; the git checks
 * (force push, code owners, …) then run on the commit itself.
 */
export async function commitActions(c: Container, actor: Actor, repo: RepositoryRef, req: CommitRequest): Promise<string> {
  const pusher = { actor, access: repo.access };
  if (!(await canPushToBranch(c, pusher, repo.row, await loadProtection(c, repo.row.id), req.branch))) throw forbidden(PUSH_INTO_BRANCH);
  return serialized(repo.dir, () => commitNow(c, actor, repo, req));
}

async function commitNow(c: Container, actor: Actor, repo: RepositoryRef, req: CommitRequest): Promise<string> {
  const { row, dir } = repo;
  const ref = `refs/heads/${req.branch}`;
  const author = {
    name: req.authorName ?? actor.user.name,
    email: req.authorEmail ?? (actor.user.commit_email || actor.user.email),
  };
  const committer = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };

  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { parent, head } = await startingPoint(dir, req);
    if (!head && !isValidBranchName(req.branch)) {
      throw apiError(`Something went wrong when we tried to create '${req.branch}' for you: Branch name is invalid`);
    }
    for (const a of req.actions) {
      if (!a.lastCommitId || !parent || !['update', 'move', 'delete'].includes(a.action)) continue;
      const path = a.action === 'move' ? (a.previousPath ?? a.filePath) : a.filePath;
      if ((await lastCommitFor(dir, parent, path)) !== a.lastCommitId) {
        throw apiError(req.changedMessage ? req.changedMessage(path) : `The file has changed since you started editing it: ${path}`);
      }
    }
    let written;
    try {
      written = await writeCommit(dir, { parent, actions: req.actions, message: req.message, author, committer });
    } catch (e) {
      if (e instanceof ActionError) throw apiError(e.message);
      throw e;
    }
    const oldSha = head ?? ZERO_SHA;
    const force = head !== null && !(await isAncestor(dir, head, written.sha));
    const update = { ref, oldSha, newSha: written.sha, force, changedPaths: written.changedPaths };
    await checkRefUpdates(c, actor, row, [update], { via: 'web' });
    const change = { ...update, commitCount: 1, commitTitle: titleOf(req.message) };
    if (!(await moveRefs(c, actor, row, [change], () => compareAndSwapRef(dir, ref, written.sha, oldSha)))) {
      await pause(5 + Math.random() * 20 * (attempt + 1)); // the branch moved meanwhile: rebuild on its new head
      continue;
    }
    return written.sha;
  }
  throw apiError(`Could not update ${ref}. Please refresh and try again.`);
}

/**
 * Moves an existing branch to a commit built on its head (cherry-pick, revert): `build` gets the
 * head and returns the new commit. The same checks and the same published ref change as every
 * other commit; when the branch moved meanwhile, the commit is built again on the new head.
 */
export async function commitOnBranch(
  c: Container,
  actor: Actor,
  repo: RepositoryRef,
  branch: string,
  build: (head: string) => Promise<string>,
): Promise<string> {
  await ensureCanPushToBranch(c, actor, repo, branch);
  return serialized(repo.dir, async () => {
    const ref = `refs/heads/${branch}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const head = await resolveRevision(repo.dir, ref);
      if (!head) throw notFound('Branch');
      const sha = await build(head);
      const update = { ref, oldSha: head, newSha: sha, force: false, changedPaths: (await diffPaths(repo.dir, head, sha)) ?? [] };
      await checkRefUpdates(c, actor, repo.row, [update], { via: 'web' });
      const message = (await readCommit(repo.dir, sha))?.message ?? '';
      const change = { ...update, commitCount: 1, commitTitle: titleOf(message) };
      if (await moveRefs(c, actor, repo.row, [change], () => compareAndSwapRef(repo.dir, ref, sha, head))) return sha;
      await pause(5 + Math.random() * 20 * (attempt + 1));
    }
    throw apiError(`Could not update ${ref}. Please refresh and try again.`);
  });
}

/** Whether the actor may push to this branch of the repository (the content APIs' check, before any work). */
export async function ensureCanPushToBranch(c: Container, actor: Actor, repo: RepositoryRef, branch: string): Promise<void> {
  if (!(await canPushToBranch(c, { actor, access: repo.access }, repo.row, await loadProtection(c, repo.row.id), branch))) throw forbidden(PUSH_INTO_BRANCH);
}

/** The branches and tags whose history holds a commit (`type`: branch, tag or all), by name. */
export async function commitRefs(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  sha: string,
  type: 'branch' | 'tag' | 'all',
  page: PageRequest,
): Promise<PageResult<{ type: 'branch' | 'tag'; name: string }>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const commit = await readCommit(repo.dir, sha);
  if (!commit) throw notFound('Commit');
  const refs = [
    ...(type === 'tag' ? [] : (await branchNamesContaining(repo.dir, commit.id)).map((name) => ({ type: 'branch' as const, name }))),
    ...(type === 'branch' ? [] : (await tagNamesContaining(repo.dir, commit.id)).map((name) => ({ type: 'tag' as const, name }))),
  ];
  const start = page.kind === 'offset' ? (page.page - 1) * page.perPage : 0;
  return { items: refs.slice(start, start + page.perPage), total: refs.length, hasNext: start + page.perPage < refs.length };
}

// ---- the commits API ----

export interface CommitView {
  commit: CommitInfo;
  project: ProjectRow;
  stats?: { additions: number; deletions: number; total: number };
}

export const titleOf = (message: string): string => message.replace(/^\s+/, '').split('\n')[0].trim();

export interface CreateCommitInput {
  branch: string;
  commit_message: string;
  actions: unknown[];
  start_branch?: string;
  start_sha?: string;
  force?: boolean;
  author_name?: string;
  author_email?: string;
  stats?: boolean;
}

const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const;

/** The `actions[]` parameter, checked the way the reference's nested params are (Grape's words). */
function parseActions(raw: unknown[]): ActionInput[] {
  return raw.map((v, i) => {
    const at = (k: string) => `actions[${i}][${k}]`;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`actions[${i}] is invalid`);
    const o = v as Record<string, unknown>;
    const str = (k: string): string | undefined => {
      const x = o[k];
      if (x === undefined || x === null) return undefined;
      if (typeof x === 'string') return x;
      if (typeof x === 'number' || typeof x === 'boolean') return String(x);
      throw invalidParams(`${at(k)} is invalid`);
    };
    const action = str('action');
    if (action === undefined || action === '') throw invalidParams(`${at('action')} is missing, ${at('action')} is empty`);
    if (!(ACTIONS as readonly string[]).includes(action)) throw invalidParams(`${at('action')} does not have a valid value`);
    const filePath = str('file_path');
    if (filePath === undefined) throw invalidParams(`${at('file_path')} is missing`);
    const previousPath = str('previous_path');
    if (action === 'move' && previousPath === undefined) throw invalidParams(`${at('previous_path')} is missing`);
    const content = str('content');
    if (action === 'update' && content === undefined) throw invalidParams(`${at('content')} is missing`);
    const encoding = str('encoding') ?? 'text';
    if (encoding !== 'text' && encoding !== 'base64') throw invalidParams(`${at('encoding')} does not have a valid value`);
    let executeFilemode: boolean | undefined;
    const ef = str('execute_filemode');
    if (ef !== undefined) {
      if (!/^(true|false|1|0|t|f|yes|no)$/i.test(ef)) throw invalidParams(`${at('execute_filemode')} is invalid`);
      executeFilemode = /^(true|1|t|yes)$/i.test(ef);
    }
    if (action === 'chmod' && executeFilemode === undefined) throw invalidParams(`${at('execute_filemode')} is missing`);
    return {
      action: action as ActionInput['action'],
      filePath,
      previousPath,
      content: content === undefined ? null : decodeContent(content, encoding),
      executeFilemode,
      lastCommitId: str('last_commit_id'),
    };
  });
}

export function decodeContent(content: string, encoding: string): Buffer {
  return encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
}

export async function createCommit(c: Container, actor: Actor, idOrPath: number | string, input: CreateCommitInput): Promise<CommitView> {
  const repo = await writableRepository(c, actor, idOrPath);
  const actions = parseActions(input.actions);
  const sha = await commitActions(c, actor, repo, {
    branch: input.branch,
    message: input.commit_message,
    actions,
    startBranch: input.start_branch,
    startSha: input.start_sha,
    force: input.force,
    authorName: input.author_name,
    authorEmail: input.author_email,
  });
  const commit = (await readCommit(repo.dir, sha))!;
  return { commit, project: repo.row, stats: input.stats === false ? undefined : await commitStats(repo.dir, commit) };
}

export async function getCommit(c: Container, actor: Actor | null, idOrPath: number | string, sha: string, stats: boolean): Promise<CommitView> {
  const repo = await readableRepository(c, actor, idOrPath);
  const commit = await readCommit(repo.dir, sha);
  if (!commit) throw notFound('Commit');
  return { commit, project: repo.row, stats: stats ? await commitStats(repo.dir, commit) : undefined };
}

export interface ListCommitsInput {
  ref_name?: string;
  since?: string;
  until?: string;
  path?: string;
  all?: boolean;
  with_stats?: boolean;
  first_parent?: boolean;
  order?: 'default' | 'topo';
}

function gitDate(v: string | undefined, name: string): string | undefined {
  if (v === undefined || v === '') return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw invalidParams(`${name} is invalid`);
  return d.toISOString();
}

/**
 * A page of commits, newest first. As in the reference, no totals are given: the next page is
 * offered while a page is full (we look one commit ahead so the last page says so exactly).
 */
export async function listCommits(c: Container, actor: Actor | null, idOrPath: number | string, input: ListCommitsInput, page: PageRequest): Promise<PageResult<CommitView>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const perPage = page.perPage;
  const pageNo = page.kind === 'offset' ? page.page : 1;
  const since = gitDate(input.since, 'since');
  const until = gitDate(input.until, 'until');
  let rev: string | undefined;
  // With `all` the list starts from every ref: an empty repository has none, and lists nothing.
  if (!input.all) {
    rev = input.ref_name || repo.row.default_branch || 'HEAD';
    if (rev.startsWith('-')) {
      if (await isEmptyRepository(repo.dir)) return { items: [], total: null, hasNext: false };
      throw apiError('ref_name is invalid');
    }
    // An unknown ref (an empty repository's too) lists nothing, as the reference's commit finder answers.
    if (!(await readCommit(repo.dir, rev))) return { items: [], total: null, hasNext: false };
  }
  await ensureCommitGraph(c, repo.row.id, repo.dir);
  const commits = await logCommits(repo.dir, {
    rev,
    all: input.all,
    path: input.path,
    since,
    until,
    firstParent: input.first_parent,
    topo: input.order === 'topo',
    skip: (pageNo - 1) * perPage,
    limit: perPage + 1,
  });
  const items = await Promise.all(
    commits.slice(0, perPage).map(async (commit) => ({
      commit,
      project: repo.row,
      stats: input.with_stats ? await commitStats(repo.dir, commit) : undefined,
    })),
  );
  return { items, total: null, hasNext: commits.length > perPage };
}

/** GET …/commits/:sha/diff: the commit's changed files with their patches, one page of them. */
export async function getCommitDiff(c: Container, actor: Actor | null, idOrPath: number | string, sha: string, page: PageRequest): Promise<PageResult<FileDiff>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const commit = await readCommit(repo.dir, sha);
  if (!commit) throw notFound('Commit');
  const files = await commitDiff(repo.dir, commit.id, commit.parentIds[0] ?? null);
  const start = page.kind === 'offset' ? (page.page - 1) * page.perPage : 0;
  return { items: files.slice(start, start + page.perPage), total: files.length, hasNext: start + page.perPage < files.length };
}
