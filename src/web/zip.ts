// Reading a job's artifacts archive (a zip the browse pages got from the REST API): its central
// directory, and one entry's bytes. Stored and deflated entries; no ZIP64 (archives over 4 GiB).
import zlib from 'node:zlib';

export interface ZipEntry {
  /** Path in the archive; a directory's ends with `/`. */
  path: string;
  size: number;
  compressedSize: number;
  method: number;
  headerOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The archive's entries in archive order; null when it is not a zip this reader understands. */
export function zipEntries(zip: Buffer): ZipEntry[] | null {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) return null;
    const nameLen = zip.readUInt16LE(at + 28);
    const entry: ZipEntry = {
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      headerOffset: zip.readUInt32LE(at + 42),
      path: zip.toString('utf8', at + 46, at + 46 + nameLen),
    };
    if (entry.size === 0xffffffff || entry.headerOffset === 0xffffffff) return null;
    out.push(entry);
    at += 46 + nameLen + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

/** One entry's content; null when it cannot be read (an unknown method, a broken header). */
export function zipEntryData(zip: Buffer, e: ZipEntry): Buffer | null {
  const at = e.headerOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) return null;
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + e.compressedSize);
  if (e.method === 0) return data;
  if (e.method !== 8) return null;
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(e.size, 1) });
  } catch {
    return null;
  }
}
