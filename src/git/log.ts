// Commit lists as `git log` gives them, walked in-process (walk.ts) so that a list starts no
// process: one revision or every ref, filtered by path, committer dates and first parents, in
// git's default or topological order, at any depth. What the walk cannot answer exactly goes to
// git log itself: dates git reads otherwise, a commit the parser does not render, symbolic refs.
import path from 'node:path';
import { finished, git, gitStream, gitText, safeArg, unquotePath } from './git.js';
import { FIELDS, parseCommits, type CommitInfo } from './objects.js';
import { commitByRevision, remember } from './object_store.js';
import { walkCommits, type Tip, type Walk } from './walk.js';
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
  const since = o.since ? gitSeconds(o.since) : undefined;
  const until = o.until ? gitSeconds(o.until) : undefined;
  if (since === null || until === null) return null;
  let tips: Tip[];
  if (o.all) {
    const targets = allRefTargets(dir);
    if (!targets) return null;
    // peeled: a tag's commit; a tag of a tree or a blob adds nothing, as in git log
    const peeled = await Promise.all(targets.map((sha) => commitByRevision(dir, sha)));
    if (peeled.includes('unknown')) return null;
    tips = peeled.flatMap((c) => (typeof c === 'string' ? [] : [{ id: c.commit.id, throughTag: c.throughTag }]));
  } else {
    const tip = await commitByRevision(dir, o.rev ?? 'HEAD');
    if (tip === 'missing') return [];
    if (tip === 'unknown') return null;
    tips = [{ id: tip.commit.id, throughTag: tip.throughTag }];
  }
  const walk = { skip: o.skip, count: o.skip + o.limit, since, until, firstParent: o.firstParent, topo: o.topo, path: where?.walk };
  return walkCommits(dir, tips, walk);
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
    const walked = await walkCommits(repo, [{ id: tip.commit.id, throughTag: tip.throughTag }], { count: 1, path: where.walk });
    if (walked) return walked[0]?.id ?? null;
  }
  return (await gitText(['log', '-1', '--format=%H', safeArg(commit, 'revision'), '--', where.spec], { gitDir: repo, env: LITERAL })) || null;
}

/** (commit, path) → the commit lastCommitsFor found: it never changes for a given commit sha. */
const treeLastCommits = new Map<string, string>();

/**
 * The newest commit reachable from `commit` (a sha) that touched each of `paths` (entries of a
 * tree: files, directories, submodules), found in one `git log` pass over all of them that stops
 * once each has its commit. A merge counts for a path where it differs from every parent (`-c`),
 * as `git log -1 -- <path>` has it. Only the first `maxCommits` commits touching any of the paths
 * are read: a path not touched among them (unchanged for a long history) has no answer.
 */
export async function lastCommitsFor(repo: string, commit: string, paths: string[], maxCommits = 2000): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const wanted = new Set<string>();
  for (const p of paths) {
    const kept = treeLastCommits.get(`${commit}\0${p}`);
    if (kept) found.set(p, kept);
    else if (repositoryPath(p)?.spec === p) wanted.add(p);
  }
  if (wanted.size === 0) return found;
  const args = ['log', '-c', '--name-only', '--no-renames', '--format=%x1e%H', `--max-count=${maxCommits}`, safeArg(commit, 'revision'), '--', ...wanted];
  const child = gitStream(args, { gitDir: repo, env: LITERAL });
  child.stdout.setEncoding('utf8');
  let stopped = false;
  const done = finished(child).catch((e) => {
    if (!stopped) throw e;
  });
  let sha = '';
  const take = (line: string) => {
    if (line.startsWith('\x1e')) sha = line.slice(1);
    else if (line !== '') {
      // a changed file names the entry it is in: itself or a directory above it
      for (let p = unquotePath(line); p !== ''; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
        if (wanted.delete(p)) {
          found.set(p, sha);
          remember(treeLastCommits, `${commit}\0${p}`, sha, 20_000);
        }
      }
    }
  };
  try {
    let rest = '';
    for await (const chunk of child.stdout as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      lines.forEach(take);
      if (wanted.size === 0) break;
    }
    if (wanted.size > 0) take(rest);
  } finally {
    // every path has its commit: the rest of the history is not read
    stopped = wanted.size === 0;
    if (stopped) child.kill();
    await done;
  }
  return found;
}
