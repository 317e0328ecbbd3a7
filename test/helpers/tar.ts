// Hand-made tar archives for tests, byte by byte, so that a test can write what no honest tar
// tool writes: links, devices, hostile names, sizes that lie, PAX headers with NUL in a path.
import zlib from 'node:zlib';

export interface RawEntry {
  name: string;
  /** The typeflag character: '0' file, '1' hard link, '2' symlink, '3' char dev, '4' block dev, '5' dir, '6' FIFO, 'x' PAX. */
  type?: string;
  body?: Buffer | string;
  /** The size written in the header (default: the body's length). */
  size?: number;
  linkname?: string;
}

function field(buf: Buffer, offset: number, length: number, value: string): void {
  buf.write(value.slice(0, length), offset, 'latin1');
}

const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, '0') + '\0';

function header(e: RawEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  field(h, 0, 100, e.name);
  field(h, 100, 8, octal(e.type === '5' ? 0o755 : 0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(1_700_000_000, 12));
  field(h, 148, 8, '        ');
  field(h, 156, 1, e.type ?? '0');
  field(h, 157, 100, e.linkname ?? '');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** A PAX extended header entry that sets `path` for the next entry (may hold any byte). */
export function paxPath(p: string): RawEntry {
  const rec = (len: number) => `${len} path=${p}\n`;
  let len = rec(0).length;
  while (rec(len).length !== len) len = rec(len).length;
  return { name: 'PaxHeader', type: 'x', body: rec(len) };
}

/** The tar bytes of the entries (without gzip), ending with the two zero blocks. */
export function rawTar(entries: RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    parts.push(header(e, e.size ?? body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const rawTarGz = (entries: RawEntry[]): Buffer => zlib.gzipSync(rawTar(entries));
