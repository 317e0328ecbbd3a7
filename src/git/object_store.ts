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

export interface ParsedCommit {
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

/**
 * A revision safe to hand to cat-file as is: a sha, a prefix of one, HEAD or a well-formed ref
 * name, with any steps to ancestors after it (`~2`, `^`, `^2`); no `:`, `@{`, `^{…}`, which read
 * other things than commits or need more than the object store.
 */
export function isPlainRevision(rev: string): boolean {
  const name = rev.replace(/(?:~\d*|\^\d*)+$/, '');
  return /^[0-9a-f]{4,40}$/i.test(name) || name === 'HEAD' || isValidBranchName(name);
}

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
export async function parsedCommit(dir: string, sha: string): Promise<ParsedCommit | null> {
  const kept = commits.get(sha);
  if (kept) return kept;
  const obj = await readObject(dir, sha);
  if (!obj || obj.type !== 'commit') return null;
  const parsed = parseCommit(obj.sha, obj.data);
  if (parsed) remember(commits, sha, parsed, KEPT);
  return parsed;
}

/**
 * The commit a plain revision names (a tag peeled: `throughTag`): `missing` when it names none,
 * `unknown` when this parser cannot tell (the caller asks git).
 */
export async function commitByRevision(dir: string, rev: string): Promise<{ commit: CommitInfo; tree: string; throughTag: boolean } | 'missing' | 'unknown'> {
  if (!isPlainRevision(rev)) return 'unknown';
  const kept = /^[0-9a-f]{40}$/.test(rev) ? commits.get(rev) : undefined;
  if (kept) return { commit: kept.info, tree: kept.tree, throughTag: false };
  const named = await objectInfo(dir, rev);
  const info = named?.type === 'tag' ? await objectInfo(dir, `${rev}^{commit}`) : named;
  if (info?.type !== 'commit') return 'missing';
  const c = await parsedCommit(dir, info.sha);
  return c ? { commit: c.info, tree: c.tree, throughTag: named!.type === 'tag' } : 'unknown';
}

/** An annotated tag object, as for-each-ref shows it. */
export interface ParsedTag {
  /** What it tags, one level down (a tag of a tag names the other tag). */
  object: string;
  type: string;
  /** The tagger's date (`%(creatordate:iso-strict)`); '' without a tagger. */
  date: string;
  message: string;
}

/** The objects refs name never change: their type, and the tag itself for a tag. */
const targets = new Map<string, { type: string; tag: ParsedTag | null }>();

function parseTag(data: Buffer): ParsedTag | null {
  const end = data.indexOf('\n\n');
  const head = data.toString('utf8', 0, end < 0 ? data.length : end).split('\n');
  const object = /^object ([0-9a-f]{40})$/.exec(head[0] ?? '')?.[1];
  const type = /^type (commit|tree|blob|tag)$/.exec(head[1] ?? '')?.[1];
  if (!object || !type || data.includes(0)) return null;
  let date = '';
  for (const line of head.slice(2)) {
    if (line.startsWith('encoding ') && !/^utf-?8$/i.test(line.slice(9))) return null; // git would re-encode
    if (!line.startsWith('tagger ')) continue;
    const who = identity(line.slice(7));
    if (!who) return null;
    date = who.date;
  }
  return { object, type, date, message: end < 0 ? '' : data.toString('utf8', end + 2) };
}

/**
 * The type of the object a ref names, and the tag when it is an annotated tag; null when it names
 * nothing, or a tag this parser does not render as git would (the caller asks git).
 */
export async function refTarget(dir: string, sha: string): Promise<{ type: string; tag: ParsedTag | null } | null> {
  const kept = targets.get(sha);
  if (kept) return kept;
  const info = await objectInfo(dir, sha);
  if (!info) return null;
  let tag: ParsedTag | null = null;
  if (info.type === 'tag') {
    const obj = await readObject(dir, sha);
    tag = obj ? parseTag(obj.data) : null;
    if (!tag) return null;
  }
  const target = { type: info.type, tag };
  remember(targets, sha, target, KEPT);
  return target;
}

/** Commits by sha; a sha that names no commit, or one this parser cannot render, is left out of the map. */
export async function commitsByShas(dir: string, shas: string[]): Promise<Map<string, CommitInfo>> {
  const found = await Promise.all(shas.map((s) => (/^[0-9a-f]{40}$/.test(s) ? parsedCommit(dir, s) : null)));
  return new Map(found.filter((c) => c !== null).map((c) => [c.info.id, c.info]));
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
