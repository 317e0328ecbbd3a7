// Object reads without a process per request: one long-lived `git cat-file --batch-command` per
// repository, started on first use. Requests are written to its stdin in order and its answers
// come back in that order, so one FIFO of waiting readers pairs them up (two requests never
// interleave). It is closed after an idle period, when its repository is removed and when the
// server closes; one that dies fails the requests it held and is started again by the next.
// While idle it holds no reference on Node's event loop, so it never keeps a process alive.
import type { Socket } from 'node:net';
import { gitStream, GitError } from './git.js';

export interface ObjectInfo {
  sha: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  size: number;
}

export interface GitObject extends ObjectInfo {
  data: Buffer;
}

const IDLE_MS = 30_000;
/** Readers kept at once: past this, the least recently used one is closed (it finishes what it was asked). */
const MAX_READERS = 32;

interface Waiting {
  contents: boolean;
  resolve: (v: GitObject | ObjectInfo | null) => void;
  reject: (e: Error) => void;
  /** Set once the header of a `contents` answer is read: the body is filled in as it arrives. */
  info?: ObjectInfo;
  body?: Buffer;
  filled?: number;
}

class BatchReader {
  private readonly child: ReturnType<typeof gitStream>;
  private readonly waiting: Waiting[] = [];
  private rest: Buffer = Buffer.alloc(0);
  private stderr = '';
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly onGone: (r: BatchReader) => void,
  ) {
    this.child = gitStream(['cat-file', '--batch-command'], { gitDir: dir });
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString('utf8')).slice(-2000)));
    this.child.stdin.on('error', () => undefined); // a dead git shows as 'close' below
    this.child.on('error', (e) => this.fail(e));
    this.child.on('close', (code) => this.fail(new GitError(['cat-file'], code, this.stderr || 'git cat-file exited')));
    this.setIdle(true);
  }

  request(command: 'info' | 'contents', name: string): Promise<GitObject | ObjectInfo | null> {
    if (this.closed) return Promise.reject(new GitError(['cat-file'], null, 'closed'));
    this.setIdle(false);
    return new Promise((resolve, reject) => {
      this.waiting.push({ contents: command === 'contents', resolve, reject });
      this.child.stdin.write(`${command} ${name}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    this.onGone(this);
    this.child.stdin.end(); // git answers what it was asked, then exits at the end of its input
  }

  /** An idle reader neither holds the event loop nor lives long; a busy one does both. */
  private setIdle(idle: boolean): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as Socket[];
    for (const h of handles) {
      if (idle) h.unref();
      else h.ref();
    }
    if (idle) {
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  private fail(e: Error): void {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    this.onGone(this);
    for (const w of this.waiting.splice(0)) w.reject(e);
  }

  private onData(chunk: Buffer): void {
    let buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    for (;;) {
      const w = this.waiting[0];
      if (!w) break;
      if (!w.info) {
        const nl = buf.indexOf(10);
        if (nl < 0) break;
        const header = buf.toString('utf8', 0, nl);
        buf = buf.subarray(nl + 1);
        // `<sha> <type> <size>`, or `<name> missing` / `<name> ambiguous` for a name that names nothing.
        const m = /^([0-9a-f]{40}) (commit|tree|blob|tag) (\d+)$/.exec(header);
        if (!m) {
          this.waiting.shift();
          w.resolve(null);
          continue;
        }
        const info: ObjectInfo = { sha: m[1], type: m[2] as ObjectInfo['type'], size: Number(m[3]) };
        if (!w.contents) {
          this.waiting.shift();
          w.resolve(info);
          continue;
        }
        w.info = info;
        w.body = Buffer.allocUnsafe(info.size);
        w.filled = 0;
      }
      const take = Math.min(w.info.size - w.filled!, buf.length);
      buf.copy(w.body!, w.filled!, 0, take);
      w.filled! += take;
      buf = buf.subarray(take);
      // The body is followed by a newline of git's own.
      if (w.filled! < w.info.size || buf.length === 0) break;
      buf = buf.subarray(1);
      this.waiting.shift();
      w.resolve({ ...w.info, data: w.body! });
    }
    this.rest = buf;
    if (this.waiting.length === 0 && !this.closed) this.setIdle(true);
  }
}

const readers = new Map<string, BatchReader>();

function readerFor(dir: string): BatchReader {
  let r = readers.get(dir);
  if (r) readers.delete(dir); // moved to the end: the map's order is least recently used first
  else {
    if (readers.size >= MAX_READERS) readers.values().next().value!.close();
    r = new BatchReader(dir, (gone) => {
      if (readers.get(dir) === gone) readers.delete(dir);
    });
  }
  readers.set(dir, r);
  return r;
}

/** A name git reads on one line and never as anything else (the callers pass shas and checked revisions). */
function checkName(name: string): void {
  if (name === '' || /[\n\r\0]/.test(name)) throw new GitError(['cat-file'], null, 'invalid object name');
}

/** The object a name (sha, `rev^{commit}`, …) names, with its bytes; null when it names none. */
export async function readObject(dir: string, name: string): Promise<GitObject | null> {
  checkName(name);
  return (await readerFor(dir).request('contents', name)) as GitObject | null;
}

/** The type and size of the object a name names, without its bytes; null when it names none. */
export async function objectInfo(dir: string, name: string): Promise<ObjectInfo | null> {
  checkName(name);
  return readerFor(dir).request('info', name);
}

/** Stops the reader of one repository (removed), or of every repository under a directory (server closing). */
export function closeObjectReaders(dirOrParent: string): void {
  for (const [dir, r] of readers) if (dir === dirOrParent || dir.startsWith(dirOrParent.replace(/\/*$/, '/'))) r.close();
}
