// Merging without a work tree, as the reference's repository service does: trees are merged with
// `git merge-tree --write-tree`, commits are written with `commit-tree`, and nothing here moves a
// branch (the caller moves it through the domain's one ref-change path). Refs of merge requests
// (refs/merge-requests/<iid>/head, …/merge) and keep-around refs are internal refs, written here.
import { git, gitText, GitError, safeArg } from './git.js';
import { identityEnv, mergeBase, SHA_RE, type Person } from './repository.js';

export interface TreeMerge {
  /** The merged tree (with conflict markers when there are conflicts). */
  tree: string;
  /** Paths in conflict; empty when the merge is clean. */
  conflicts: string[];
}

/**
 * The three-way merge of two commits' trees (their merge base found by git), written to the object
 * store. Null when either commit is unknown or they share no history.
 */
export async function mergeTrees(dir: string, ours: string, theirs: string): Promise<TreeMerge | null> {
  if (!SHA_RE.test(ours) || !SHA_RE.test(theirs)) return null;
  const r = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], { gitDir: dir, okCodes: [1, 128] });
  if (r.code !== 0 && r.code !== 1) return null;
  const parts = r.stdout.toString('utf8').split('\0');
  const tree = parts[0]?.trim() ?? '';
  if (!SHA_RE.test(tree)) return null;
  const conflicts = r.code === 1 ? [...new Set(parts.slice(1).filter((p) => p !== ''))] : [];
  return { tree, conflicts };
}

/** The tree of a commit. */
export async function treeOf(dir: string, commit: string): Promise<string> {
  return gitText(['rev-parse', '--verify', `${safeArg(commit)}^{tree}`], { gitDir: dir });
}

/** Writes a commit of `tree` with these parents; returns its sha. */
export async function commitTree(dir: string, tree: string, parents: string[], message: string, author: Person, committer: Person = author): Promise<string> {
  const args = ['commit-tree', safeArg(tree), ...parents.flatMap((p) => ['-p', safeArg(p)])];
  return gitText(args, { gitDir: dir, input: message, env: identityEnv(author, committer) });
}

/** The merge commit of `source` into `target` (first parent target); null on conflicts. */
export async function writeMergeCommit(dir: string, target: string, source: string, message: string, who: Person): Promise<string | null> {
  const merged = await mergeTrees(dir, target, source);
  if (!merged || merged.conflicts.length) return null;
  return commitTree(dir, merged.tree, [target, source], message, who);
}

/** One commit with `head`'s changes since `base`: its tree, parent `base`; `author` is the first commit's author. */
export async function writeSquashCommit(dir: string, base: string, head: string, message: string, author: Person, committer: Person): Promise<string> {
  return commitTree(dir, await treeOf(dir, head), [base], message, author, committer);
}

interface RawCommit {
  sha: string;
  parent: string | null;
  author: Person;
  message: string;
}

/** Commits of `base..head` without merges, oldest first, with what replaying them needs. */
async function commitsToReplay(dir: string, base: string, head: string): Promise<RawCommit[]> {
  const out = (await git(['log', '--reverse', '--no-merges', '-z', '--format=%H%x01%P%x01%an%x01%ae%x01%aI%x01%B', `${safeArg(head)}`, `^${safeArg(base)}`, '--'], { gitDir: dir })).stdout.toString('utf8');
  return out
    .split('\0')
    .filter((rec) => rec.trim() !== '')
    .map((rec) => {
      const [sha, parents, name, email, date, ...msg] = rec.replace(/^\n/, '').split('\x01');
      return { sha, parent: parents.split(' ')[0] || null, author: { name, email, date }, message: msg.join('\x01') };
    });
}

/**
 * Replays the commits of `head` since its merge base with `onto` on top of `onto`, as `git rebase`
 * does (merges dropped, authors kept, `committer` committing). Each commit is a cherry-pick: a
 * three-way merge against its own parent, done by merging with a stand-in commit whose parent is
 * that parent (so git's merge base is exactly it). Null on a conflict.
 */
export async function rebaseCommits(dir: string, onto: string, head: string, committer: Person): Promise<string | null> {
  const base = await mergeBase(dir, onto, head);
  if (!base) return null;
  if (base === onto) return head; // nothing to replay: already on top
  let tip = onto;
  for (const c of await commitsToReplay(dir, base, head)) {
    let tree: string;
    if (c.parent === base && tip === onto) {
      // the first commit: git's merge base of onto and it is its parent already
      const merged = await mergeTrees(dir, tip, c.sha);
      if (!merged || merged.conflicts.length) return null;
      tree = merged.tree;
    } else {
      const standIn = await commitTree(dir, await treeOf(dir, tip), c.parent ? [c.parent] : [], 'rebase', committer);
      const merged = await mergeTrees(dir, standIn, c.sha);
      if (!merged || merged.conflicts.length) return null;
      tree = merged.tree;
    }
    tip = await commitTree(dir, tree, [tip], c.message, c.author, committer);
  }
  return tip;
}

/** Sets an internal ref (not a branch or tag) to `sha`, or deletes it when sha is null. */
export async function setInternalRef(dir: string, ref: string, sha: string | null): Promise<void> {
  if (!ref.startsWith('refs/merge-requests/') && !ref.startsWith('refs/keep-around/')) throw new GitError(['update-ref'], null, 'not an internal ref');
  if (sha === null) await git(['update-ref', '-d', safeArg(ref)], { gitDir: dir, okCodes: [1] });
  else await git(['update-ref', safeArg(ref), safeArg(sha)], { gitDir: dir });
}

/** Keeps a commit reachable whatever happens to the branches (an old version of a merge request). */
export const keepAround = (dir: string, sha: string): Promise<void> => setInternalRef(dir, `refs/keep-around/${sha}`, sha);

/**
 * Copies `sourceRef` of another repository (a fork) into `targetRef` of this one, objects
 * included; returns the commit it now names, or null when the source has no such ref.
 */
export async function fetchRef(dir: string, sourceDir: string, sourceRef: string, targetRef: string): Promise<string | null> {
  const r = await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', sourceDir, `+${safeArg(sourceRef)}:${safeArg(targetRef)}`], { gitDir: dir, okCodes: [1, 128] });
  if (r.code !== 0) return null;
  const sha = (await git(['rev-parse', '--verify', '--quiet', targetRef], { gitDir: dir, okCodes: [1] })).stdout.toString().trim();
  return SHA_RE.test(sha) ? sha : null;
}
