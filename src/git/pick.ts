// Cherry-pick and revert without a work tree: a three-way merge of trees with the base chosen by
// the caller, written as objects only (no ref moves here). git 2.39's `merge-tree --write-tree`
// takes no merge base of our choosing, so each side is first wrapped in a throwaway commit whose
// only parent is the wanted base: the merge base of the two is then exactly that base.
import { git, gitText, safeArg } from './git.js';
import { ident } from './objects.js';
import type { Person } from './repository.js';

export type PickOutcome = { tree: string } | { error: 'conflict' | 'empty' };

const treeOf = (dir: string, commit: string) => gitText(['rev-parse', '--verify', `${safeArg(commit, 'commit')}^{tree}`], { gitDir: dir });

/** A commit object with this tree and (optionally) one parent, for the merge only. */
async function wrap(dir: string, tree: string, parent: string | null): Promise<string> {
  const who = 'anvil <anvil@localhost> 0 +0000';
  const body = [`tree ${tree}`, ...(parent ? [`parent ${parent}`] : []), `author ${who}`, `committer ${who}`, '', 'pick'].join('\n');
  return gitText(['hash-object', '-t', 'commit', '-w', '--stdin'], { gitDir: dir, input: body });
}

/**
 * The tree of `ours` with the change from `base` to `theirs` applied (base null: the empty tree).
 * `conflict` when the change does not apply cleanly, `empty` when it changes nothing on `ours`.
 */
export async function applyChange(dir: string, o: { ours: string; base: string | null; theirs: string }): Promise<PickOutcome> {
  const oursTree = await treeOf(dir, o.ours);
  const theirsTree = await treeOf(dir, o.theirs);
  const baseCommit = o.base === null ? null : await wrap(dir, await treeOf(dir, o.base), null);
  const a = await wrap(dir, oursTree, baseCommit);
  const b = await wrap(dir, theirsTree, baseCommit);
  const r = await git(['merge-tree', '--write-tree', '--no-messages', ...(baseCommit ? [] : ['--allow-unrelated-histories']), a, b], { gitDir: dir, okCodes: [1] });
  if (r.code === 1) return { error: 'conflict' };
  const tree = r.stdout.toString('utf8').split('\n')[0].trim();
  if (tree === oursTree) return { error: 'empty' };
  return { tree };
}

/** A commit of `tree` on `parent`, the message stored exactly as given. Returns its sha. */
export async function writeTreeCommit(dir: string, o: { tree: string; parent: string; message: string; author: Person; committer: Person }): Promise<string> {
  const body = [`tree ${o.tree}`, `parent ${o.parent}`, `author ${ident(o.author)}`, `committer ${ident(o.committer)}`, '', o.message].join('\n');
  return gitText(['hash-object', '-t', 'commit', '-w', '--stdin'], { gitDir: dir, input: body });
}
