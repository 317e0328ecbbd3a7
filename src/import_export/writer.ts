// The archive writer: a tar.gz produced as a stream from entries given one at a time, so memory
// stays bounded whatever the project's size (each file's bytes are streamed, never held whole).
// Entries are named `./<name>` as the reference's `tar -czf … -C <dir> .` names them.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { nowDate } from '../shared/clock.js';

export type WriterEntry =
  | { type: 'directory'; name: string }
  /** `body` is opened only when the entry is written; `size` must be its exact length. */
  | { type: 'file'; name: string; size: number; body: () => Readable | Buffer };

const MTIME = () => nowDate();

/**
 * A tar.gz stream of the entries, in order. A failing entry (a body shorter than its size, a
 * read error) fails the stream.
 */
export function writeArchive(entries: AsyncIterable<WriterEntry> | Iterable<WriterEntry>): Readable {
  const pack = tar.pack();
  const out = new PassThrough();
  pipeline(pack, zlib.createGzip(), out).catch((err) => out.destroy(err));
  (async () => {
    const mtime = MTIME();
    pack.entry({ name: './', type: 'directory', mode: 0o755, mtime });
    for await (const e of entries) {
      const name = `./${e.name}`;
      if (e.type === 'directory') {
        pack.entry({ name: `${name}/`, type: 'directory', mode: 0o755, mtime });
        continue;
      }
      const body = e.body();
      if (Buffer.isBuffer(body)) {
        await new Promise<void>((resolve, reject) => pack.entry({ name, size: body.length, mode: 0o644, mtime }, body, (err) => (err ? reject(err) : resolve())));
      } else {
        // the entry's writable applies backpressure: the body is read as fast as gzip consumes it
        await pipeline(body, pack.entry({ name, size: e.size, mode: 0o644, mtime }));
      }
    }
    pack.finalize();
  })().catch((err) => {
    pack.destroy(err);
    out.destroy(err);
  });
  return out;
}

/** Entries for every file and folder below `dir`, depth first in name order (a staged export). */
export async function* directoryEntries(dir: string, prefix = ''): AsyncGenerator<WriterEntry> {
  const items = (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const item of items) {
    const name = prefix ? `${prefix}/${item.name}` : item.name;
    const full = path.join(dir, item.name);
    if (item.isDirectory()) {
      yield { type: 'directory', name };
      yield* directoryEntries(full, name);
    } else if (item.isFile()) {
      const { size } = await fs.promises.stat(full);
      yield { type: 'file', name, size, body: () => fs.createReadStream(full) };
    }
  }
}
