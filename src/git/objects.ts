// Commits without a working tree, and the readers the commits, files and tree APIs need.
// A commit is built in a temporary index (GIT_INDEX_FILE in a temp dir) from its parent's tree;
// the branch then moves with `update-ref <ref> <new> <old>`, a compare-and-swap, so a commit
// made on a stale head is never written over a newer one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { objectInfo, readObject } from './cat_file.js';
import { diffStats, type DiffStats } from './diff_stats.js';
import { finished, git, gitStream, gitText, GitError, safeArg } from './git.js';
import { commitByRevision, commitsByShas, entryAt, readTree, remember } from './object_store.js';
import { SHA_RE, ZERO_SHA, type Person } from './repository.js';
import { nowDate } from '../shared/clock.js';


export interface FileAction {
  action: 'create' | 'update' | 'delete' | 'move' | 'chmod';
  filePath: string;
  previousPath?: string;
  /** New content; for move, null keeps the moved file's content. */
  content?: Buffer | null;
  executeFilemode?: boolean;
}

/** A refusal the caller shows the user as it is (the reference's messages). */
export class ActionError extends Error {}

interface Entry {
  mode: string;
  sha: string;
}

/** Normalises a file path the way the reference's index does, refusing what git could not store. */
export function normalizePath(p: string): string {
  const trimmed = p.replace(/^\/+/, '');
  if (trimmed === '') throw new ActionError('You must provide a file path');
  const parts = trimmed.split('/');
  if (parts.some((s) => s === '..' || s === '.')) throw new ActionError('Path cannot include directory traversal');
  if (parts.some((s) => s === '' && parts.length > 1) || trimmed.includes('\0') || parts.some((s) => s.toLowerCase() === '.git')) {
    throw new ActionError(`invalid path: '${p}'`);
  }
  return parts.filter((s) => s !== '').join('/');
}

async function readIndex(dir: string, env: Record<string, string>): Promise<Map<string, Entry>> {
  const out = (await git(['ls-files', '-s', '-z'], { gitDir: dir, env })).stdout.toString('utf8');
  const entries = new Map<string, Entry>();
  for (const rec of out.split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, sha] = rec.slice(0, tab).split(' ');
    entries.set(rec.slice(tab + 1), { mode, sha });
  }
  return entries;
}

function isDirectory(entries: Map<string, Entry>, p: string): boolean {
  const prefix = `${p}/`;
  for (const k of entries.keys()) if (k.startsWith(prefix)) return true;
  return false;
}

/** A file whose path runs through an existing file (a/b when a is a file) cannot be created. */
function blockedByFile(entries: Map<string, Entry>, p: string): boolean {
  const parts = p.split('/');
  for (let i = 1; i < parts.length; i++) if (entries.has(parts.slice(0, i).join('/'))) return true;
  return false;
}

function requireFile(entries: Map<string, Entry>, p: string): Entry {
  const e = entries.get(p);
  if (!e || e.mode === '160000') throw new ActionError("A file with this name doesn't exist");
  return e;
}

function requireFree(entries: Map<string, Entry>, p: string): void {
  if (entries.has(p) || blockedByFile(entries, p)) throw new ActionError('A file with this name already exists');
  if (isDirectory(entries, p)) throw new ActionError('A directory with this name already exists');
}

/** `Name <email> <epoch> +0000`; characters git forbids in an identity are dropped. */
export function ident(p: Person): string {
  const clean = (v: string) => v.replace(/[<>\n\r\0]/g, '').trim();
  const when = Math.floor(Date.parse(p.date ?? nowDate().toISOString()) / 1000);
  return `${clean(p.name)} <${clean(p.email)}> ${when} +0000`;
}

const blobMode = (executable: boolean) => (executable ? '100755' : '100644');

export interface WrittenCommit {
  sha: string;
  /** Every path the commit touched (both ends of a move). */
  changedPaths: string[];
}

/**
 * Writes a commit applying `actions` (in order) on top of `parent` (null: a root commit), without
 * moving any ref. Throws ActionError with the reference's message for an action that cannot apply.
 */
export async function writeCommit(
  dir: string,
  o: { parent: string | null; actions: FileAction[]; message: string; author: Person; committer: Person },
): Promise<WrittenCommit> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-index-'));
  const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
  try {
    if (o.parent) await git(['read-tree', o.parent], { gitDir: dir, env });
    else await git(['read-tree', '--empty'], { gitDir: dir, env });
    const entries = await readIndex(dir, env);
    const changed = new Set<string>();
    const hash = async (content: Buffer) => gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: content });

    for (const a of o.actions) {
      const file = normalizePath(a.filePath);
      switch (a.action) {
        case 'create': {
          requireFree(entries, file);
          entries.set(file, { mode: blobMode(a.executeFilemode === true), sha: await hash(a.content ?? Buffer.alloc(0)) });
          break;
        }
        case 'update': {
          const e = requireFile(entries, file);
          entries.set(file, { mode: e.mode, sha: await hash(a.content ?? Buffer.alloc(0)) });
          break;
        }
        case 'delete': {
          requireFile(entries, file);
          entries.delete(file);
          break;
        }
        case 'move': {
          const from = normalizePath(a.previousPath ?? '');
          const e = requireFile(entries, from);
          entries.delete(from);
          if (from !== file) requireFree(entries, file);
          entries.set(file, { mode: e.mode, sha: a.content != null ? await hash(a.content) : e.sha });
          changed.add(from);
          break;
        }
        case 'chmod': {
          const e = requireFile(entries, file);
          entries.set(file, { mode: blobMode(a.executeFilemode === true), sha: e.sha });
          break;
        }
      }
      changed.add(file);
    }

    // The whole index is written back in one go: entries for what exists, removals for the rest.
    const lines: string[] = [];
    for (const p of changed) {
      const e = entries.get(p);
      lines.push(e ? `${e.mode} ${e.sha}\t${p}` : `0 ${ZERO_SHA}\t${p}`);
    }
    if (lines.length) await git(['update-index', '-z', '--index-info'], { gitDir: dir, env, input: lines.join('\0') + '\0' });
    const tree = await gitText(['write-tree'], { gitDir: dir, env });
    // Written as an object rather than with commit-tree, which would end the message with a newline:
    // the message is stored exactly as given, as the reference stores it.
    const body = [`tree ${tree}`, ...(o.parent ? [`parent ${o.parent}`] : []), `author ${ident(o.author)}`, `committer ${ident(o.committer)}`, '', o.message].join('\n');
    const sha = await gitText(['hash-object', '-t', 'commit', '-w', '--stdin'], { gitDir: dir, input: body });
    return { sha, changedPaths: [...changed] };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Moves `ref` from `oldSha` (ZERO_SHA: must not exist) to `newSha`; false when the ref was not at `oldSha`. */
export async function compareAndSwapRef(dir: string, ref: string, newSha: string, oldSha: string): Promise<boolean> {
  try {
    await git(['update-ref', safeArg(ref, 'ref'), newSha, oldSha], { gitDir: dir });
    return true;
  } catch (e) {
    if (e instanceof GitError) return false;
    throw e;
  }
}

export async function objectExists(dir: string, sha: string, type: 'commit' | 'blob' | 'tree'): Promise<boolean> {
  const r = await git(['cat-file', '-t', sha], { gitDir: dir, okCodes: [1, 128] });
  return r.code === 0 && r.stdout.toString().trim() === type;
}

/** True when the repository has no refs at all (an empty project). */
export async function isEmptyRepository(dir: string): Promise<boolean> {
  const out = await gitText(['for-each-ref', '--count=1', '--format=%(refname)'], { gitDir: dir });
  return out === '';
}

// ---- readers ----

export interface CommitInfo {
  id: string;
  parentIds: string[];
  authorName: string;
  authorEmail: string;
  /** ISO 8601 with offset, as git recorded it. */
  authoredDate: string;
  committerName: string;
  committerEmail: string;
  committedDate: string;
  message: string;
}

/** The fields of a commit as the readers ask git log for them; parseCommits reads them back. */
export const FIELDS = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'];

export function parseCommits(out: string): CommitInfo[] {
  return out
    .split('\x1e')
    .filter((r) => r !== '')
    .map((r) => r.replace(/\n$/, '')) // the line end `log` puts after each record
    .map((r) => {
      const [id, parents, an, ae, ad, cn, ce, cd, ...msg] = r.split('\x1f');
      return {
        id,
        parentIds: parents ? parents.split(' ') : [],
        authorName: an,
        authorEmail: ae,
        authoredDate: ad,
        committerName: cn,
        committerEmail: ce,
        committedDate: cd,
        message: msg.join('\x1f'),
      };
    });
}

/** One commit by sha, branch or tag name; null when it names none. */
export async function readCommit(dir: string, rev: string): Promise<CommitInfo | null> {
  if (rev.startsWith('-')) return null;
  const read = await commitByRevision(dir, rev);
  if (read === 'missing') return null;
  if (read !== 'unknown') return read.commit;
  const r = await git(['log', '-1', '--no-walk', `--format=%x1e${FIELDS.join('%x1f')}`, `${rev}^{commit}`, '--'], { gitDir: dir, okCodes: [128] });
  if (r.code !== 0) return null;
  return parseCommits(r.stdout.toString('utf8'))[0] ?? null;
}

/** The commits with these shas (any order); shas that name no commit are left out. */
export async function readCommitsBySha(dir: string, shas: string[]): Promise<CommitInfo[]> {
  const read = await commitsByShas(dir, shas);
  // Those cat-file did not render (none, usually) are asked of git.
  const valid = shas.filter((s) => /^[0-9a-f]{40}$/.test(s) && !read.has(s));
  if (valid.length === 0) return [...read.values()];
  const r = await git(['log', '--no-walk=unsorted', `--format=%x1e${FIELDS.join('%x1f')}`, ...valid, '--'], { gitDir: dir, okCodes: [128] });
  return [...read.values(), ...(r.code === 0 ? parseCommits(r.stdout.toString('utf8')) : [])];
}

/** Lines added and removed by a commit against its first parent (binary files count nothing). */
export async function commitStats(dir: string, c: CommitInfo): Promise<DiffStats> {
  const kept = stats.get(c.id);
  if (kept) return kept;
  const counted = await diffStats(dir, c.id, c.parentIds[0] ?? null);
  remember(stats, c.id, counted, 20_000);
  return counted;
}

/** A commit's stats never change for its sha (its first parent is part of it). */
const stats = new Map<string, DiffStats>();

export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Full path from the repository root. */
  path: string;
  size: number | null;
}

function parseTree(out: string, prefix: string, withSize: boolean): TreeEntry[] {
  return out
    .split('\0')
    .filter(Boolean)
    .map((rec) => {
      const tab = rec.indexOf('\t');
      const [mode, type, sha, size] = rec.slice(0, tab).split(/ +/);
      const p = rec.slice(tab + 1);
      return { mode, type: type as TreeEntry['type'], sha, path: prefix ? `${prefix}/${p}` : p, size: withSize && /^\d+$/.test(size ?? '') ? Number(size) : null };
    });
}

/**
 * Where a path lookup starts: the commit's root tree and the path's parts. Null when the walk
 * through cat-file cannot answer as git would (a commit it cannot render, `.` or empty parts):
 * git answers those.
 */
async function pathStart(repo: string, commit: string, clean: string): Promise<{ tree: string; parts: string[] } | null> {
  const parts = clean === '' ? [] : clean.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const c = await commitByRevision(repo, commit);
  return typeof c === 'string' ? null : { tree: c.tree, parts };
}

/** Every entry below a tree, depth first, a directory before its entries (`ls-tree -r -t`). */
async function entriesBelow(repo: string, tree: string, prefix: string, out: TreeEntry[]): Promise<TreeEntry[]> {
  for (const e of (await readTree(repo, tree)) ?? []) {
    const p = prefix ? `${prefix}/${e.name}` : e.name;
    out.push({ mode: e.mode, type: e.type, sha: e.sha, path: p, size: null });
    if (e.type === 'tree') await entriesBelow(repo, e.sha, p, out);
  }
  return out;
}

/** The entries of the directory `dir` (root when empty) at `commit`; null when it is not a directory there. */
export async function listTree(repo: string, commit: string, dirPath: string, recursive: boolean): Promise<TreeEntry[] | null> {
  const clean = dirPath.replace(/^\/+|\/+$/g, '');
  const start = await pathStart(repo, commit, clean);
  if (start) {
    const dir = await entryAt(repo, start.tree, start.parts);
    if (!dir || dir.type !== 'tree') return null;
    if (recursive) return entriesBelow(repo, dir.sha, clean, []);
    return ((await readTree(repo, dir.sha)) ?? []).map((e) => ({ mode: e.mode, type: e.type, sha: e.sha, path: clean ? `${clean}/${e.name}` : e.name, size: null }));
  }
  const target = clean ? `${commit}:${clean}` : `${commit}^{tree}`;
  const type = await git(['cat-file', '-t', target], { gitDir: repo, okCodes: [1, 128] });
  if (type.code !== 0 || type.stdout.toString().trim() !== 'tree') return null;
  const out = await git(['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), target], { gitDir: repo });
  return parseTree(out.stdout.toString('utf8'), clean, false);
}

/** The blob at `filePath` in `commit`, or null when there is no file there. */
export async function blobAt(repo: string, commit: string, filePath: string): Promise<TreeEntry | null> {
  const clean = filePath.replace(/^\/+/, '');
  if (!clean) return null;
  const start = await pathStart(repo, commit, clean);
  if (start) {
    const e = await entryAt(repo, start.tree, start.parts);
    if (!e || e.type !== 'blob') return null;
    const info = await objectInfo(repo, e.sha);
    return { mode: e.mode, type: 'blob', sha: e.sha, path: clean, size: info ? info.size : null };
  }
  const out = await git(['ls-tree', '-z', '-l', '--full-tree', commit, '--', clean], { gitDir: repo });
  const e = parseTree(out.stdout.toString('utf8'), '', true).find((x) => x.path === clean);
  return e && e.type === 'blob' ? e : null;
}

/** Blobs up to this size are read whole through cat-file; larger ones stream from a git of their own. */
const SMALL_BLOB = 1024 * 1024;

/** A blob's bytes as a stream, a promise of the end of the read, and a way to stop it early. */
export async function blobStream(repo: string, sha: string, size: number | null): Promise<{ stdout: NodeJS.ReadableStream; done: Promise<void>; stop: () => void }> {
  if (size !== null && size <= SMALL_BLOB) {
    const obj = await readObject(repo, safeArg(sha, 'object'));
    if (obj?.type === 'blob') return { stdout: Readable.from(obj.data.length ? [obj.data] : []), done: Promise.resolve(), stop: () => undefined };
  }
  const child = gitStream(['cat-file', 'blob', safeArg(sha, 'object')], { gitDir: repo });
  child.stdin.end();
  return { stdout: child.stdout, done: finished(child), stop: () => child.kill() };
}

export async function readBlob(repo: string, sha: string): Promise<Buffer> {
  const obj = SHA_RE.test(sha) ? await readObject(repo, sha) : null;
  if (obj?.type === 'blob') return obj.data;
  return (await git(['cat-file', 'blob', sha], { gitDir: repo })).stdout;
}

/**
 * The commits a push brought (newest first, at most `limit`): those reachable from `tip` and not
 * from `not` (the old tip, or the default branch for a new branch); countCommits counts them all.
 */
export async function commitsBetween(dir: string, tip: string, not: string | null, limit: number): Promise<CommitInfo[]> {
  const args = ['log', `--format=%x1e${FIELDS.join('%x1f')}`, `--max-count=${limit}`, safeArg(tip, 'revision')];
  if (not) args.push(`^${safeArg(not, 'revision')}`);
  args.push('--');
  const r = await git(args, { gitDir: dir, okCodes: [128] });
  return r.code === 0 ? parseCommits(r.stdout.toString('utf8')) : [];
}

/** Paths a commit added, modified and removed against its first parent (the whole tree for a root commit). */
export async function commitPathChanges(dir: string, sha: string): Promise<{ added: string[]; modified: string[]; removed: string[] }> {
  if (!SHA_RE.test(sha)) throw new Error(`not a commit id: ${sha}`);
  const out = await gitText(['diff-tree', '--no-commit-id', '--name-status', '-r', '--root', '--no-renames', '-z', sha], { gitDir: dir });
  const parts = out.split('\0').filter((p) => p !== '');
  const res = { added: [] as string[], modified: [] as string[], removed: [] as string[] };
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [status, file] = [parts[i], parts[i + 1]];
    if (status === 'A') res.added.push(file);
    else if (status === 'D') res.removed.push(file);
    else res.modified.push(file);
  }
  return res;
}

/** The message of an annotated tag; null for a lightweight one (or no such tag). */
export async function annotatedTagMessage(dir: string, ref: string): Promise<string | null> {
  const r = await git(['cat-file', '-p', safeArg(ref, 'ref')], { gitDir: dir, okCodes: [128] });
  if (r.code !== 0) return null;
  const text = r.stdout.toString('utf8');
  if (!/^object [0-9a-f]{40}\ntype /.test(text)) return null;
  const blank = text.indexOf('\n\n');
  return blank < 0 ? '' : text.slice(blank + 2).replace(/\n$/, '');
}

