// HTTP byte ranges (RFC 9110 §14) on a file download, as the reference's file server answers them:
// one range gets 206 with that part; several ranges, or a header that is not a byte range, get the
// whole file (a server may ignore Range); a range that starts past the end gets 416.
import { rangeNotSatisfiable } from '../domain/errors.js';
import type { ByteRange } from '../storage/blob.js';

/** The one range asked for in a `Range` header, clipped to the file; null for the whole file. */
export function byteRangeOf(header: string | string[] | undefined, size: number): ByteRange | null {
  const m = typeof header === 'string' ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // `-n`: the last n bytes
    const n = Number(m[2]);
    if (n === 0 || size === 0) throw rangeNotSatisfiable(size);
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? Infinity : Number(m[2]);
  if (end < start) return null; // not a valid range: ignored
  if (start >= size) throw rangeNotSatisfiable(size);
  return { start, end: Math.min(end, size - 1) };
}
