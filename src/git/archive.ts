// Repository archives straight from `git archive`: the bytes stream out of git as it writes them,
// never held whole (a large repository costs the same memory as a small one).
import type { Readable } from 'node:stream';
import { finished, gitStream, safeArg } from './git.js';

/** The formats an archive may be asked in, by the names the reference accepts, and what each is made as. */
const FORMATS: Record<string, ArchiveFormat> = {};
export type ArchiveFormat = 'tar.gz' | 'tar.bz2' | 'tar' | 'zip';
for (const [kind, names] of [
  ['tar.gz', ['tar.gz', 'tgz', 'gz']],
  ['tar.bz2', ['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2']],
  ['tar', ['tar']],
  ['zip', ['zip']],
] as const) for (const n of names) FORMATS[n] = kind;

/** Every accepted format name, longest first (a file name's extension is matched against them in order). */
export const ARCHIVE_FORMAT_NAMES = Object.keys(FORMATS).sort((a, b) => b.length - a.length);

/** The format a name stands for; null for a name that is none of them. Absent: tar.gz. */
export const archiveFormat = (name: string | undefined): ArchiveFormat | null => (name === undefined ? 'tar.gz' : (FORMATS[name] ?? null));

export interface ArchiveStream {
  stdout: Readable;
  /** Settles when git (and its compressor) exits; rejects with git's words on failure. */
  done: Promise<void>;
  /** Stops git (the client went away). */
  stop: () => void;
}

/**
 * Streams an archive of `commit` (a full sha), every entry under `prefix/`, limited to `path` when
 * given. bzip2 runs as git's own tar filter; gzip is git's built-in one.
 */
export function archiveStream(dir: string, commit: string, o: { format: ArchiveFormat; prefix: string; path?: string }): ArchiveStream {
  const filter = o.format === 'tar.bz2' ? ['-c', 'tar.tar.bz2.command=bzip2 -c'] : [];
  const args = [...filter, 'archive', `--format=${o.format}`, `--prefix=${o.prefix.replace(/\n/g, '')}/`, safeArg(commit, 'commit'), ...(o.path ? ['--', o.path] : [])];
  const child = gitStream(args, { gitDir: dir });
  child.stdin.end();
  return { stdout: child.stdout, done: finished(child), stop: () => child.kill() };
}
