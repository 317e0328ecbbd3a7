// Cherry-pick and revert through the API: a commit's change (or its undoing) applied on a branch's
// head as a new commit, moved by commitOnBranch like every other commit. `dry_run` answers whether
// it would apply, without writing a ref.
import type { Container } from '../context.js';
import { readCommit, type CommitInfo } from '../../git/objects.js';
import { applyChange, writeTreeCommit } from '../../git/pick.js';
import { resolveRevision } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { exactError, notFound } from '../errors.js';
import { ensureWritable, canPushCode } from '../projects/policy.js';
import { forbidden } from '../errors.js';
import { commitOnBranch, ensureCanPushToBranch, readableRepository, type RepositoryRef } from './commits.js';

export type PickAction = 'cherry_pick' | 'revert';

export interface PickInput {
  branch: string;
  dry_run?: boolean;
  message?: string;
}

export type PickResult = { dryRun: true } | { dryRun: false; commit: CommitInfo; project: RepositoryRef['row'] };

/** The reference's refusal, in its words, with why (`conflict` or `empty`). */
function cannot(action: PickAction, code: 'conflict' | 'empty', dryRun: boolean): never {
  const act = action === 'cherry_pick' ? 'cherry-pick' : 'revert';
  const done = action === 'cherry_pick' ? 'cherry-picked' : 'reverted';
  const message = `Sorry, we cannot ${act} this commit automatically. This commit may already have been ${done}, or a more recent commit may have updated some of its content.`;
  throw exactError(400, { message, error_code: code, ...(dryRun ? { dry_run: 'error' } : {}) });
}

/** The message git itself would write: the original with its origin (cherry-pick), or the revert's. */
function messageOf(action: PickAction, commit: CommitInfo, custom: string | undefined): string {
  if (custom !== undefined && custom !== '' && action === 'cherry_pick') return custom;
  if (action === 'revert') {
    const title = commit.message.replace(/^\s+/, '').split('\n')[0].trim();
    return `Revert "${title}"\n\nThis reverts commit ${commit.id}`;
  }
  return `${commit.message.replace(/\s+$/, '')}\n\n(cherry picked from commit ${commit.id})`;
}

export async function pickCommit(c: Container, actor: Actor, idOrPath: number | string, sha: string, action: PickAction, input: PickInput): Promise<PickResult> {
  const repo = await readableRepository(c, actor, idOrPath);
  ensureWritable(repo.row);
  if (!canPushCode(repo.row, repo.access)) throw forbidden('You are not allowed to push into this branch');
  await ensureCanPushToBranch(c, actor, repo, input.branch);
  const commit = await readCommit(repo.dir, sha);
  if (!commit) throw notFound('Commit');
  const head = await resolveRevision(repo.dir, `refs/heads/${input.branch}`);
  if (!head) throw notFound('Branch');
  // a merge commit's change is taken against its first parent (the reference's mainline 1)
  const parent = commit.parentIds[0] ?? null;
  const dryRun = input.dry_run === true;
  const change = (ours: string) =>
    action === 'cherry_pick' ? applyChange(repo.dir, { ours, base: parent, theirs: commit.id }) : applyChange(repo.dir, { ours, base: commit.id, theirs: parent ?? EMPTY_TREE });
  if (dryRun) {
    const out = await change(head);
    if ('error' in out) cannot(action, out.error, true);
    return { dryRun: true };
  }
  const me = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };
  const message = messageOf(action, commit, input.message);
  const newSha = await commitOnBranch(c, actor, repo, input.branch, async (ours) => {
    const out = await change(ours);
    if ('error' in out) cannot(action, out.error, false);
    // a cherry-pick keeps the change's author; a revert is the actor's own
    const author = action === 'cherry_pick' ? { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate } : me;
    return writeTreeCommit(repo.dir, { tree: out.tree, parent: ours, message, author, committer: me });
  });
  return { dryRun: false, commit: (await readCommit(repo.dir, newSha))!, project: repo.row };
}

/** git's empty tree: what a root commit's revert leaves. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
