// Long-lived git processes: one per repository and command (`cat-file --batch-command`,
// `diff-tree --stdin`), started on first use, so that a request starts no process. Requests are
// written to its stdin in order and its answers come back in that order, so one FIFO of waiting
// requests pairs them up (two requests never interleave). A process is closed after an idle
// period, when its repository is removed and when the server closes; one that dies fails the
// requests it held and is started again by the next. While idle it holds no reference on Node's
// event loop, so it never keeps a process alive.
import type { Socket } from 'node:net';
import { gitStream, GitError } from './git.js';

const IDLE_MS = 30_000;
/** Processes kept at once per command: past this, the least recently used one is closed (it finishes what it was asked). */
const MAX_PER_COMMAND = 32;

/** A request waiting for its answer; subclasses add what their parser needs. */
export interface Waiting<T> {
  resolve: (v: T) => void;
  reject: (e: Error) => void;
}

export abstract class LongLivedGit<T, W extends Waiting<T> = Waiting<T>> {
  private readonly child: ReturnType<typeof gitStream>;
  protected readonly waiting: W[] = [];
  private rest: Buffer = Buffer.alloc(0);
  private stderr = '';
  private idle: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    dir: string,
    private readonly args: string[],
    private readonly onGone: (p: unknown) => void,
  ) {
    this.child = gitStream(args, { gitDir: dir });
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString('utf8')).slice(-2000)));
    this.child.stdin.on('error', () => undefined); // a dead git shows as 'close' below
    this.child.on('error', (e) => this.fail(e));
    this.child.on('close', (code) => this.fail(new GitError(args, code, this.stderr || `git ${args[0]} exited`)));
    this.setIdle(true);
  }

  /** Writes `input` and waits for its answer (`w` without resolve and reject). */
  protected send(input: string, w: Omit<W, 'resolve' | 'reject'>): Promise<T> {
    if (this.closed) return Promise.reject(new GitError(this.args, null, 'closed'));
    this.setIdle(false);
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...w, resolve, reject } as W);
      this.child.stdin.write(input);
    });
  }

  /** Answers as many waiting requests as `buf` holds (shifting them off `waiting`); returns what is left of it. */
  protected abstract parse(buf: Buffer): Buffer;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    this.onGone(this);
    this.child.stdin.end(); // git answers what it was asked, then exits at the end of its input
  }

  /** An idle process neither holds the event loop nor lives long; a busy one does both. */
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
    this.rest = this.parse(this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk);
    if (this.waiting.length === 0 && !this.closed) this.setIdle(true);
  }
}

interface Process {
  close(): void;
}
const pools: Map<string, Process>[] = [];

/**
 * The process of one command for a repository, started by `start` when there is none: kept per
 * repository, the least recently used closed past MAX_PER_COMMAND.
 */
export function longLived<P extends Process>(start: (dir: string, onGone: (p: unknown) => void) => P): (dir: string) => P {
  const running = new Map<string, Process>();
  pools.push(running);
  return (dir) => {
    let p = running.get(dir);
    if (p) running.delete(dir); // moved to the end: the map's order is least recently used first
    else {
      if (running.size >= MAX_PER_COMMAND) running.values().next().value!.close();
      p = start(dir, (gone) => {
        if (running.get(dir) === gone) running.delete(dir);
      });
    }
    running.set(dir, p);
    return p as P;
  };
}

/** Stops the processes of one repository (removed), or of every repository under a directory (server closing). */
export function closeGitProcesses(dirOrParent: string): void {
  const under = dirOrParent.replace(/\/*$/, '/');
  for (const running of pools) for (const [dir, p] of running) if (dir === dirOrParent || dir.startsWith(under)) p.close();
}
