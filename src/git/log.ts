// Commit lists as `git log` gives them: the plain history of one revision is walked through the
// repository's cat-file (object_store.ts); filters go to git log.
import path from 'node:path';
import { git, gitText, safeArg } from './git.js';
import { FIELDS, parseCommits, type CommitInfo } from './objects.js';
import { commitByRevision, remember, walkCommits } from './object_store.js';

export interface LogOptions {
  /** A revision (branch, tag, sha); ignored with `all`. */
  rev?: string;
  all?: boolean;
  path?: string;
  since?: string;
  until?: string;
  firstParent?: boolean;
  topo?: boolean;
  skip: number;
  limit: number;
}

/** Deeper pages than this are left to `git log`, which walks faster than reading commit by commit. */
const WALK_MAX = 1_000;

/** Commits reachable from a revision (or all refs), newest first, one page of them. */
export async function logCommits(dir: string, o: LogOptions): Promise<CommitInfo[]> {
  // The plain history of one revision is walked through the repository's cat-file; filters go to git log.
  const plain = !o.all && !o.path && !o.since && !o.until && !o.firstParent && !o.topo;
  if (plain && o.skip + o.limit <= WALK_MAX) {
    const tip = await commitByRevision(dir, o.rev ?? 'HEAD');
    if (tip === 'missing') return [];
    const walked = tip === 'unknown' ? null : await walkCommits(dir, tip.commit.id, o.skip + o.limit);
    if (walked) return walked.slice(o.skip);
  }
  const args = ['log', `--format=%x1e${FIELDS.join('%x1f')}`, `--skip=${o.skip}`, `--max-count=${o.limit}`];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.until) args.push(`--until=${o.until}`);
  if (o.firstParent) args.push('--first-parent');
  if (o.topo) args.push('--topo-order');
  if (o.all) args.push('--all');
  else args.push(`${safeArg(o.rev ?? 'HEAD', 'ref_name')}`);
  args.push('--');
  if (o.path) {
    // a path outside the repository names none of its files (git would refuse it as an error)
    const p = path.posix.normalize(o.path);
    if (p === '..' || p.startsWith('../') || p.startsWith('/')) return [];
    args.push(p);
  }
  return parseCommits((await git(args, { gitDir: dir })).stdout.toString('utf8'));
}

/** (commit, path) → the answer of lastCommitFor: it never changes for a given commit sha. */
const lastCommits = new Map<string, string | null>();
const SHA_RE = /^[0-9a-f]{40}$/;

/** The last commit reachable from `commit` that touched `filePath`. */
export async function lastCommitFor(repo: string, commit: string, filePath: string): Promise<string | null> {
  const key = `${commit}\0${filePath}`;
  if (SHA_RE.test(commit) && lastCommits.has(key)) return lastCommits.get(key)!;
  const sha = (await gitText(['log', '-1', '--format=%H', commit, '--', filePath], { gitDir: repo })) || null;
  if (SHA_RE.test(commit)) remember(lastCommits, key, sha, 20_000);
  return sha;
}
