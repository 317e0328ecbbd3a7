// A repository's commit-graph file (`objects/info/commit-graph`, written by `git commit-graph
// write`), read in-process: each commit's parents, tree and committer time, and the Bloom filter
// of the paths it changed against its first parent. A walk through history reads these instead of
// each commit's object, so a deep page or a path's history needs no git process. The file is
// read whole and kept while it is unchanged on disk (git replaces it by a rename). Commits newer
// than the file are not in it: the walk reads those as objects.
import fs from 'node:fs';
import path from 'node:path';
import { git } from './git.js';

export interface GraphCommit {
  id: string;
  /** Its place in the file. */
  pos: number;
  parents: string[];
  tree: string;
  /** Committer time in seconds. */
  time: number;
  /**
   * The generation number git orders an incremental walk by: the corrected commit date where the
   * file has one (GDA2), the topological level otherwise.
   */
  generation: number;
}

const HASH = 20;
const NO_PARENT = 0x70000000;
/** Marks an octopus's list of parents, its last parent, and a generation offset kept apart. */
const TOP_BIT = 0x80000000;

interface Chunks {
  fanout: number;
  oids: number;
  data: number;
  edges: number;
  generations: number;
  generationOverflow: number;
  bloomIndex: number;
  bloomData: number;
}

export class CommitGraph {
  private readonly count: number;
  /** Bloom settings from BDAT's header; null when the file has no filters. */
  private readonly bloom: { version: number; hashes: number; at: number } | null;

  private constructor(
    private readonly buf: Buffer,
    private readonly at: Chunks,
  ) {
    this.count = buf.readUInt32BE(at.fanout + 255 * 4);
    this.bloom =
      at.bloomIndex && at.bloomData ? { version: buf.readUInt32BE(at.bloomData), hashes: buf.readUInt32BE(at.bloomData + 4), at: at.bloomData + 12 } : null;
    if (this.bloom && this.bloom.version !== 1 && this.bloom.version !== 2) this.bloom = null;
  }

  /** The graph in `buf`; null for a file this reader does not know (another version, a chain, SHA-256). */
  static parse(buf: Buffer): CommitGraph | null {
    if (buf.length < 8 || buf.toString('latin1', 0, 4) !== 'CGPH' || buf[4] !== 1 || buf[5] !== 1 || buf[7] !== 0) return null;
    const found = new Map<string, number>();
    for (let i = 0; i < buf[6]; i++) {
      const entry = 8 + i * 12;
      found.set(buf.toString('latin1', entry, entry + 4), Number(buf.readBigUInt64BE(entry + 4)));
    }
    const at: Chunks = {
      fanout: found.get('OIDF') ?? 0,
      oids: found.get('OIDL') ?? 0,
      data: found.get('CDAT') ?? 0,
      edges: found.get('EDGE') ?? 0,
      generations: found.get('GDA2') ?? 0,
      generationOverflow: found.get('GDO2') ?? 0,
      bloomIndex: found.get('BIDX') ?? 0,
      bloomData: found.get('BDAT') ?? 0,
    };
    if (!at.fanout || !at.oids || !at.data || at.fanout + 256 * 4 > buf.length) return null;
    // a file cut short or written wrong is not read at all: the walk reads objects instead
    const count = buf.readUInt32BE(at.fanout + 255 * 4);
    const fits = (start: number, size: number) => start + size <= buf.length;
    if (!fits(at.oids, count * HASH) || !fits(at.data, count * (HASH + 16))) return null;
    if (at.generations && !fits(at.generations, count * 4)) return null;
    if (at.bloomIndex && (!fits(at.bloomIndex, count * 4) || !at.bloomData || !fits(at.bloomData, 12))) return null;
    return new CommitGraph(buf, at);
  }

  /** The position of a commit in the file; -1 when it is not there. */
  private position(sha: string): number {
    const key = Buffer.from(sha, 'hex');
    const first = key[0];
    let lo = first === 0 ? 0 : this.buf.readUInt32BE(this.at.fanout + (first - 1) * 4);
    let hi = this.buf.readUInt32BE(this.at.fanout + first * 4);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const off = this.at.oids + mid * HASH;
      const cmp = this.buf.compare(key, 0, HASH, off, off + HASH);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  private idAt(pos: number): string {
    if (pos >= this.count) throw new RangeError(`commit-graph: no commit at ${pos}`);
    return this.buf.toString('hex', this.at.oids + pos * HASH, this.at.oids + (pos + 1) * HASH);
  }

  /** A commit's parents, tree and time; null when the file does not hold it (or holds it wrongly). */
  commit(sha: string): GraphCommit | null {
    const pos = this.position(sha);
    if (pos < 0) return null;
    try {
      return this.read(sha, pos);
    } catch (e) {
      if (e instanceof RangeError) return null;
      throw e;
    }
  }

  private read(sha: string, pos: number): GraphCommit {
    const off = this.at.data + pos * (HASH + 16);
    const parents: string[] = [];
    const first = this.buf.readUInt32BE(off + HASH);
    const second = this.buf.readUInt32BE(off + HASH + 4);
    if (first !== NO_PARENT) parents.push(this.idAt(first));
    if (second !== NO_PARENT) {
      if (second & TOP_BIT) {
        // the second and later parents are listed in EDGE, the last one marked by its top bit
        for (let i = second & ~TOP_BIT; ; i++) {
          const edge = this.buf.readUInt32BE(this.at.edges + i * 4);
          parents.push(this.idAt(edge & ~TOP_BIT));
          if (edge & TOP_BIT) break;
        }
      } else parents.push(this.idAt(second));
    }
    const time = (this.buf.readUInt32BE(off + HASH + 8) & 0x3) * 2 ** 32 + this.buf.readUInt32BE(off + HASH + 12);
    return { id: sha, pos, parents, tree: this.buf.toString('hex', off, off + HASH), time, generation: this.generation(pos, off, time) };
  }

  private generation(pos: number, off: number, time: number): number {
    if (!this.at.generations) return this.buf.readUInt32BE(off + HASH + 8) >>> 2;
    const offset = this.buf.readUInt32BE(this.at.generations + pos * 4);
    if (!(offset & TOP_BIT)) return time + offset;
    // a large offset is kept in GDO2, its place in the low bits
    return time + Number(this.buf.readBigUInt64BE(this.at.generationOverflow + (offset & ~TOP_BIT) * 8));
  }

  /** Whether git walks --topo-order on this file's generation numbers (the first commit's level is not zero). */
  get hasGenerations(): boolean {
    return this.count > 0 && this.buf.readUInt32BE(this.at.data + HASH + 8) >>> 2 !== 0;
  }

  /**
   * Whether the commit at `pos` may have changed `key`'s path against its first parent: false
   * only when its Bloom filter rules that out; true when it may, or when the file holds no filter
   * for it.
   */
  mayHaveChanged(pos: number, key: BloomKey): boolean {
    if (!this.bloom || key.version !== this.bloom.version) return true;
    const end = this.buf.readUInt32BE(this.at.bloomIndex + pos * 4);
    const start = pos === 0 ? 0 : this.buf.readUInt32BE(this.at.bloomIndex + (pos - 1) * 4);
    const bits = (end - start) * 8;
    if (bits === 0) return true; // no filter computed for this commit
    for (let i = 0; i < this.bloom.hashes; i++) {
      const bit = ((key.h0 + Math.imul(i, key.h1)) >>> 0) % bits;
      if (!(this.buf[this.bloom.at + start + (bit >>> 3)] & (1 << (bit & 7)))) return false;
    }
    return true;
  }

  /** The key git looks a path up by (a path without its trailing `/`); null when the file has no filters. */
  bloomKey(repoPath: string): BloomKey | null {
    if (!this.bloom || repoPath === '') return null;
    const data = Buffer.from(repoPath, 'utf8');
    const signed = this.bloom.version === 1;
    return { version: this.bloom.version, h0: murmur3(0x293ae76f, data, signed), h1: murmur3(0x7e646e2c, data, signed) };
  }
}

export interface BloomKey {
  version: number;
  h0: number;
  h1: number;
}

/**
 * Git's murmur3 (bloom.c). Filters of version 1 were written by a git that read each byte as a
 * signed char, so a byte past 0x7f counts as its sign-extended 32-bit value there.
 */
function murmur3(seed: number, data: Buffer, signed: boolean): number {
  const byte = (i: number) => (signed && data[i] > 0x7f ? data[i] | 0xffffff00 : data[i]);
  const mix = (k: number) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
  let h = seed >>> 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) {
    const k = byte(i) | (byte(i + 1) << 8) | (byte(i + 2) << 16) | (byte(i + 3) << 24);
    h ^= mix(k);
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  // the last one to three bytes, the first of them lowest
  const tail = data.length & 3;
  if (tail) {
    let k1 = 0;
    for (let i = tail - 1; i >= 0; i--) k1 ^= byte(whole + i) << (8 * i);
    h ^= mix(k1);
  }
  h ^= data.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

/** Files kept at once: past this many bytes in all, the least recently used is dropped. */
const KEPT_BYTES = 32 * 1024 * 1024;
const kept = new Map<string, { stamp: string; graph: CommitGraph | null; size: number }>();
let keptBytes = 0;

const graphFile = (dir: string) => path.join(dir, 'objects', 'info', 'commit-graph');

/** Whether the repository has a commit-graph file. */
export const hasCommitGraph = (dir: string): boolean => fs.existsSync(graphFile(dir));

/** The repository's commit-graph as it is on disk now; null when it has none (or one this reader does not know). */
export function commitGraph(dir: string): CommitGraph | null {
  const file = graphFile(dir);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  const old = kept.get(dir);
  if (old) {
    kept.delete(dir);
    keptBytes -= old.size;
    if (old.stamp === stamp) {
      kept.set(dir, old); // moved to the end: least recently used first
      keptBytes += old.size;
      return old.graph;
    }
  }
  let graph: CommitGraph | null;
  try {
    graph = CommitGraph.parse(fs.readFileSync(file));
  } catch {
    return null; // replaced or removed while read: the walk reads objects this time
  }
  kept.set(dir, { stamp, graph, size: st.size });
  keptBytes += st.size;
  for (const [k, v] of kept) {
    if (keptBytes <= KEPT_BYTES || k === dir) break;
    kept.delete(k);
    keptBytes -= v.size;
  }
  return graph;
}

/** Writes the graph of every commit the refs reach, with changed-path filters (git reuses the filters it already has). */
export async function writeCommitGraph(dir: string): Promise<void> {
  await git(['commit-graph', 'write', '--reachable', '--changed-paths'], { gitDir: dir });
}
