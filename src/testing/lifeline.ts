// An ephemeral server ends with the process that started it. A test runner seldom starts the
// server itself: `npx anvil` puts npm and a shell in between, neither of which passes a signal
// on or ends when the runner is killed outright. So the server keeps the chain of its ancestors
// as it was at start (each one's pid, parent and start time) and ends as soon as a link of that
// chain breaks: an ancestor gone, or given to another parent because its own parent is gone.
// That holds for SIGKILL and through any wrapper that does not detach, and needs nothing of the
// launcher. Linux reads /proc; elsewhere only the parent is watched.
import fs from 'node:fs';

export interface Link {
  pid: number;
  ppid: number;
  /** Clock ticks after boot (field 22 of /proc/<pid>/stat): a reused pid is another process. */
  start: string;
}

/** How often the chain is looked at: the server ends within this much of its launcher, plus its shutdown. */
export const WATCH_EVERY_MS = 250;

/** A process as /proc tells it: null when it is gone or a zombie (ended, not yet reaped). */
export function linkOf(pid: number): Link | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (rest[0] === 'Z' || rest[0] === 'X') return null;
  return { pid, ppid: Number(rest[1]), start: rest[19]! };
}

const hasProc = (): boolean => fs.existsSync('/proc/self/stat');

/** This process's ancestors, its parent first, up to (without) pid 1, which never ends. */
export function ancestors(): Link[] {
  const chain: Link[] = [];
  if (!hasProc()) return chain;
  let pid = process.ppid;
  while (pid > 1 && chain.length < 64) {
    const link = linkOf(pid);
    if (!link) break;
    chain.push(link);
    pid = link.ppid;
  }
  return chain;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** What broke in `chain` now, or null while it holds. (process.ppid is read once, at start.) */
export function broken(chain: Link[], parent: number): string | null {
  const ppid = hasProc() ? linkOf(process.pid)?.ppid : alive(parent) ? parent : 1;
  if (ppid !== parent) return `its parent ${parent} ended`;
  for (const want of chain) {
    const now = linkOf(want.pid);
    if (!now || now.start !== want.start) return `process ${want.pid}, which started it, ended`;
    if (now.ppid !== want.ppid) return `process ${want.ppid}, which started it, ended`;
  }
  return null;
}

/** Calls `onGone` once, with why, when the process that started this one ends; returns the unwatch. */
export function watchLauncher(onGone: (why: string) => void): () => void {
  const parent = process.ppid;
  const chain = ancestors();
  const timer = setInterval(() => {
    const why = broken(chain, parent);
    if (!why) return;
    clearInterval(timer);
    onGone(why);
  }, WATCH_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
