// The safe archive reader. An uploaded tar.gz is never handed to `tar`: it is read here as a
// stream and only regular files and directories are written, each below a fresh folder. Names
// that could leave that folder or confuse a later reader are refused, and limits on sizes,
// entry count and compression ratio stop archive bombs. On any refusal the folder is removed.
import fs from 'node:fs';
import path from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';

export interface ReadLimits {
  /** Uncompressed bytes of all entries together. */
  maxTotalBytes: number;
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: number;
  maxEntries: number;
  /** Uncompressed ÷ compressed bytes, checked once more than ratioFloorBytes came out. */
  maxRatio: number;
  ratioFloorBytes: number;
}

export const DEFAULT_LIMITS: ReadLimits = {
  maxTotalBytes: 20 * 1024 ** 3,
  maxEntryBytes: 10 * 1024 ** 3,
  maxEntries: 100_000,
  maxRatio: 200,
  ratioFloorBytes: 16 * 1024 ** 2,
};

/** Why an archive was refused; the message is what the user reads in import_error. */
export class ArchiveError extends Error {}

export interface ReadResult {
  /** Relative names of the regular files written (without `./`). */
  files: string[];
  totalBytes: number;
}

const MAX_NAME = 4096;

/**
 * The entry name as a relative path without `./`, or an ArchiveError saying why it is refused.
 * Real exports name entries `./VERSION`; hand-made ones `VERSION`: both are the same file.
 */
export function entryName(raw: string): string {
  const show = JSON.stringify(raw);
  if (raw.length > MAX_NAME) throw new ArchiveError(`Archive entry name is too long (${raw.length} characters)`);
  if (/[\0\n\r]/.test(raw)) throw new ArchiveError(`Archive entry ${show} has a NUL or line break in its name`);
  if (raw.includes('\\')) throw new ArchiveError(`Archive entry ${show} has a backslash in its name`);
  if (raw.startsWith('/')) throw new ArchiveError(`Archive entry ${show} has an absolute path`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new ArchiveError(`Archive entry ${show} has a ".." path segment`);
  return segments.join('/');
}

const TYPE_WORDS: Record<string, string> = {
  symlink: 'a symbolic link',
  link: 'a hard link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
  'contiguous-file': 'a contiguous file',
};

/** Counts the bytes passing through; `onBytes` refuses the stream by throwing. */
export function counter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        onBytes(chunk.length);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** Opens the archive's bytes from the start; called twice (a check pass, then the writing pass). */
export type ArchiveSource = () => Readable | Promise<Readable>;

/**
 * Reads a tar.gz into `dest`, which must not exist yet (it is created, and removed again when
 * the archive is refused). The archive is read twice: a first pass checks every entry (names,
 * types, sizes, how many) without writing anything, so a refusal costs no disk work; the second
 * writes the files. Resolves with the files written.
 */
export async function readArchive(open: ArchiveSource, dest: string, limits: ReadLimits = DEFAULT_LIMITS): Promise<ReadResult> {
  await fs.promises.mkdir(dest, { recursive: false });
  try {
    await extractInto(await open(), null, limits);
    return await extractInto(await open(), dest, limits);
  } catch (err) {
    await fs.promises.rm(dest, { recursive: true, force: true });
    if (err instanceof ArchiveError) throw err;
    const code = (err as NodeJS.ErrnoException)?.code ?? '';
    if (code.startsWith('Z_') || /incorrect header check|unexpected end of file|Invalid tar header|Unexpected end of data/i.test(String((err as Error)?.message))) {
      throw new ArchiveError('The file is not a valid tar.gz archive');
    }
    throw err;
  }
}

/** One pass over the archive: with `dest` null, every entry is checked and its bytes skipped. */
async function extractInto(source: Readable, dest: string | null, limits: ReadLimits): Promise<ReadResult> {
  let compressed = 0;
  let inflated = 0;
  const checkRatio = () => {
    if (inflated > limits.ratioFloorBytes && inflated > compressed * limits.maxRatio) {
      throw new ArchiveError(`The archive expands more than ${limits.maxRatio} times its compressed size`);
    }
  };
  const extract = tar.extract();
  const abort = new AbortController();
  const files: string[] = [];
  const seen = new Set<string>();
  const fileNames = new Set<string>();
  let total = 0;
  let count = 0;
  let writing: fs.WriteStream | null = null;

  const onEntry = async (h: tar.Header, entry: Readable): Promise<void> => {
    // A truncated archive fails the extractor, which then also errors the open entry after our
    // own pipeline let go of it: the failure is reported once, through the main pipeline.
    entry.on('error', () => {});
    count += 1;
    if (count > limits.maxEntries) throw new ArchiveError(`The archive has more than ${limits.maxEntries} entries`);
    const name = entryName(h.name);
    const type = h.type ?? 'unknown';
    if (type !== 'file' && type !== 'directory') {
      throw new ArchiveError(`Archive entry ${JSON.stringify(h.name)} is ${TYPE_WORDS[type] ?? `of type ${type}`}; only regular files and directories are allowed`);
    }
    if (name === '') {
      if (type === 'directory') return void entry.resume(); // `./` itself
      throw new ArchiveError(`Archive entry ${JSON.stringify(h.name)} has no name`);
    }
    // No entry may pass through a file, nor name a file twice (a later copy would silently win).
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (fileNames.has(parts.slice(0, i).join('/'))) throw new ArchiveError(`Archive entry ${JSON.stringify(h.name)} is below a file`);
    }
    if (fileNames.has(name) || (type === 'file' && seen.has(name))) {
      throw new ArchiveError(`Archive entry ${JSON.stringify(h.name)} appears more than once`);
    }
    seen.add(name);
    const target = dest === null ? null : path.join(dest, ...parts);
    if (type === 'directory') {
      if (target !== null) await fs.promises.mkdir(target, { recursive: true });
      return void entry.resume();
    }
    const size = h.size ?? 0;
    if (size > limits.maxEntryBytes) throw new ArchiveError(`Archive entry ${JSON.stringify(h.name)} is larger than ${limits.maxEntryBytes} bytes`);
    if (total + size > limits.maxTotalBytes) throw new ArchiveError(`The archive is larger than ${limits.maxTotalBytes} bytes uncompressed`);
    total += size;
    fileNames.add(name);
    if (target === null) {
      await pipeline(entry, new Writable({ write: (_chunk, _enc, done) => done() }));
      return;
    }
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    // `wx`: never follows or replaces anything already there
    writing = fs.createWriteStream(target, { flags: 'wx', mode: 0o600 });
    await pipeline(entry, writing);
    writing = null;
    files.push(name);
  };

  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let pending: Promise<void> = Promise.resolve();
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      abort.abort();
      // the file being written is closed before the caller removes the folder
      const w = writing as fs.WriteStream | null;
      if (w && !w.closed) {
        w.destroy();
        w.once('close', () => reject(err));
      } else reject(err);
    };
    extract.on('entry', (h, entry, next) => {
      pending = onEntry(h, entry as unknown as Readable).then(() => next(), (err) => {
        fail(err);
        entry.destroy();
      });
    });
    pipeline(
      source,
      counter((n) => { compressed += n; }),
      zlib.createGunzip(),
      counter((n) => {
        inflated += n;
        // headers and padding add a little to the entries' own bytes
        if (inflated > limits.maxTotalBytes + 1024 * 1024 + 1024 * Math.min(limits.maxEntries, 1e6)) {
          throw new ArchiveError(`The archive is larger than ${limits.maxTotalBytes} bytes uncompressed`);
        }
        checkRatio();
      }),
      extract,
      { signal: abort.signal },
    ).then(
      () => pending.then(() => { if (!settled) { settled = true; resolve(); } }),
      fail,
    );
  });
  if (count === 0) throw new ArchiveError('The archive is empty');
  return { files, totalBytes: total };
}
