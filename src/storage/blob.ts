// Blob storage: exports, uploads, artifacts, traces. The interface stays small so that an
// S3-compatible store can sit behind it. Bodies are streamed, never held whole in memory.
import type { Readable } from 'node:stream';

export interface BlobStat {
  size: number;
}

/** Bytes `start` to `end` of a blob, both included (as in HTTP's `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStorage {
  /**
   * Stores the body under key, replacing any blob there; readers never see a partial blob.
   * A key cannot name a blob while other keys sit below it (`a/b` and `a/b/c`): the local
   * store maps keys to files and folders.
   */
  put(key: string, body: Readable | Buffer): Promise<BlobStat>;
  /** The blob's bytes (only `range` of them when given, which must lie within it), or null when there is none. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<BlobStat | null>;
  /** Removes the blob; no error when there is none. */
  delete(key: string): Promise<void>;
  /** Removes every blob whose key starts with prefix, which must end with `/` (a folder). */
  deletePrefix(prefix: string): Promise<void>;
  /** Every blob whose key starts with prefix (ending with `/`), folder by folder, names in byte order. */
  list(prefix: string): AsyncIterable<{ key: string; size: number }>;
}

export class InvalidBlobKeyError extends Error {}

// Keys are `/`-separated segments of safe characters (no empty, `.` or `..` segments, nothing
// starting with a dot), the same on every backend; so no key can leave the store's folder.
const SEGMENT = /^[A-Za-z0-9_\-][A-Za-z0-9_.\-]*$/;
const MAX_KEY = 1024;

export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY || !key.split('/').every((s) => SEGMENT.test(s))) {
    throw new InvalidBlobKeyError(`invalid blob key ${JSON.stringify(key)}`);
  }
}

export function assertBlobPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.endsWith('/')) {
    throw new InvalidBlobKeyError(`invalid blob prefix ${JSON.stringify(prefix)}: it must end with "/"`);
  }
  assertBlobKey(prefix.slice(0, -1));
}
