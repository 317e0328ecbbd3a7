// Object reads without a process per request: one long-lived `git cat-file --batch-command` per
// repository (long_lived.ts).
import { GitError } from './git.js';
import { LongLivedGit, longLived, type Waiting } from './long_lived.js';

export interface ObjectInfo {
  sha: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  size: number;
}

export interface GitObject extends ObjectInfo {
  data: Buffer;
}

interface Request extends Waiting<GitObject | ObjectInfo | null> {
  contents: boolean;
  /** Set once the header of a `contents` answer is read: the body is filled in as it arrives. */
  info?: ObjectInfo;
  body?: Buffer;
  filled?: number;
}

class BatchReader extends LongLivedGit<GitObject | ObjectInfo | null, Request> {
  constructor(dir: string, onGone: (r: unknown) => void) {
    super(dir, ['cat-file', '--batch-command'], onGone);
  }

  request(command: 'info' | 'contents', name: string): Promise<GitObject | ObjectInfo | null> {
    return this.send(`${command} ${name}\n`, { contents: command === 'contents' });
  }

  protected parse(buf: Buffer): Buffer {
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
    return buf;
  }
}

const readerFor = longLived((dir, onGone) => new BatchReader(dir, onGone));

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
