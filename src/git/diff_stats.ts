// A commit's line counts without a process per request: one long-lived `git diff-tree --stdin`
// per repository (long_lived.ts), asked for `<commit> <parent>` (or `<commit>` alone for a root,
// against the empty tree) and answering `git diff --numstat` lines.
//
// Where an answer ends: diff-tree flushes after each commit but echoes any other line only at its
// next flush. So each request is followed by a line that is echoed (END: no numstat line lacks a
// tab, no header line is it) and by the commit against itself, which with --always prints just its
// header and flushes. An answer is complete once END and one more line have arrived.
import { LongLivedGit, longLived, type Waiting } from './long_lived.js';
import { SHA_RE } from './repository.js';

export interface DiffStats {
  additions: number;
  deletions: number;
  total: number;
}

const END = '--anvil-end--';

interface Request extends Waiting<DiffStats> {
  additions: number;
  deletions: number;
  /** END was read: the next line closes the answer. */
  ending: boolean;
}

class DiffTreeReader extends LongLivedGit<DiffStats, Request> {
  constructor(dir: string, onGone: (r: unknown) => void) {
    super(dir, ['diff-tree', '--stdin', '--numstat', '--no-renames', '--root', '--always', '-r'], onGone);
  }

  stats(commit: string, parent: string | null): Promise<DiffStats> {
    const input = `${parent ? `${commit} ${parent}` : commit}\n${END}\n${commit} ${commit}\n`;
    return this.send(input, { additions: 0, deletions: 0, ending: false });
  }

  protected parse(buf: Buffer): Buffer {
    let from = 0;
    for (;;) {
      const w = this.waiting[0];
      const nl = buf.indexOf(10, from);
      if (!w || nl < 0) break;
      const line = buf.toString('utf8', from, nl);
      from = nl + 1;
      if (w.ending) {
        this.waiting.shift();
        w.resolve({ additions: w.additions, deletions: w.deletions, total: w.additions + w.deletions });
      } else if (line === END) {
        w.ending = true;
      } else {
        // `<added>\t<deleted>\t<path>`; a binary file counts `-`: nothing, as git diff --numstat shows it.
        const [a, d] = line.split('\t');
        if (d !== undefined && /^\d+$/.test(a)) w.additions += Number(a);
        if (d !== undefined && /^\d+$/.test(d)) w.deletions += Number(d);
      }
    }
    return buf.subarray(from);
  }
}

const readerFor = longLived((dir, onGone) => new DiffTreeReader(dir, onGone));

/** Lines added and deleted by a commit against its first parent (a root commit: against nothing). */
export function diffStats(dir: string, commit: string, firstParent: string | null): Promise<DiffStats> {
  if (!SHA_RE.test(commit) || (firstParent !== null && !SHA_RE.test(firstParent))) throw new Error('diff stats need full shas');
  return readerFor(dir).stats(commit, firstParent);
}
