// A commit's changes with their patches without a process per request: one long-lived
// `git diff-tree --stdin` per repository (long_lived.ts), asked for `<commit> <parent>` (or
// `<commit>` alone for a root, against the empty tree), answering the raw list (`-z`: exact paths
// and modes) and then the patches, in the same order, renames found.
//
// Where an answer ends, as in diff_stats.ts: each request is followed by END, which diff-tree
// echoes at its next flush, and by the commit against itself, which prints only its `<sha>\0`
// header and flushes. No line of a patch is END (each starts with a sign, a space or a header word).
import { LongLivedGit, longLived, type Waiting } from './long_lived.js';
import { SHA_RE } from './repository.js';

export interface FileDiff {
  oldPath: string;
  newPath: string;
  aMode: string;
  bMode: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  /** The patch from its first hunk on (no `diff --git`/index/---/+++ headers); '' for binary or over the cap. */
  diff: string;
}

/** Above this many bytes a file's patch is left out, as the reference collapses a too-large diff. */
const PATCH_CAP = 200 * 1024;

const END = 'anvil-diff-end';
const END_LINE = Buffer.from(`${END}\n`);

interface Request extends Waiting<FileDiff[]> {
  /** The answer so far. */
  chunks: Buffer[];
  /** Where to look for END next: the bytes before it were searched already. */
  searched: number;
}

class DiffPatchReader extends LongLivedGit<FileDiff[], Request> {
  constructor(dir: string, onGone: (r: unknown) => void) {
    super(dir, ['diff-tree', '--stdin', '-r', '-M', '--raw', '-p', '--full-index', '-z', '--no-color', '--no-ext-diff', '--no-textconv', '--root', '--always'], onGone);
  }

  changes(commit: string, parent: string | null): Promise<FileDiff[]> {
    return this.send(`${parent ? `${commit} ${parent}` : commit}\n${END}\n${commit} ${commit}\n`, { chunks: [], searched: 0 });
  }

  protected parse(buf: Buffer): Buffer {
    for (;;) {
      const w = this.waiting[0];
      if (!w || buf.length === 0) return buf;
      w.chunks.push(buf);
      const all = w.chunks.length > 1 ? Buffer.concat(w.chunks) : buf;
      const end = endOf(all, w.searched);
      if (end < 0) {
        w.chunks = [all];
        w.searched = Math.max(0, all.length - END_LINE.length - 42);
        return Buffer.alloc(0);
      }
      this.waiting.shift();
      w.resolve(parseAnswer(all.subarray(0, end)));
      // after END, the closing `<sha>\0` header
      buf = all.subarray(end + END_LINE.length + 41);
    }
  }
}

/**
 * Where END starts in an answer whose closing header has arrived too; -1 before. END follows the
 * request's header or raw list (a NUL) or its patch (a newline).
 */
function endOf(all: Buffer, from: number): number {
  for (let at = all.indexOf(END_LINE, from); at >= 0; at = all.indexOf(END_LINE, at + 1)) {
    if (at > 0 && (all[at - 1] === 0 || all[at - 1] === 10)) return all.length >= at + END_LINE.length + 41 ? at : -1;
  }
  return -1;
}

/** `<sha>\0`, then raw entries (`:<modes> <shas> <status>\0<path>\0[<new path>\0]`), then `\0` and the patches. */
function parseAnswer(answer: Buffer): FileDiff[] {
  let at = answer.indexOf(0) + 1;
  const field = () => {
    const nul = answer.indexOf(0, at);
    const s = answer.toString('utf8', at, nul);
    at = nul + 1;
    return s;
  };
  const files: FileDiff[] = [];
  while (answer[at] === 0x3a /* : */) {
    const [aMode, bMode, , , status] = field().slice(1).split(' ');
    const renamed = status.startsWith('R') || status.startsWith('C');
    const oldPath = field();
    const newPath = renamed ? field() : oldPath;
    files.push({ oldPath, newPath, aMode, bMode, newFile: status === 'A', renamedFile: status.startsWith('R'), deletedFile: status === 'D', diff: '' });
  }
  const patch = answer.toString('utf8', answer[at] === 0 ? at + 1 : at);
  patch
    .split(/^diff --git /m)
    .slice(1)
    .forEach((section, n) => {
      const f = files[n];
      if (!f) return;
      const hunk = section.search(/^@@ /m);
      const body = hunk < 0 ? '' : section.slice(hunk);
      f.diff = Buffer.byteLength(body) > PATCH_CAP ? '' : body;
    });
  return files;
}

const readerFor = longLived((dir, onGone) => new DiffPatchReader(dir, onGone));

/** The changes of a commit against its first parent (a root commit: against nothing), renames found. */
export function commitDiff(dir: string, commit: string, firstParent: string | null): Promise<FileDiff[]> {
  if (!SHA_RE.test(commit) || (firstParent !== null && !SHA_RE.test(firstParent))) throw new Error('a commit diff needs full shas');
  return readerFor(dir).changes(commit, firstParent);
}
