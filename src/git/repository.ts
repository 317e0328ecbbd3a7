// Bare repositories on disk: create, seed, copy, remove, and the few plumbing reads every area needs.
import fs from 'node:fs';
import path from 'node:path';
import { git, gitText, safeArg } from './git.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

export interface Person {
  name: string;
  email: string;
  /** ISO 8601; defaults to now */
  date?: string;
}

function identityEnv(author: Person, committer: Person = author): Record<string, string> {
  const date = (p: Person) => `${Math.floor(Date.parse(p.date ?? new Date().toISOString()) / 1000)} +0000`;
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

/** The sha a ref or revision names, or null. */
export async function resolveRevision(dir: string, rev: string): Promise<string | null> {
  const r = await git(['rev-parse', '--verify', '--quiet', `${safeArg(rev, 'revision')}^{commit}`], { gitDir: dir, okCodes: [1, 128] });
  const sha = r.stdout.toString().trim();
  return r.code === 0 && sha ? sha : null;
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

/** Commits reachable from `rev` (0 when it does not exist). */
export async function commitCount(dir: string, rev: string): Promise<number> {
  const r = await git(['rev-list', '--count', `${safeArg(rev, 'revision')}`, '--'], { gitDir: dir, okCodes: [128] });
  return r.code === 0 ? Number(r.stdout.toString().trim()) : 0;
}
