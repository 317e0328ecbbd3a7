// Gzip files of several members, one per source file (the reference runner's `gzip` artifact
// format, used for `reports:junit` and the like): each member carries its file's name in the
// header, so a reader can take the files apart again. Written streamed, file by file.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { once } from 'node:events';
import { Transform, type Writable } from 'node:stream';
import zlib from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (as in zip and gzip), continued from `previous`. */
export function crc32(data: Buffer, previous = 0): number {
  const native = (zlib as unknown as { crc32?: (d: Buffer, v: number) => number }).crc32;
  if (native) return native(data, previous);
  let c = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A read stream of a file, refusing to follow a symlink at its last component. */
export async function openNoFollow(file: string): Promise<fs.ReadStream> {
  const handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  return handle.createReadStream();
}

async function put(out: Writable, chunk: Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * Appends one gzip member holding the file at `sourcePath` (opened without following a
 * symlink) to `out`, named `name` in its header. Returns the file's size.
 */
export async function appendGzipMember(out: Writable, sourcePath: string, name: string, mtime: Date): Promise<number> {
  const header = Buffer.alloc(10);
  header.set([0x1f, 0x8b, 8, 0x08]); // deflate, FNAME
  header.writeUInt32LE(Math.max(0, Math.floor(mtime.getTime() / 1000)) >>> 0, 4);
  header[8] = 0;
  header[9] = 3; // Unix
  await put(out, Buffer.concat([header, Buffer.from(name.replace(/\0/g, ''), 'latin1'), Buffer.from([0])]));

  let crc = 0;
  let size = 0;
  const source = await openNoFollow(sourcePath);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const deflate = zlib.createDeflateRaw();
  source.on('error', (e) => deflate.destroy(e));
  source.pipe(counter).pipe(deflate);
  for await (const chunk of deflate) await put(out, chunk as Buffer);

  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 0x1_0000_0000, 4);
  await put(out, trailer);
  return size;
}

export interface GzipMember {
  /** The name in the member's header (null when it has none). */
  name: string | null;
  data: Buffer;
}

/**
 * The members of a (possibly multi-member) gzip file, each decompressed on its own: the files
 * of a `gzip` report artifact. Throws on data that is not gzip.
 */
export function gunzipMembers(gz: Buffer): GzipMember[] {
  const members: GzipMember[] = [];
  let pos = 0;
  while (pos < gz.length) {
    if (gz.length - pos < 18 || gz[pos] !== 0x1f || gz[pos + 1] !== 0x8b || gz[pos + 2] !== 8) {
      if (members.length && gz.subarray(pos).every((b) => b === 0)) break; // zero padding
      throw new Error('not in gzip format');
    }
    const flags = gz[pos + 3]!;
    let p = pos + 10;
    if (flags & 0x04) p += 2 + gz.readUInt16LE(p); // FEXTRA
    let name: string | null = null;
    if (flags & 0x08) {
      const end = gz.indexOf(0, p);
      if (end < 0) throw new Error('not in gzip format');
      name = gz.subarray(p, end).toString('latin1');
      p = end + 1;
    }
    if (flags & 0x10) p = gz.indexOf(0, p) + 1; // FCOMMENT
    if (flags & 0x02) p += 2; // FHCRC
    const { buffer, engine } = zlib.inflateRawSync(gz.subarray(p), { info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    members.push({ name, data: buffer });
    pos = p + engine.bytesWritten + 8;
  }
  return members;
}
