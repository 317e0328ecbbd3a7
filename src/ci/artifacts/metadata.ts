// The archive's `metadata` artifact (file_type metadata, file_format gzip, `metadata.gz`), in the
// reference's binary format "GitLab Build Artifacts Metadata 0.0.2" so that browsing an archive
// needs no look into the zip: a gzip stream of length-prefixed strings (a 4-byte big-endian
// length, then the bytes): the version line, the errors object `{}`, then for each archive entry
// in archive order its path (directories end with `/`) and a JSON line
// `{"modified":<unix seconds>,"mode":"<octal permission bits>","crc":…,"size":…}`.
// Every directory an entry lies in is listed before it.
import fs from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import zlib from 'node:zlib';
import { now as clockNow } from '../../shared/clock.js';

export const METADATA_VERSION = 'GitLab Build Artifacts Metadata 0.0.2\n';

export interface MetadataEntry {
  /** Path in the archive; a directory's ends with `/`. */
  path: string;
  modified: number;
  /** Permission bits in octal, e.g. `644`. */
  mode: string;
  crc?: number;
  size?: number;
}

function lengthPrefixed(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length, 0);
  return Buffer.concat([len, body]);
}

/** Writes the metadata of `entries` (in archive order) to `outPath`, gzipped. */
export async function writeArchiveMetadata(
  outPath: string,
  entries: { path: string; mode: number; mtime: Date; size: number; crc?: number; type: 'file' | 'directory' | 'symlink' }[],
): Promise<number> {
  const gzip = zlib.createGzip();
  const file = fs.createWriteStream(outPath, { mode: 0o600 });
  gzip.pipe(file);
  const put = async (b: Buffer) => {
    if (!gzip.write(b)) await once(gzip, 'drain');
  };
  await put(lengthPrefixed(METADATA_VERSION));
  await put(lengthPrefixed('{}'));
  const seen = new Set<string>();
  const now = Math.floor(clockNow() / 1000);
  for (const e of entries) {
    const name = e.type === 'directory' && !e.path.endsWith('/') ? `${e.path}/` : e.path;
    const parts = name.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = `${parts.slice(0, i).join('/')}/`;
      if (seen.has(dir)) continue;
      seen.add(dir);
      await put(lengthPrefixed(dir));
      await put(lengthPrefixed(`${JSON.stringify({ modified: now, mode: '755' })}\n`));
    }
    if (seen.has(name)) continue;
    seen.add(name);
    const meta: Record<string, unknown> = { modified: Math.floor(e.mtime.getTime() / 1000), mode: (e.mode & 0o777).toString(8) };
    if (e.crc) meta.crc = e.crc;
    if (e.type !== 'directory' && e.size) meta.size = e.size;
    await put(lengthPrefixed(name));
    await put(lengthPrefixed(`${JSON.stringify(meta)}\n`));
  }
  gzip.end();
  await finished(file);
  return fs.statSync(outPath).size;
}

/** Reads a metadata artifact (gzipped). Throws when it is not one. */
export function readArchiveMetadata(gz: Buffer): MetadataEntry[] {
  const data = zlib.gunzipSync(gz);
  let pos = 0;
  const next = (): string => {
    if (pos + 4 > data.length) throw new Error('Invalid stream');
    const len = data.readUInt32BE(pos);
    if (pos + 4 + len > data.length) throw new Error('Invalid stream');
    const s = data.subarray(pos + 4, pos + 4 + len).toString('utf8');
    pos += 4 + len;
    return s;
  };
  const version = next();
  if (!version.startsWith('GitLab Build Artifacts Metadata ')) throw new Error('Invalid stream');
  next(); // errors
  const entries: MetadataEntry[] = [];
  while (pos < data.length) {
    const path = next();
    const meta = JSON.parse(next()) as Omit<MetadataEntry, 'path'>;
    entries.push({ path, ...meta });
  }
  return entries;
}
