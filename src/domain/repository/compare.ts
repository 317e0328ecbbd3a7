// GET /projects/:id/repository/compare: the commits `to` has that `from` has not, and the diff
// from the two refs' merge base to `to` (or, `straight`, from `from` itself), as the reference's.
import type { Container } from '../context.js';
import { commitDiff, type FileDiff } from '../../git/commit_diff.js';
import { commitsBetween, readCommit, type CommitInfo } from '../../git/objects.js';
import { mergeBase, resolveRevision } from '../../git/repository.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { apiError, notFound } from '../errors.js';
import { readableRepository } from './commits.js';

/** The most commits a comparison lists (its diff is whole: commits past this still count there). */
const MAX_COMMITS = 1000;

export interface CompareInput {
  from: string;
  to: string;
  straight?: boolean;
}

export interface CompareView {
  project: ProjectRow;
  from: string;
  to: string;
  /** Oldest first, as the reference lists them. */
  commits: CommitInfo[];
  diffs: FileDiff[];
  sameRef: boolean;
}

export async function compareRefs(c: Container, actor: Actor | null, idOrPath: number | string, input: CompareInput): Promise<CompareView> {
  const repo = await readableRepository(c, actor, idOrPath);
  const [from, to] = await Promise.all([resolveRevision(repo.dir, input.from), resolveRevision(repo.dir, input.to)]);
  if (!from || !to) throw notFound('Ref');
  const base = input.straight ? from : await mergeBase(repo.dir, from, to);
  const [commits, diffs] = await Promise.all([commitsBetween(repo.dir, to, from, MAX_COMMITS), commitDiff(repo.dir, to, base)]);
  return { project: repo.row, from: input.from, to: input.to, commits: commits.reverse(), diffs, sameRef: input.from === input.to };
}

/**
 * GET /projects/:id/repository/merge_base: the best common ancestor of the refs, as the
 * reference's: 400 for fewer than two refs or for refs that name nothing, 404 without one.
 */
export async function mergeBaseOf(c: Container, actor: Actor | null, idOrPath: number | string, refs: string[]): Promise<{ project: ProjectRow; commit: CommitInfo }> {
  const repo = await readableRepository(c, actor, idOrPath);
  if (refs.length < 2) throw apiError('Provide at least 2 refs', 400);
  const shas = await Promise.all(refs.map((r) => resolveRevision(repo.dir, r)));
  const unknown = refs.filter((_, i) => !shas[i]);
  if (unknown.length) throw apiError(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`, 400);
  let base: string | null = shas[0]!;
  for (const sha of shas.slice(1)) {
    base = base ? await mergeBase(repo.dir, base, sha!) : null;
  }
  const commit = base ? await readCommit(repo.dir, base) : null;
  if (!commit) throw notFound('Merge Base');
  return { project: repo.row, commit };
}
