// Commit lists as `git log` gives them, walked in-process through the repository's cat-file
// (object_store.ts) so that a list starts no process: one revision or every ref, filtered by
// path, committer dates and first parents. What the walk cannot answer exactly goes to git log
// itself: --topo-order, deep pages, a walk past its budget, dates git reads otherwise, a commit
// the parser does not render, symbolic refs.
import path from 'node:path';
import { git, gitText, safeArg } from './git.js';
import { FIELDS, parseCommits, type CommitInfo } from './objects.js';
import { commitByRevision, remember, walkCommits, type Walk } from './object_store.js';
import { allRefTargets } from './ref_files.js';
import { SHA_RE } from './repository.js';

export interface LogOptions {
  /** A revision (branch, tag, sha); ignored with `all`. */
  rev?: string;
  all?: boolean;
  path?: string;
  /** ISO 8601 dates (as the API's since/until give them): committer dates, both inclusive. */
  since?: string;
  until?: string;
  firstParent?: boolean;
  topo?: boolean;
  skip: number;
  limit: number;
}

/** Deeper pages than this are left to `git log`, which walks faster than reading commit by commit. */
const WALK_MAX = 1_000;

/**
 * Commits a walk may take before it leaves the list to git log: a filter that shows few commits
 * (a rare path, an old date range) reads on through commits it does not show. Measured on this
 * 2-core machine under load, a commit costs 0.2–0.5 ms to walk when first read (a cat-file round
 * trip, and with a path one to three tree reads) and about 0.02 ms once kept; a git log costs
 * 20–100 ms. Pages after the first walk the same commits again, kept by then: 2,000 of them cost
 * about one git log, and their root trees (a few dozen entries each) stay well inside the tree cache.
 */
const WALK_BUDGET = 2_000;

/** Paths are literal, as the reference asks for them (literal_pathspec): a `*` or `:(…)` in a path is no pattern. */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

interface RepositoryPath {
  /** What git is given. */
  spec: string;
  walk: NonNullable<Walk['path']>;
}

/** A path as git reads it from the repository's root; null for one outside it or one no file can have. */
function repositoryPath(raw: string): RepositoryPath | null {
  const p = path.posix.normalize(raw);
  if (p === '..' || p.startsWith('../') || p.startsWith('/') || p.includes('\0')) return null;
  // `dir/` names only a directory; `.` the whole tree
  const dirOnly = p.endsWith('/');
  const bare = dirOnly ? p.slice(0, -1) : p;
  return { spec: p, walk: { parts: bare === '.' ? [] : bare.split('/'), dirOnly } };
}

/**
 * The seconds git makes of an API date (`2024-01-02T03:04:05.678Z`): it drops the fraction.
 * git reads a year outside 1970–2099 as some other date altogether: null, and git answers.
 */
function gitSeconds(iso: string): number | null {
  const m = /^(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.exec(iso);
  if (!m || Number(m[1]) < 1970 || Number(m[1]) > 2099) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== iso.slice(0, 19)) return null;
  return Math.floor(ms / 1000);
}

/** Commits reachable from a revision (or all refs), newest first, one page of them. */
export async function logCommits(dir: string, o: LogOptions): Promise<CommitInfo[]> {
  const where = o.path ? repositoryPath(o.path) : undefined;
  // a path outside the repository names none of its files (git would refuse it as an error)
  if (where === null) return [];
  const walked = await walkLog(dir, o, where);
  if (walked) return walked;
  const args = ['log', `--format=%x1e${FIELDS.join('%x1f')}`, `--skip=${o.skip}`, `--max-count=${o.limit}`];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.until) args.push(`--until=${o.until}`);
  if (o.firstParent) args.push('--first-parent');
  if (o.topo) args.push('--topo-order');
  if (o.all) args.push('--all');
  else args.push(`${safeArg(o.rev ?? 'HEAD', 'ref_name')}`);
  args.push('--');
  if (where) args.push(where.spec);
  return parseCommits((await git(args, { gitDir: dir, env: LITERAL })).stdout.toString('utf8'));
}

/** The page walked here; null when git log answers. */
async function walkLog(dir: string, o: LogOptions, where: RepositoryPath | undefined): Promise<CommitInfo[] | null> {
  // --topo-order shows nothing before the whole history is walked (past the budget in any long
  // one) and has rules of its own (with --since, an older commit hides every commit below it, even
  // one another line reaches): git's.
  if (o.topo || o.skip + o.limit > WALK_MAX) return null;
  const since = o.since ? gitSeconds(o.since) : undefined;
  const until = o.until ? gitSeconds(o.until) : undefined;
  if (since === null || until === null) return null;
  let tips: string[];
  if (o.all) {
    const targets = allRefTargets(dir);
    if (!targets || targets.length > WALK_BUDGET) return null;
    // peeled: a tag's commit; a tag of a tree or a blob adds nothing, as in git log
    const peeled = await Promise.all(targets.map((sha) => commitByRevision(dir, sha)));
    if (peeled.includes('unknown')) return null;
    tips = peeled.flatMap((c) => (typeof c === 'string' ? [] : [c.commit.id]));
  } else {
    const tip = await commitByRevision(dir, o.rev ?? 'HEAD');
    if (tip === 'missing') return [];
    if (tip === 'unknown') return null;
    tips = [tip.commit.id];
  }
  const walk = { count: o.skip + o.limit, budget: WALK_BUDGET, since, until, firstParent: o.firstParent, path: where?.walk };
  return (await walkCommits(dir, tips, walk))?.slice(o.skip) ?? null;
}

/** (commit, path) → the answer of lastCommitFor: it never changes for a given commit sha. */
const lastCommits = new Map<string, string | null>();

/** The last commit reachable from `commit` that touched `filePath` (`git log -1 -- <path>`). */
export async function lastCommitFor(repo: string, commit: string, filePath: string): Promise<string | null> {
  const key = `${commit}\0${filePath}`;
  if (SHA_RE.test(commit) && lastCommits.has(key)) return lastCommits.get(key)!;
  const sha = await lastCommitNow(repo, commit, filePath);
  if (SHA_RE.test(commit)) remember(lastCommits, key, sha, 20_000);
  return sha;
}

async function lastCommitNow(repo: string, commit: string, filePath: string): Promise<string | null> {
  const where = repositoryPath(filePath);
  if (!where) return null; // no commit touched a path outside the repository
  const tip = await commitByRevision(repo, commit);
  if (tip === 'missing') return null;
  if (tip !== 'unknown') {
    const walked = await walkCommits(repo, [tip.commit.id], { count: 1, budget: WALK_BUDGET, path: where.walk });
    if (walked) return walked[0]?.id ?? null;
  }
  return (await gitText(['log', '-1', '--format=%H', safeArg(commit, 'revision'), '--', where.spec], { gitDir: repo, env: LITERAL })) || null;
}
