// History walks as `git log` does them, in-process: its default order (newest committer time
// first) and --topo-order, with its filters (a path, since, until, first parents). A commit's
// parents, tree and time come from the commit-graph file where it holds the commit (no object
// read at all, and its Bloom filters rule out most commits that did not touch a path); the rest
// are read through the repository's cat-file (object_store.ts). Only the commits a page shows are
// read in full.
import { commitGraph, type BloomKey, type CommitGraph } from './commit_graph.js';
import type { CommitInfo } from './objects.js';
import { commitsByShas, parsedCommit, readTree, type TreeItem } from './object_store.js';

/** What a walk shows and follows: git log's own filters. */
export interface Walk {
  /** Stop once this many commits are shown (those skipped included). */
  count: number;
  /** Shown commits left out before the page: the walk reads only the page's in full. */
  skip?: number;
  /** Committer time in seconds, inclusive (`--since`). */
  since?: number;
  /** Committer time in seconds, inclusive (`--until`): a newer commit is walked past but not shown. */
  until?: number;
  firstParent?: boolean;
  /** `--topo-order`: no commit before any of its children, one line of history at a time. */
  topo?: boolean;
  /** `-- <path>`: the path's parts (none: the whole tree); dirOnly when it ended in `/` (it then names only a directory). */
  path?: { parts: string[]; dirOnly: boolean };
}

/** Where a walk starts: a commit, and whether git came to it through a tag. */
export interface Tip {
  id: string;
  /** git then reads the commit itself, not its entry in the commit-graph (see History.generation). */
  throughTag: boolean;
}

/** A commit as the walk sees it. */
interface Node {
  id: string;
  /** Its place in the commit-graph; absent for a commit the graph does not hold. */
  pos?: number;
  parents: string[];
  tree: string;
  time: number;
  /** The graph's generation number; Infinity for a commit the graph does not hold. */
  generation: number;
}

/** A read the walk cannot do here (an object missing or not rendered): the caller asks git. */
class Unreadable extends Error {}

/** The commits of one walk, read once each: from the commit-graph, or as objects. */
class History {
  private readonly graph: CommitGraph | null;
  private readonly nodes = new Map<string, Node>();
  /** Parents of commits read from the graph: git knows their place in it before it reads them. */
  private readonly placed = new Set<string>();
  /** The path's key in the graph's Bloom filters. */
  private readonly key: BloomKey | null;

  constructor(
    readonly dir: string,
    readonly o: Walk,
  ) {
    this.graph = commitGraph(dir);
    this.key = o.path && this.graph ? this.graph.bloomKey(o.path.parts.join('/')) : null;
  }

  /** Whether the graph holds generation numbers: git then walks --topo-order incrementally on them. */
  get hasGenerations(): boolean {
    return this.graph?.hasGenerations ?? false;
  }

  /** The commit, read once; `asObject`: read as git reads a tag's commit, not from the graph. */
  async node(sha: string, asObject = false): Promise<Node> {
    const known = this.nodes.get(sha);
    if (known) return known;
    let node: Node | null = this.graph?.commit(sha) ?? null;
    if (node && !asObject) for (const p of node.parents) this.placed.add(p);
    else if (!node) {
      const c = await parsedCommit(this.dir, sha);
      if (!c) throw new Unreadable(sha);
      node = { id: sha, parents: c.info.parentIds, tree: c.tree, time: c.time, generation: Infinity };
    }
    this.nodes.set(sha, node);
    return node;
  }

  /** The commit if the walk has read it (git has parsed it, and so knows its parents, time and generation). */
  known(sha: string): Node | undefined {
    return this.nodes.get(sha);
  }

  /**
   * The generation git orders a commit by. One it has not read counts as 0 when it knows its place
   * in the graph (git 2.39 reads the generation it has not filled in yet): when git read a child
   * of it from the graph, not as an object. Otherwise it counts as the highest.
   */
  generation(sha: string): number {
    return this.nodes.get(sha)?.generation ?? (this.placed.has(sha) ? 0 : Infinity);
  }

  /** False when the graph's filter shows `c` changed nothing at the path against its first parent. */
  mayDifferFromFirstParent(c: Node): boolean {
    return !this.key || c.pos === undefined || this.graph!.mayHaveChanged(c.pos, this.key);
  }
}

/**
 * The commits git log shows from `tips` (in the order git was given them), from the
 * `o.skip`th to the `o.count`th. Null when a commit on the way cannot be read here.
 *
 * With a path, this is git's default history simplification: a commit is shown when it differs
 * at the path from every parent (a root commit: when the path exists in it); one that is the same
 * as some parent is not shown, and only the first such parent is followed.
 */
export async function walkCommits(dir: string, tips: Tip[], o: Walk): Promise<CommitInfo[] | null> {
  try {
    const history = new History(dir, o);
    const starts: Node[] = [];
    for (const tip of tips) {
      if (!history.known(tip.id)) starts.push(await history.node(tip.id, tip.throughTag));
    }
    // git sorts the starting commits by time, stably
    starts.sort((a, b) => b.time - a.time);
    const order = !o.topo ? dateOrder : history.hasGenerations ? incrementalTopoOrder : limitedTopoOrder;
    const ids = (await order(history, starts)).slice(o.skip ?? 0);
    const shown = await commitsByShas(dir, ids);
    return shown.size === ids.length ? ids.map((id) => shown.get(id)!) : null;
  } catch (e) {
    if (e instanceof Unreadable) return null;
    throw e;
  }
}

/**
 * Which of `tips` the commit `head` reaches (git's --merged), walked down from head on the
 * commit-graph's generation numbers: a commit's generation is above that of every commit it
 * reaches, so the walk stops below the lowest tip it still looks for. A tip the graph does not
 * hold is reached, if at all, before the walk enters the graph. Null without generation numbers
 * (or when a commit cannot be read here).
 */
export async function reachedFrom(dir: string, head: string, tips: string[]): Promise<Set<string> | null> {
  const h = new History(dir, { count: 0 });
  if (!h.hasGenerations) return null;
  try {
    const looking = new Map<string, number>();
    for (const tip of tips) looking.set(tip, (await h.node(tip)).generation);
    const lowestLooked = () => Math.min(...[...looking.values()].filter(Number.isFinite));
    let floor = lowestLooked();
    const reached = new Set<string>();
    const queue = new PrioQueue(h);
    const seen = new Set([head]);
    await h.node(head);
    queue.put(head);
    for (let id = queue.get(); id !== undefined && looking.size > 0; id = queue.get()) {
      const c = h.known(id)!;
      if (c.generation < floor) break;
      if (looking.delete(id)) {
        reached.add(id);
        floor = lowestLooked();
      }
      for (const p of c.parents) {
        if (seen.has(p)) continue;
        seen.add(p);
        await h.node(p);
        queue.put(p);
      }
    }
    return reached;
  } catch (e) {
    if (e instanceof Unreadable) return null;
    throw e;
  }
}

/** No commit excluded: the default order has no such marks. */
const NONE: ReadonlySet<string> = new Set();

/** Inserts `n` after every queued commit of its time or newer, as git's date-ordered list does. */
function enqueue(queue: Node[], n: Node): void {
  let at = queue.length;
  while (at > 0 && queue[at - 1].time < n.time) at--;
  queue.splice(at, 0, n);
}

/**
 * git's default order: newest committer time first, ties in the order the walk met them. With
 * since, an older commit is neither shown nor walked past.
 */
async function dateOrder(h: History, starts: Node[]): Promise<string[]> {
  const { o } = h;
  const queue = [...starts];
  const seen = new Set(starts.map((n) => n.id));
  const out: string[] = [];
  while (queue.length && out.length < o.count) {
    const c = queue.shift()!;
    if (o.since !== undefined && c.time < o.since) continue;
    const { follow, show } = await simplify(h, c, NONE);
    for (const p of follow) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      enqueue(queue, p);
    }
    if (show && (o.until === undefined || c.time <= o.until)) out.push(c.id);
  }
  return out;
}

/**
 * git's prio_queue, step for step: a binary heap whose ties go in the order of insertion. Its
 * order reads each commit's generation and time as they are when compared; a commit git has not
 * read yet has time 0 (and see History.generation), so a commit's place can depend on when it was
 * read, as in git.
 */
class PrioQueue {
  private readonly items: { id: string; n: number }[] = [];
  private inserted = 0;

  constructor(private readonly h: History) {}

  private before(i: number, j: number): number {
    const [a, b] = [this.items[i].id, this.items[j].id];
    const [ga, gb] = [this.h.generation(a), this.h.generation(b)];
    if (ga !== gb) return ga < gb ? 1 : -1; // the higher generation first
    const [ta, tb] = [this.h.known(a)?.time ?? 0, this.h.known(b)?.time ?? 0];
    if (ta !== tb) return ta < tb ? 1 : -1;
    return this.items[i].n - this.items[j].n;
  }

  private swap(i: number, j: number): void {
    [this.items[i], this.items[j]] = [this.items[j], this.items[i]];
  }

  peek(): string | undefined {
    return this.items[0]?.id;
  }

  put(id: string): void {
    this.items.push({ id, n: this.inserted++ });
    for (let at = this.items.length - 1; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (this.before(parent, at) <= 0) break;
      this.swap(parent, at);
      at = parent;
    }
  }

  get(): string | undefined {
    if (this.items.length === 0) return undefined;
    const first = this.items[0].id;
    const last = this.items.pop()!;
    if (this.items.length === 0) return first;
    this.items[0] = last;
    for (let at = 0; at * 2 + 1 < this.items.length; ) {
      let child = at * 2 + 1;
      if (child + 1 < this.items.length && this.before(child, child + 1) >= 0) child++;
      if (this.before(at, child) <= 0) break;
      this.swap(child, at);
      at = child;
    }
    return first;
  }
}

/**
 * What git marks on the commits of a --topo-order walk: those excluded (older than since, and
 * what lies below them: git's UNINTERESTING), those not shown (the same as a parent at the path:
 * TREESAME) and the parents each commit keeps once its history is simplified.
 */
class TopoMarks {
  readonly excluded = new Set<string>();
  private readonly hidden = new Set<string>();
  private readonly kept = new Map<string, string[]>();

  constructor(private readonly h: History) {}

  /** The parents a commit keeps: the one it follows when it is the same as that one at the path. */
  async parentsOf(id: string): Promise<string[]> {
    return this.kept.get(id) ?? (await this.h.node(id)).parents;
  }

  /** Excludes commits and what lies below them as far as the walk has read (git's mark_parents_uninteresting). */
  async exclude(from: string[]): Promise<void> {
    const stack = [...from];
    while (stack.length) {
      const id = stack.pop()!;
      if (this.excluded.has(id)) continue;
      this.excluded.add(id);
      if (this.h.known(id)) stack.push(...(await this.parentsOf(id)));
    }
  }

  /**
   * git's process_parents: every parent of an excluded commit is excluded too (and read), with
   * what lies below it; another commit's history is simplified. Returns the parents to walk.
   */
  async process(c: Node): Promise<Node[]> {
    if (this.excluded.has(c.id)) {
      const parents: Node[] = [];
      for (const id of c.parents) {
        this.excluded.add(id);
        parents.push(await this.h.node(id));
        await this.exclude(await this.parentsOf(id));
      }
      return parents;
    }
    const { follow, show, parents } = await simplify(this.h, c, this.excluded);
    this.kept.set(c.id, parents);
    if (!show) this.hidden.add(c.id);
    return follow;
  }

  shown(id: string): boolean {
    return !this.excluded.has(id) && !this.hidden.has(id);
  }
}

/**
 * --topo-order as git does it on the generation numbers of a commit-graph: three walks that go
 * only as deep as the page needs. One explores commits by generation (excluding those older than
 * since, with what lies below them, and simplifying the path's history); one counts each
 * commit's children that are still to show; the last shows commits from a stack, a parent once
 * its last child is out. A commit newer than until is sorted with the rest and only not shown,
 * and with first parents only first parents count.
 */
async function incrementalTopoOrder(h: History, starts: Node[]): Promise<string[]> {
  const { o } = h;
  const marks = new TopoMarks(h);
  const processed = new Set<string>();
  const explore = new PrioQueue(h);
  const explored = new Set<string>();
  const counting = new PrioQueue(h);
  const counted = new Set<string>();
  const children = new Map<string, number>();
  // git processes a commit's parents once
  const processParents = async (c: Node) => {
    if (processed.has(c.id)) return;
    processed.add(c.id);
    await marks.process(c);
  };
  const exploreTo = async (depth: number) => {
    for (let id = explore.peek(); id !== undefined && h.generation(id) >= depth; id = explore.peek()) {
      const c = await h.node(explore.get()!);
      if (o.since !== undefined && c.time < o.since) marks.excluded.add(c.id);
      await processParents(c);
      if (marks.excluded.has(c.id)) await marks.exclude(c.parents);
      for (const p of await marks.parentsOf(c.id)) {
        if (!explored.has(p)) {
          explored.add(p);
          explore.put(p);
        }
      }
    }
  };
  const countTo = async (depth: number) => {
    await exploreTo(depth);
    for (let id = counting.peek(); id !== undefined && h.generation(id) >= depth; id = counting.peek()) {
      const c = await h.node(counting.get()!);
      await exploreTo(c.generation);
      for (const p of await marks.parentsOf(c.id)) {
        await h.node(p);
        children.set(p, (children.get(p) || 1) + 1);
        if (!counted.has(p)) {
          counted.add(p);
          counting.put(p);
        }
        if (o.firstParent) break;
      }
    }
  };

  let depth = Infinity;
  for (const c of starts) {
    explored.add(c.id);
    explore.put(c.id);
    counted.add(c.id);
    counting.put(c.id);
    depth = Math.min(depth, c.generation);
    children.set(c.id, 1);
  }
  await countTo(depth);
  const stack = starts.filter((c) => children.get(c.id) === 1).reverse();
  const out: string[] = [];
  while (stack.length && out.length < o.count) {
    const c = stack.pop()!;
    children.set(c.id, 0);
    if (o.since !== undefined && c.time < o.since) continue; // neither shown nor gone past
    await processParents(c);
    for (const id of await marks.parentsOf(c.id)) {
      if (marks.excluded.has(id)) continue;
      const p = await h.node(id);
      if (p.generation < depth) {
        depth = p.generation;
        await countTo(depth);
      }
      const n = (children.get(id) ?? 0) - 1;
      children.set(id, n);
      if (n === 1) stack.push(p);
      if (o.firstParent) break;
    }
    if (marks.shown(c.id) && (o.until === undefined || c.time <= o.until)) out.push(c.id);
  }
  return out;
}

/** Commits git's list limiting walks past once every commit left to walk is excluded. */
const SLOP = 5;

/**
 * --topo-order as git does it without generation numbers: first the whole list is walked in date order (git's
 * limit_list); with since, a commit older than it is excluded, and so is every commit below it,
 * even one another line reaches. Then the list is sorted so that no commit comes before one of
 * its children (git's sort_in_topological_order in graph order): a stack of commits whose
 * children are all out, the newest start first, a commit's parents pushed in order once their
 * last child is out.
 */
async function limitedTopoOrder(h: History, starts: Node[]): Promise<string[]> {
  const { o } = h;
  const marks = new TopoMarks(h);
  const queue = [...starts];
  const seen = new Set(starts.map((n) => n.id));
  const list: Node[] = [];
  let newest = Infinity;
  let slop = SLOP;
  while (queue.length) {
    const c = queue.shift()!;
    if (o.since !== undefined && c.time < o.since) marks.excluded.add(c.id);
    const excluded = marks.excluded.has(c.id);
    for (const p of await marks.process(c)) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      enqueue(queue, p);
    }
    if (excluded) {
      await marks.exclude(c.parents);
      slop = queue.length === 0 ? 0 : newest <= queue[0].time || queue.some((n) => !marks.excluded.has(n.id)) ? SLOP : slop - 1;
      if (slop) continue;
      break;
    }
    if (o.until !== undefined && c.time > o.until) continue;
    newest = c.time;
    list.push(c);
  }

  // children not yet out, per commit of the list (git counts from 1: 0 means not in the list)
  const waiting = new Map<string, number>();
  for (const c of list) waiting.set(c.id, 1);
  for (const c of list) for (const p of await marks.parentsOf(c.id)) if (waiting.has(p)) waiting.set(p, waiting.get(p)! + 1);
  const stack = list.filter((c) => waiting.get(c.id) === 1).reverse();
  const byId = new Map(list.map((c) => [c.id, c]));
  const out: string[] = [];
  while (stack.length && out.length < o.count) {
    const c = stack.pop()!;
    for (const p of await marks.parentsOf(c.id)) {
      const n = waiting.get(p);
      if (n === undefined) continue;
      waiting.set(p, n - 1);
      if (n - 1 === 1) stack.push(byId.get(p)!);
    }
    if (marks.shown(c.id)) out.push(c.id);
  }
  return out;
}

/**
 * Which parents of `c` the walk follows, the parents it keeps, and whether `c` is shown (git's
 * try_to_simplify_commit, reading a parent only when git does). A parent that is the same at the
 * path is followed alone, unless it is excluded (topo with since): then the walk goes on to the
 * other parents, and `c` is shown when it differs from some parent that is not excluded.
 */
async function simplify(h: History, c: Node, excluded: ReadonlySet<string>): Promise<{ follow: Node[]; parents: string[]; show: boolean }> {
  const { o } = h;
  const followed = () => Promise.all((o.firstParent ? c.parents.slice(0, 1) : c.parents).map((id) => h.node(id)));
  if (!o.path) return { follow: await followed(), parents: c.parents, show: true };
  if (c.parents.length === 0) return { follow: [], parents: [], show: !(await sameAt(h.dir, null, c.tree, o.path)) };
  let relevant = 0;
  let relevantChange = false;
  let otherChange = false;
  for (const [nth, id] of c.parents.entries()) {
    const isRelevant = !excluded.has(id);
    if (isRelevant) relevant++;
    if (nth === 1 && o.firstParent) break; // git counts the second parent, then stops
    const p = await h.node(id);
    const same = (nth === 0 && !h.mayDifferFromFirstParent(c)) || (await sameAt(h.dir, p.tree, c.tree, o.path));
    if (same && isRelevant) return { follow: [p], parents: [id], show: false };
    if (same) continue;
    if (isRelevant) relevantChange = true;
    else otherChange = true;
  }
  return { follow: await followed(), parents: c.parents, show: relevant ? relevantChange : otherChange };
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
