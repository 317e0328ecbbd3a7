// Branch plumbing: list branches with their commits in one git run, create and delete a ref
// atomically (old-value checked), and which branches are merged into another. One git process
// per operation, never one per branch. (The branches API lists through ref_files.ts, without git.)
import { git, gitText, isSafeArg, safeArg } from './git.js';
import type { CommitInfo } from './objects.js';
import { gitDate, ZERO_SHA, type Person } from './repository.js';

export const HEADS = 'refs/heads/';

export type { CommitInfo } from './objects.js';

export interface BranchRef {
  name: string;
  commit: CommitInfo;
}

// Fields separated by NUL, records started by RS: commit messages may hold newlines but not these.
const FIELDS = [
  '%(refname)',
  '%(objectname)',
  '%(parent)',
  '%(authorname)',
  '%(authoremail:trim)',
  '%(authordate:iso-strict)',
  '%(committername)',
  '%(committeremail:trim)',
  '%(committerdate:iso-strict)',
  '%(contents)',
];
const FORMAT = '%1e' + FIELDS.join('%00');

function parseRefs(out: Buffer): BranchRef[] {
  const refs: BranchRef[] = [];
  for (const rec of out.toString('utf8').split('\x1e')) {
    if (!rec) continue;
    const f = rec.split('\x00');
    if (f.length < FIELDS.length) continue;
    // for-each-ref ends each record with a newline after the message.
    const message = f.slice(9).join('\x00').replace(/\n$/, '');
    refs.push({
      name: f[0].slice(HEADS.length),
      commit: {
        id: f[1],
        parentIds: f[2] ? f[2].split(' ') : [],
        authorName: f[3],
        authorEmail: f[4],
        authoredDate: f[5],
        committerName: f[6],
        committerEmail: f[7],
        committedDate: f[8],
        message,
      },
    });
  }
  return refs;
}


/** The named branches with their commits, sorted by name; names that are not branches are left out. */
export async function branchesWithCommits(dir: string, names: string[]): Promise<BranchRef[]> {
  if (names.length === 0) return [];
  // Exact refnames as patterns: branch names cannot hold glob characters (check-ref-format).
  const patterns = names.map((n) => HEADS + safeArg(n, 'branch'));
  const r = await git(['for-each-ref', '--sort=refname', `--format=${FORMAT}`, '--', ...patterns], { gitDir: dir });
  const wanted = new Set(names);
  // A pattern also matches refs below it (refs/heads/a matches refs/heads/a/b): keep exact names only.
  return parseRefs(r.stdout).filter((b) => wanted.has(b.name));
}

/** One branch with its commit, or null. */
export async function findBranch(dir: string, name: string): Promise<BranchRef | null> {
  if (!isValidBranchName(name)) return null;
  return (await branchesWithCommits(dir, [name]))[0] ?? null;
}

/** Points HEAD at a branch (a project's default branch: what a clone checks out). */
export async function setHeadBranch(dir: string, branch: string): Promise<void> {
  if (!isValidBranchName(branch)) throw new Error('invalid branch name');
  await git(['symbolic-ref', 'HEAD', `${HEADS}${branch}`], { gitDir: dir });
}

/**
 * Of the named branches, those merged into `target` as the reference counts it: the tip is
 * reachable from target's head and is not that head itself (a branch just created from the
 * default branch, or the default branch, is not merged). One git run.
 */
export async function mergedInto(dir: string, target: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0 || !isValidBranchName(target)) return new Set();
  const patterns = names.map((n) => HEADS + safeArg(n, 'branch'));
  const targetRef = HEADS + safeArg(target, 'branch');
  // The target's own line comes first (its objectname marks "same head"), then the candidates.
  const r = await git(['for-each-ref', `--merged=${targetRef}`, '--format=%(objectname) %(refname)', '--', targetRef, ...patterns], {
    gitDir: dir,
    okCodes: [128, 129],
  });
  if (r.code !== 0) return new Set(); // no such target (empty repository): nothing is merged
  const lines = r.stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, l.indexOf(' ')), ref: l.slice(l.indexOf(' ') + 1) }));
  const head = lines.find((l) => l.ref === targetRef)?.sha;
  return new Set(lines.filter((l) => l.ref.startsWith(HEADS) && l.sha !== head).map((l) => l.ref.slice(HEADS.length)));
}

/** git's own rule for a branch name (check-ref-format --branch), without running git. */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === 'HEAD' || name.startsWith('-')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.includes('//')) return false;
  if (name.includes('..') || name.includes('@{') || name === '@') return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Creates refs/heads/<name> at sha only if it does not exist yet (git's old-value check makes
 * concurrent creations of one name succeed once). False when the branch already existed.
 */
export async function createBranchRef(dir: string, name: string, sha: string): Promise<boolean> {
  const r = await git(['update-ref', '--', HEADS + safeArg(name, 'branch'), sha, ZERO_SHA], { gitDir: dir, okCodes: [128] });
  return r.code === 0;
}

/** Deletes refs/heads/<name> if it still points at oldSha. False when it moved or vanished meanwhile. */
export async function deleteBranchRef(dir: string, name: string, oldSha: string): Promise<boolean> {
  const r = await git(['update-ref', '-d', '--', HEADS + safeArg(name, 'branch'), oldSha], { gitDir: dir, okCodes: [128] });
  return r.code === 0;
}

/** A file's content at a revision, or null when absent. */
export async function fileAt(dir: string, rev: string, path: string): Promise<string | null> {
  if (!isSafeArg(rev) || path.includes('\0')) return null;
  const r = await git(['cat-file', 'blob', `${rev}:${path}`], { gitDir: dir, okCodes: [128] });
  return r.code === 0 ? r.stdout.toString('utf8') : null;
}

/** Branches whose history contains the commit. */
export async function branchesContaining(dir: string, sha: string): Promise<string[]> {
  const r = await git(['for-each-ref', `--contains=${safeArg(sha, 'revision')}`, '--format=%(refname)', HEADS], { gitDir: dir, okCodes: [128, 129] });
  if (r.code !== 0) return [];
  return r.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith(HEADS))
    .map((l) => l.slice(HEADS.length));
}

/** Paths that differ between two commits; null when either is unknown. */
export async function diffPaths(dir: string, oldSha: string, newSha: string, env: Record<string, string> = {}): Promise<string[] | null> {
  if (!isSafeArg(oldSha) || !isSafeArg(newSha)) return null;
  const r = await git(['diff', '--name-only', '--no-renames', '-z', '--end-of-options', oldSha, newSha, '--'], { gitDir: dir, env, okCodes: [128] });
  return r.code === 0 ? r.stdout.toString('utf8').split('\0').filter(Boolean) : null;
}

export const TAGS = 'refs/tags/';



/** An annotated tag object naming `commit`, written to the object store (no ref yet). Returns its sha. */
export async function writeTagObject(dir: string, name: string, commit: string, message: string, tagger: Person): Promise<string> {
  const clean = (s: string) => s.replace(/[<>\n]/g, '');
  const body = `object ${safeArg(commit, 'commit')}\ntype commit\ntag ${safeArg(name, 'tag')}\ntagger ${clean(tagger.name)} <${clean(tagger.email)}> ${gitDate(tagger)}\n\n${message}\n`;
  return gitText(['mktag'], { gitDir: dir, input: body });
}

/** Creates refs/tags/<name> at sha only if it does not exist yet. False when the tag already existed. */
export async function createTagRef(dir: string, name: string, sha: string): Promise<boolean> {
  const r = await git(['update-ref', '--', TAGS + safeArg(name, 'tag'), sha, ZERO_SHA], { gitDir: dir, okCodes: [128] });
  return r.code === 0;
}

/** Deletes refs/tags/<name> if it still points at oldSha. False when it moved or vanished meanwhile. */
export async function deleteTagRef(dir: string, name: string, oldSha: string): Promise<boolean> {
  const r = await git(['update-ref', '-d', '--', TAGS + safeArg(name, 'tag'), oldSha], { gitDir: dir, okCodes: [128] });
  return r.code === 0;
}
