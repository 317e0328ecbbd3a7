// Commits and trees read through the repository's long-lived cat-file (cat_file.ts) and parsed
// here, so a read in the request path starts no process. An object never changes for its sha, so
// parsed commits and trees are kept (bounded) for every repository; refs are resolved anew on
// every read. Anything this parser does not render exactly as `git log` would (another
// encoding, an unusual identity line) answers null, and the caller asks git itself.
import { objectInfo, readObject } from './cat_file.js';
import type { CommitInfo } from './objects.js';
import { isValidBranchName } from './refs.js';

export interface TreeItem {
  /** As ls-tree prints it: six digits (040000 for a directory). */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  name: string;
}

interface ParsedCommit {
  info: CommitInfo;
  tree: string;
  /** Committer time in seconds: git's walk order. */
  time: number;
}

const KEPT = 20_000;
const commits = new Map<string, ParsedCommit>();
/** Trees are kept up to a number of entries in all, not of trees: one tree may hold thousands. */
const trees = new Map<string, TreeItem[]>();
const TREE_ENTRIES_KEPT = 100_000;
let treeEntries = 0;

function keepTree(sha: string, items: TreeItem[]): void {
  if (trees.has(sha)) return; // read twice at once
  trees.set(sha, items);
  treeEntries += items.length;
  for (const [k, v] of trees) {
    if (treeEntries <= TREE_ENTRIES_KEPT || k === sha) break;
    trees.delete(k);
    treeEntries -= v.length;
  }
}

/** Keeps at most `max` entries, dropping the oldest first. */
export function remember<V>(cache: Map<string, V>, key: string, value: V, max: number): void {
  if (cache.size >= max) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/** A revision safe to hand to cat-file as is: a sha, a prefix of one, HEAD or a well-formed ref name (no `:`, `~`, `@{`…). */
export const isPlainRevision = (rev: string): boolean => /^[0-9a-f]{4,40}$/i.test(rev) || rev === 'HEAD' || isValidBranchName(rev);

/** `Name <email> <epoch> <±hhmm>` as `%an %ae %aI` show it; null for a line git would show otherwise. */
function identity(line: string): { name: string; email: string; date: string; time: number } | null {
  const m = /^(|[^<>\n]*[^<>\s]) <([^<>\n]*)> (\d{1,12}) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!m) return null;
  const time = Number(m[3]);
  const offset = (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  const local = new Date((time + offset * 60) * 1000);
  if (Number.isNaN(local.getTime()) || local.getUTCFullYear() > 9999) return null;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const date =
    `${p(local.getUTCFullYear(), 4)}-${p(local.getUTCMonth() + 1)}-${p(local.getUTCDate())}T` +
    `${p(local.getUTCHours())}:${p(local.getUTCMinutes())}:${p(local.getUTCSeconds())}${offset < 0 ? '-' : '+'}${m[5]}:${m[6]}`;
  return { name: m[1], email: m[2], date, time };
}

function parseCommit(sha: string, data: Buffer): ParsedCommit | null {
  const end = data.indexOf('\n\n');
  if (end < 0 || data.includes(0)) return null;
  const lines = data.toString('utf8', 0, end).split('\n');
  // git reads parents only right after the tree, and its walk's date only from a committer line
  // right after the author's: another layout is git's to read.
  let at = 1;
  while (/^parent [0-9a-f]{40}$/.test(lines[at] ?? '')) at++;
  if (!/^tree [0-9a-f]{40}$/.test(lines[0]) || !lines[at]?.startsWith('author ') || !lines[at + 1]?.startsWith('committer ')) return null;
  const tree = lines[0].slice(5);
  const parentIds = lines.slice(1, at).map((l) => l.slice(7));
  const author = identity(lines[at].slice(7));
  const committer = identity(lines[at + 1].slice(10));
  for (const line of lines.slice(at + 2)) {
    if (line.startsWith('author ') || line.startsWith('committer ')) return null; // git would show the last one
    if (line.startsWith('encoding ') && !/^utf-?8$/i.test(line.slice(9))) return null; // git would re-encode
  }
  if (!author || !committer) return null;
  const info: CommitInfo = {
    id: sha,
    parentIds,
    authorName: author.name,
    authorEmail: author.email,
    authoredDate: author.date,
    committerName: committer.name,
    committerEmail: committer.email,
    committedDate: committer.date,
    message: data.toString('utf8', end + 2),
  };
  return { info, tree, time: committer.time };
}

/** A commit by exact sha; null when it is not a commit this parser renders. */
async function commitBySha(dir: string, sha: string): Promise<ParsedCommit | null> {
  const kept = commits.get(sha);
  if (kept) return kept;
  const obj = await readObject(dir, sha);
  if (!obj || obj.type !== 'commit') return null;
  const parsed = parseCommit(obj.sha, obj.data);
  if (parsed) remember(commits, sha, parsed, KEPT);
  return parsed;
}

/**
 * The commit a plain revision names (a tag peeled): `missing` when it names none, `unknown` when
 * this parser cannot tell (the caller asks git).
 */
export async function commitByRevision(dir: string, rev: string): Promise<{ commit: CommitInfo; tree: string } | 'missing' | 'unknown'> {
  if (!isPlainRevision(rev)) return 'unknown';
  const kept = /^[0-9a-f]{40}$/.test(rev) ? commits.get(rev) : undefined;
  if (kept) return { commit: kept.info, tree: kept.tree };
  const info = await objectInfo(dir, `${rev}^{commit}`);
  if (!info) return 'missing';
  const c = await commitBySha(dir, info.sha);
  return c ? { commit: c.info, tree: c.tree } : 'unknown';
}

/** Commits by sha; a sha that names no commit, or one this parser cannot render, is left out of the map. */
export async function commitsByShas(dir: string, shas: string[]): Promise<Map<string, CommitInfo>> {
  const found = await Promise.all(shas.map((s) => (/^[0-9a-f]{40}$/.test(s) ? commitBySha(dir, s) : null)));
  return new Map(found.filter((c) => c !== null).map((c) => [c.info.id, c.info]));
}

/** What a walk shows and follows: git log's own filters (see walkCommits). */
export interface Walk {
  /** Stop once this many commits are shown. */
  count: number;
  /** Give up (null) after taking this many commits off the queue: git walks a long history faster. */
  budget: number;
  /** Committer time in seconds, inclusive (`--since`): an older commit is neither shown nor walked past. */
  since?: number;
  /** Committer time in seconds, inclusive (`--until`): a newer commit is walked past but not shown. */
  until?: number;
  firstParent?: boolean;
  /** `-- <path>`: the path's parts (none: the whole tree); dirOnly when it ended in `/` (it then names only a directory). */
  path?: { parts: string[]; dirOnly: boolean };
}

/** A read the walk cannot do here (an object missing or not rendered): the caller asks git. */
class Unreadable extends Error {}

async function parsed(dir: string, sha: string): Promise<ParsedCommit> {
  const c = await commitBySha(dir, sha);
  if (!c) throw new Unreadable(sha);
  return c;
}

/**
 * The first `o.count` commits git log shows from `tips` (commit shas, in the order git was given
 * them), in its default order: newest committer time first, ties in the order the walk met them
 * (git sorts the starting commits stably, then inserts a parent after every queued commit of the
 * same time). Null when a commit or tree on the way cannot be read here, or past the budget.
 *
 * With a path, this is git's default history simplification: a commit is shown when it differs
 * at the path from every parent (a root commit: when the path exists in it); one that is the same
 * as some parent is not shown, and only the first such parent is followed.
 */
export async function walkCommits(dir: string, tips: string[], o: Walk): Promise<CommitInfo[] | null> {
  try {
    const queue: ParsedCommit[] = [];
    const seen = new Set<string>();
    for (const tip of tips) {
      if (seen.has(tip)) continue;
      seen.add(tip);
      queue.push(await parsed(dir, tip));
    }
    queue.sort((a, b) => b.time - a.time); // stable, as git's
    const out: CommitInfo[] = [];
    for (let taken = 0; queue.length && out.length < o.count; taken++) {
      if (taken >= o.budget) return null;
      const c = queue.shift()!;
      if (o.since !== undefined && c.time < o.since) continue;
      const { follow, show } = await simplify(dir, c, o);
      for (const p of follow) {
        if (seen.has(p.info.id)) continue;
        seen.add(p.info.id);
        let at = queue.length;
        while (at > 0 && queue[at - 1].time < p.time) at--;
        queue.splice(at, 0, p);
      }
      if (show && (o.until === undefined || c.time <= o.until)) out.push(c.info);
    }
    return out;
  } catch (e) {
    if (e instanceof Unreadable) return null;
    throw e;
  }
}

/** Which parents of `c` the walk follows and whether `c` is shown (git's try_to_simplify_commit). */
async function simplify(dir: string, c: ParsedCommit, o: Walk): Promise<{ follow: ParsedCommit[]; show: boolean }> {
  const ids = o.firstParent ? c.info.parentIds.slice(0, 1) : c.info.parentIds;
  const parents = await Promise.all(ids.map((p) => parsed(dir, p)));
  if (!o.path) return { follow: parents, show: true };
  if (parents.length === 0) return { follow: [], show: !(await sameAt(dir, null, c.tree, o.path)) };
  for (const p of parents) {
    if (await sameAt(dir, p.tree, c.tree, o.path)) return { follow: [p], show: false };
  }
  return { follow: parents, show: true };
}

type Entry = TreeItem | null;

async function treeItems(dir: string, sha: string): Promise<TreeItem[]> {
  const items = await readTree(dir, sha);
  if (!items) throw new Unreadable(sha);
  return items;
}

async function child(dir: string, e: Entry, name: string): Promise<Entry> {
  if (e?.type !== 'tree') return null; // a pathspec looks into directories only
  return (await treeItems(dir, e.sha)).find((i) => i.name === name) ?? null;
}

/** Whether two root trees (null: none, a root commit's parent) hold the same at a path, as git's pruning diff sees it. */
async function sameAt(dir: string, a: string | null, b: string, path: NonNullable<Walk['path']>): Promise<boolean> {
  const root = (sha: string): TreeItem => ({ mode: '040000', type: 'tree', sha, name: '' });
  let x: Entry = a ? root(a) : null;
  let y: Entry = root(b);
  for (const name of path.parts) {
    if (x && y && x.sha === y.sha) return true; // the same object: the same below it
    x = await child(dir, x, name);
    y = await child(dir, y, name);
  }
  if (path.dirOnly && x?.type !== 'tree') x = null;
  if (path.dirOnly && y?.type !== 'tree') y = null;
  return sameEntry(dir, x, y);
}

/** git compares modes as it canonicalises them (a regular file is 644 or 755) */
function canonicalMode(mode: string): string {
  const m = parseInt(mode, 8);
  switch (m & 0o170000) {
    case 0o100000:
      return m & 0o100 ? '100755' : '100644';
    case 0o120000:
      return '120000';
    case 0o040000:
      return '040000';
    default:
      return '160000';
  }
}

/**
 * Whether two entries (null: none) are the same to a recursive diff: the same object and mode,
 * or directories whose files are all the same (a directory holding no file at all is the same
 * as none: the diff shows files, not directories).
 */
async function sameEntry(dir: string, x: Entry, y: Entry): Promise<boolean> {
  if (!x && !y) return true;
  if (x && y && x.sha === y.sha && canonicalMode(x.mode) === canonicalMode(y.mode)) return true;
  if ((x && x.type !== 'tree') || (y && y.type !== 'tree')) return false;
  const xs = new Map((x ? await treeItems(dir, x.sha) : []).map((e) => [e.name, e]));
  const ys = new Map((y ? await treeItems(dir, y.sha) : []).map((e) => [e.name, e]));
  for (const name of new Set([...xs.keys(), ...ys.keys()])) {
    if (!(await sameEntry(dir, xs.get(name) ?? null, ys.get(name) ?? null))) return false;
  }
  return true;
}

function parseTree(data: Buffer): TreeItem[] {
  const items: TreeItem[] = [];
  for (let i = 0; i < data.length; ) {
    const sp = data.indexOf(32, i);
    const nul = data.indexOf(0, sp);
    const mode = data.toString('latin1', i, sp).padStart(6, '0');
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    items.push({ mode, type, name: data.toString('utf8', sp + 1, nul), sha: data.toString('hex', nul + 1, nul + 21) });
    i = nul + 21;
  }
  return items;
}

/** A tree's entries in git's order; null when the sha names no tree. */
export async function readTree(dir: string, sha: string): Promise<TreeItem[] | null> {
  const kept = trees.get(sha);
  if (kept) return kept;
  const obj = await readObject(dir, sha);
  if (!obj || obj.type !== 'tree') return null;
  const items = parseTree(obj.data);
  keepTree(sha, items);
  return items;
}

/**
 * The entry at `parts` (a path split at `/`) below the tree `root`; the root itself for no parts.
 * Null when there is none.
 */
export async function entryAt(dir: string, root: string, parts: string[]): Promise<TreeItem | null> {
  let entry: TreeItem = { mode: '040000', type: 'tree', sha: root, name: '' };
  for (const name of parts) {
    if (entry.type !== 'tree') return null;
    const items = await readTree(dir, entry.sha);
    const next = items?.find((e) => e.name === name);
    if (!next) return null;
    entry = next;
  }
  return entry;
}
