// Reading a zip archive through reads at positions: its central directory, then where one entry's
// bytes lie. No reader holds the archive: the directory and the entry asked for are all it reads.
// Stored and deflated entries; no ZIP64 (archives over 4 GiB).
import zlib from 'node:zlib';

/** `length` bytes from `position` of the archive (fewer only at its end). */
export type ReadAt = (position: number, length: number) => Promise<Buffer>;

export interface ZipEntry {
  /** Path in the archive; a directory's ends with `/`. */
  path: string;
  size: number;
  compressedSize: number;
  /** 0 stored, 8 deflated. */
  method: number;
  headerOffset: number;
  /** Unix mode bits (file type and permissions), 0 when the archive has none. */
  mode: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

/** The archive's entries in archive order; null when it is not a zip this reader understands. */
export async function zipEntries(readAt: ReadAt, size: number): Promise<ZipEntry[] | null> {
  const tailLength = Math.min(size, EOCD_SIZE + MAX_COMMENT);
  if (tailLength < EOCD_SIZE) return null;
  const tail = await readAt(size - tailLength, tailLength);
  let end = -1;
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  const count = tail.readUInt16LE(end + 10);
  const cdSize = tail.readUInt32LE(end + 12);
  const cdOffset = tail.readUInt32LE(end + 16);
  if (cdOffset + cdSize > size) return null;
  const cd = cdSize === 0 ? Buffer.alloc(0) : await readAt(cdOffset, cdSize);
  const out: ZipEntry[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > cd.length || cd.readUInt32LE(at) !== CENTRAL) return null;
    const nameLength = cd.readUInt16LE(at + 28);
    const entry: ZipEntry = {
      method: cd.readUInt16LE(at + 10),
      compressedSize: cd.readUInt32LE(at + 20),
      size: cd.readUInt32LE(at + 24),
      mode: cd.readUInt32LE(at + 38) >>> 16,
      headerOffset: cd.readUInt32LE(at + 42),
      path: cd.toString('utf8', at + 46, at + 46 + nameLength),
    };
    if (entry.size === 0xffffffff || entry.headerOffset === 0xffffffff) return null;
    out.push(entry);
    at += 46 + nameLength + cd.readUInt16LE(at + 30) + cd.readUInt16LE(at + 32);
  }
  return out;
}

/** Where the entry's stored (maybe compressed) bytes start, from its local header; null when the header is broken. */
export async function entryDataStart(readAt: ReadAt, e: ZipEntry): Promise<number | null> {
  const header = await readAt(e.headerOffset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL) return null;
  return e.headerOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
}

/** One entry's content, read whole (callers bound its size); null for an unknown method or a broken entry. */
export async function entryContent(readAt: ReadAt, e: ZipEntry): Promise<Buffer | null> {
  const start = await entryDataStart(readAt, e);
  if (start === null || (e.method !== 0 && e.method !== 8)) return null;
  const data = e.compressedSize === 0 ? Buffer.alloc(0) : await readAt(start, e.compressedSize);
  if (data.length !== e.compressedSize) return null;
  if (e.method === 0) return data;
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(e.size, 1) });
  } catch {
    return null;
  }
}
