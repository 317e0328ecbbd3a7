// Bare repositories on disk: create, seed, copy, remove, and the few plumbing reads every area needs.
import fs from 'node:fs';
import path from 'node:path';
import { closeGitProcesses } from './long_lived.js';
import { git, gitText, isSafeArg, safeArg } from './git.js';
import { nowDate } from '../shared/clock.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

export interface Person {
  name: string;
  email: string;
  /** ISO 8601; defaults to now */
  date?: string;
}

/** A person's time as git writes it (seconds, UTC). */
export const gitDate = (p: Person): string => `${Math.floor(Date.parse(p.date ?? nowDate().toISOString()) / 1000)} +0000`;

function identityEnv(author: Person, committer: Person = author): Record<string, string> {
  const date = gitDate;
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date(author),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: date(committer),
  };
}

/** A new, empty bare repository whose HEAD names `defaultBranch`. */
export async function initBare(dir: string, defaultBranch: string): Promise<void> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  closeGitProcesses(dir); // a reader left from a repository once at this path knows none of the new one's objects
  await git(['init', '--bare', '--quiet', `--initial-branch=${safeArg(defaultBranch, 'branch')}`, dir]);
  // Pushes are checked by Anvil before git sees them; git itself keeps objects honest.
  await git(['config', 'receive.fsckObjects', 'true'], { gitDir: dir });
  await git(['config', 'http.receivepack', 'true'], { gitDir: dir });
  await git(['config', 'uploadpack.allowFilter', 'true'], { gitDir: dir });
}

/** A full copy of another repository's refs and objects (forks). */
export async function copyBare(from: string, to: string): Promise<void> {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  await git(['clone', '--bare', '--quiet', '--no-local', from, to]);
  await git(['config', 'receive.fsckObjects', 'true'], { gitDir: to });
  await git(['config', 'http.receivepack', 'true'], { gitDir: to });
}

export function removeRepository(dir: string): void {
  closeGitProcesses(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Writes one file as the first commit of `branch`, without a working tree. Returns the commit sha. */
export async function commitSingleFile(
  dir: string,
  branch: string,
  file: { path: string; content: string },
  message: string,
  author: Person,
): Promise<string> {
  const blob = await gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: file.content });
  const tree = await gitText(['mktree'], { gitDir: dir, input: `100644 blob ${blob}\t${file.path}\n` });
  const commit = await gitText(['commit-tree', tree, '-m', message], { gitDir: dir, env: identityEnv(author) });
  await git(['update-ref', `refs/heads/${safeArg(branch, 'branch')}`, commit, ZERO_SHA], { gitDir: dir });
  return commit;
}

/** A full commit or object id as git prints it. */
export const SHA_RE = /^[0-9a-f]{40}$/;

// Revisions: one answer for a revision that names nothing (or that git would read as an option,
// which never reaches git): null, false, 0.

/** The commit a ref or revision names (an annotated tag is peeled), or null. */
export async function resolveRevision(dir: string, rev: string, env: Record<string, string> = {}): Promise<string | null> {
  if (!isSafeArg(rev)) return null;
  const r = await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { gitDir: dir, env, okCodes: [1, 128] });
  const sha = r.stdout.toString().trim();
  return r.code === 0 && SHA_RE.test(sha) ? sha : null;
}

/** True when `ancestor` is reachable from `descendant` (a fast-forward); false when either is unknown. */
export async function isAncestor(dir: string, ancestor: string, descendant: string, env: Record<string, string> = {}): Promise<boolean> {
  if (!isSafeArg(ancestor) || !isSafeArg(descendant)) return false;
  const r = await git(['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant], { gitDir: dir, env, okCodes: [1, 128] });
  return r.code === 0;
}

/**
 * Commits reachable from `rev` and not from `not` (all of rev's history without one), counted
 * up to `max` when given; 0 when either names nothing.
 */
export async function countCommits(dir: string, rev: string, not: string | null = null, max?: number): Promise<number> {
  if (!isSafeArg(rev) || (not !== null && !isSafeArg(not))) return 0;
  const args = ['rev-list', '--count', ...(max ? [`--max-count=${max}`] : []), rev, ...(not ? [`^${not}`] : []), '--'];
  const r = await git(args, { gitDir: dir, okCodes: [128] });
  return r.code === 0 ? Number(r.stdout.toString().trim()) : 0;
}

/** The best common ancestor of two commits (what a three-dot compare diffs against); null when they share none. */
export async function mergeBase(dir: string, a: string, b: string): Promise<string | null> {
  if (!isSafeArg(a) || !isSafeArg(b)) return null;
  const r = await git(['merge-base', '--end-of-options', a, b], { gitDir: dir, okCodes: [1, 128] });
  const sha = r.stdout.toString().trim();
  return r.code === 0 && SHA_RE.test(sha) ? sha : null;
}

/**
 * How far each tip has moved from `base`: commits only the tip has (ahead) and commits only base
 * has (behind), one `rev-list --left-right --count` per tip; a tip equal to base costs nothing.
 */
export async function aheadBehind(dir: string, base: string, tips: string[]): Promise<Map<string, { ahead: number; behind: number }>> {
  const out = new Map<string, { ahead: number; behind: number }>();
  if (!isSafeArg(base)) return out;
  await Promise.all(
    [...new Set(tips)].map(async (tip) => {
      if (tip === base) return void out.set(tip, { ahead: 0, behind: 0 });
      if (!isSafeArg(tip)) return;
      const r = await git(['rev-list', '--left-right', '--count', `${base}...${tip}`, '--'], { gitDir: dir, okCodes: [128] });
      const [behind, ahead] = r.stdout.toString().trim().split(/\s+/).map(Number);
      if (r.code === 0 && Number.isInteger(ahead) && Number.isInteger(behind)) out.set(tip, { ahead, behind });
    }),
  );
  return out;
}

/** The full message of the newest commit reachable from `rev` and not from `not`; null when there is none. */
export async function newestMessage(dir: string, rev: string, not: string | null = null): Promise<string | null> {
  if (!isSafeArg(rev) || (not !== null && !isSafeArg(not))) return null;
  const r = await git(['log', '-1', '--format=%B', rev, ...(not ? [`^${not}`] : []), '--'], { gitDir: dir, okCodes: [128] });
  // log ends each entry with a newline of its own after the message as stored.
  return r.code === 0 && r.stdout.length > 0 ? r.stdout.toString('utf8').replace(/\n$/, '') : null;
}

/**
 * Housekeeping: moves loose refs into packed-refs. With thousands of loose refs every ref listing
 * reads thousands of files (5,000 branches: ~60 ms per for-each-ref loose, ~5 ms packed).
 */
export async function packRefs(dir: string): Promise<void> {
  await git(['pack-refs', '--all', '--prune'], { gitDir: dir });
}

/** Size on disk in bytes (objects and refs), for project statistics. */
export function repositorySize(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += fs.statSync(p).size;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}

export { identityEnv };

