// Branch and tag lists without forking git: the refs are read from the repository's own files
// (loose refs and packed-refs: refs/heads/, refs/tags/, and every ref under refs/ for a walk from
// all refs), and commits, tags and "merged" answers, which never change for a given sha, are kept
// once read. Objects are read through the repository's cat-file, "merged" answers walked on its
// commit-graph.
import fs from 'node:fs';
import path from 'node:path';
import { git, safeArg } from './git.js';
import { readCommitsBySha, type CommitInfo } from './objects.js';
import { commitsByShas, refTarget, remember } from './object_store.js';
import { reachedFrom } from './walk.js';
import { HEADS, type BranchRef } from './refs.js';

interface Refs {
  /** Name below the prefix → the sha it holds (a tag's may be a tag object), in git's order (byte order of the refname). */
  tips: Map<string, string>;
  /** Loose refs that hold no sha (a symbolic ref, `ref: …`): left out of `tips`. */
  symbolic: number;
  /** The prefix's directory and every directory below it, when read. */
  dirs: string[];
  /** Modification times of packed-refs and of those directories when read. */
  stamp: string;
  /** Read while a file was being changed (its mtime too recent to tell a later change apart): read again next time. */
  racy: boolean;
}

/**
 * git writes a ref by renaming a lock file into place (packed-refs too), so every change moves
 * the mtime of the ref's directory or of packed-refs; a new directory moves its parent's. A change
 * within the same clock tick as our read would not show, hence the racy window.
 */
const RACY_MS = 2_000;
/** By repository and prefix (refs/heads/ for the branch list, refs/ for a walk from every ref). */
const refsByRepo = new Map<string, Refs>();

function stampOf(dir: string, dirs: string[]): { stamp: string; newest: number } {
  let newest = 0;
  const parts = [path.join(dir, 'packed-refs'), ...dirs].map((f) => {
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (st) newest = Math.max(newest, st.mtimeMs);
    return st ? `${st.mtimeMs}:${st.size}` : '-';
  });
  return { stamp: parts.join(' '), newest };
}

/** The prefix's directory and the directories below it. */
function refDirs(dir: string, prefix: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    out.push(d);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  if (fs.existsSync(path.join(dir, prefix))) walk(path.join(dir, prefix));
  return out;
}

function readRefs(dir: string, prefix: string, dirs: string[]): { tips: Map<string, string>; symbolic: number } {
  const tips = new Map<string, string>();
  let symbolic = 0;
  // Loose refs first, then packed-refs: `pack-refs` writes packed-refs before it prunes the loose
  // files, so a ref gone from the loose files by now is in the packed-refs read after.
  const root = path.join(dir, prefix);
  for (const d of dirs) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (!e.isFile() || e.name.endsWith('.lock')) continue;
      const sha = fs.readFileSync(path.join(d, e.name), 'utf8').trim();
      // A symbolic ref (`ref: …`) is not a branch of its own.
      if (/^[0-9a-f]{40}$/.test(sha)) tips.set(path.relative(root, path.join(d, e.name)), sha);
      else symbolic++;
    }
  }
  const packed = fs.existsSync(path.join(dir, 'packed-refs')) ? fs.readFileSync(path.join(dir, 'packed-refs'), 'utf8') : '';
  for (const line of packed.split('\n')) {
    // `<sha> <refname>`; `#` starts the header, `^` a peeled tag's line. A loose ref overrides its packed line.
    const at = line.indexOf(' ');
    const name = line.slice(at + 1 + prefix.length);
    if (at === 40 && line.startsWith(prefix, at + 1) && !tips.has(name)) tips.set(name, line.slice(0, at));
  }
  const names = [...tips.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return { tips: new Map(names.map((n) => [n, tips.get(n)!])), symbolic };
}

/** The refs under a prefix (`refs/heads/`), read from the repository's files, kept until they change. */
function refsUnder(dir: string, prefix: string): Refs {
  const key = `${dir}\0${prefix}`;
  const cached = refsByRepo.get(key);
  if (cached && !cached.racy && stampOf(dir, cached.dirs).stamp === cached.stamp) return cached;
  // A concurrent `pack-refs` moves loose refs into packed-refs and removes their files and
  // directories while we walk them: read again, the refs are then in packed-refs.
  for (let attempt = 1; ; attempt++) {
    try {
      const dirs = refDirs(dir, prefix);
      const { stamp, newest } = stampOf(dir, dirs);
      const refs = { ...readRefs(dir, prefix, dirs), dirs, stamp, racy: Date.now() - newest < RACY_MS };
      refsByRepo.set(key, refs);
      return refs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw e;
    }
  }
}

/** Every branch and its tip, sorted by name as `git for-each-ref --sort=refname` sorts them. */
export function branchTips(dir: string): Map<string, string> {
  return refsUnder(dir, HEADS).tips;
}

/** Every branch name, sorted by name (byte order, as git sorts refnames). */
export function branchNames(dir: string): string[] {
  return [...branchTips(dir).keys()];
}

/** Every tag name, sorted by name. */
export function tagNames(dir: string): string[] {
  return [...refsUnder(dir, 'refs/tags/').tips.keys()];
}

/** The tag made last (the reference's "latest tag": for-each-ref's newest creatordate, ties by name), or null when there is none. */
export async function latestTagName(dir: string): Promise<string | null> {
  let latest: { name: string; time: number } | null = null;
  for (const tag of await listTags(dir)) {
    const time = tag.date ? Date.parse(tag.date) : 0;
    if (!latest || time > latest.time) latest = { name: tag.name, time };
  }
  return latest?.name ?? null;
}

/** Every tag and the object its ref names, sorted by name; null when a tag ref is symbolic (git resolves it). */
function tagTargets(dir: string): Map<string, string> | null {
  const refs = refsUnder(dir, 'refs/tags/');
  return refs.symbolic > 0 ? null : refs.tips;
}

/**
 * What `git log --all` starts from, in its order: the object of every ref under refs/ (sorted by
 * name), then HEAD's. Null when a ref is symbolic or HEAD is neither a ref nor a sha: git resolves those.
 */
export function allRefTargets(dir: string): string[] | null {
  const refs = refsUnder(dir, 'refs/');
  if (refs.symbolic > 0) return null;
  const head = fs.readFileSync(path.join(dir, 'HEAD'), 'utf8').trim();
  const target = head.startsWith('ref: refs/') ? refs.tips.get(head.slice('ref: refs/'.length)) : /^[0-9a-f]{40}$/.test(head) ? head : null;
  if (target === null) return null;
  // HEAD on a branch not born yet adds nothing
  return target === undefined ? [...refs.tips.values()] : [...refs.tips.values(), target];
}

// Whether one sha is an ancestor of another never changes: it holds for every repository and
// every node, so it is kept without expiry (bounded).
const ancestors = new Map<string, boolean>();
const KEPT = 20_000;

/** The commits with these shas (those that name none are left out). */
export async function commitsBySha(dir: string, shas: string[]): Promise<Map<string, CommitInfo>> {
  return new Map((await readCommitsBySha(dir, [...new Set(shas)])).map((c) => [c.id, c]));
}

/** One branch with its commit, or null: read as the branch list reads it. */
export async function branchWithCommit(dir: string, name: string): Promise<BranchRef | null> {
  const tip = branchTips(dir).get(name);
  const commit = tip ? (await commitsBySha(dir, [tip])).get(tip) : undefined;
  return commit ? { name, commit } : null;
}

/**
 * Of these branches (name → tip), those merged into the commit `head` as the reference counts it:
 * the tip is reachable from head and is not head itself. Tips never asked about before are walked
 * to on the commit-graph; in a repository that has none yet, they cost one git run.
 */
export async function mergedBranches(dir: string, head: string, branches: Map<string, string>): Promise<Set<string>> {
  const key = (tip: string) => `${head} ${tip}`;
  const unknown = [...branches].filter(([, tip]) => tip !== head && !ancestors.has(key(tip))).map(([name]) => name);
  const reached = unknown.length ? await reachedFrom(dir, head, unknown.map((name) => branches.get(name)!)) : null;
  if (reached) for (const name of unknown) remember(ancestors, key(branches.get(name)!), reached.has(branches.get(name)!), KEPT);
  else if (unknown.length) {
    // no commit-graph yet: git answers
    const patterns = unknown.map((n) => HEADS + safeArg(n, 'branch'));
    const r = await git(['for-each-ref', `--merged=${head}`, '--format=%(objectname) %(refname)', '--', ...patterns], { gitDir: dir, okCodes: [128, 129] });
    const merged = new Set<string>();
    for (const line of r.code === 0 ? r.stdout.toString('utf8').split('\n') : []) {
      const [sha, ref] = [line.slice(0, 40), line.slice(41)];
      if (!ref.startsWith(HEADS)) continue;
      merged.add(ref.slice(HEADS.length));
      remember(ancestors, key(sha), true, KEPT); // exactly what git found
    }
    // A branch git did not list is not merged, if it still points where it did (it may have moved meanwhile).
    const now = branchTips(dir);
    for (const name of unknown) {
      if (!merged.has(name) && r.code === 0 && now.get(name) === branches.get(name)) remember(ancestors, key(branches.get(name)!), false, KEPT);
    }
  }
  return new Set([...branches].filter(([name, tip]) => tip !== head && (ancestors.get(key(tip)) ?? false)).map(([name]) => name));
}

export interface TagInfo {
  name: string;
  /** The tag object for an annotated tag, else the commit. */
  target: string;
  /** The annotated tag's message; null for a lightweight tag. */
  message: string | null;
  commit: CommitInfo | null;
  /** When the tag (annotated) or its commit (lightweight) was made. */
  date: string;
}

/**
 * Every tag with its commit, sorted by name: read from the refs files and cat-file, or from
 * for-each-ref when a tag or commit is one the parser does not render.
 */
export async function listTags(dir: string): Promise<TagInfo[]> {
  return (await readTags(dir)) ?? tagsByGit(dir);
}

async function readTags(dir: string): Promise<TagInfo[] | null> {
  const targets = tagTargets(dir);
  if (!targets) return null;
  const named = [...targets];
  const objects = await Promise.all(named.map(([, sha]) => refTarget(dir, sha)));
  if (objects.includes(null)) return null;
  // a lightweight tag's commit is the ref's object; an annotated one's what the tag names (one level down)
  const commitOf = named.map(([, sha], i) => {
    const { type, tag } = objects[i]!;
    return tag ? (tag.type === 'commit' ? tag.object : '') : type === 'commit' ? sha : '';
  });
  const commits = await commitsByShas(dir, [...new Set(commitOf.filter(Boolean))]);
  if (commitOf.some((sha) => sha && !commits.has(sha))) return null;
  return named.map(([name, sha], i) => {
    const tag = objects[i]!.tag;
    const commit = commitOf[i] ? commits.get(commitOf[i])! : null;
    const date = tag ? tag.date : (commit?.committedDate ?? '');
    return { name, target: sha, message: tag ? tag.message.replace(/\n+$/, '') : null, commit, date };
  });
}

async function tagsByGit(dir: string): Promise<TagInfo[]> {
  const fmt = ['%(refname:strip=2)', '%(objecttype)', '%(objectname)', '%(*objecttype)', '%(*objectname)', '%(creatordate:iso-strict)', '%(contents)'].join('%1f');
  const out = (await git(['for-each-ref', `--format=%1e${fmt}`, 'refs/tags'], { gitDir: dir })).stdout.toString('utf8');
  const rows = out
    .split('\x1e')
    .filter((r) => r !== '')
    .map((r) => {
      const [name, type, sha, peeledType, peeled, date, ...contents] = r.split('\x1f');
      const annotated = type === 'tag';
      // a tag of a tree or blob has no commit
      const commitSha = (annotated ? peeledType : type) === 'commit' ? (annotated ? peeled : sha) : '';
      return { name, target: sha, commitSha, date, message: annotated ? contents.join('\x1f').replace(/\n+$/, '') : null };
    });
  const commits = new Map((await readCommitsBySha(dir, [...new Set(rows.map((r) => r.commitSha).filter(Boolean))])).map((k) => [k.id, k]));
  return rows.map((r) => ({ name: r.name, target: r.target, message: r.message, commit: commits.get(r.commitSha) ?? null, date: r.date }));
}
