// Blobs as files under one folder (`<dataDir>/blobs`); a key maps to a relative path.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, assertBlobPrefix, InvalidBlobKeyError, type BlobStat, type BlobStorage, type ByteRange } from './blob.js';

// Partly written blobs live here until renamed into place. Keys cannot start with a dot,
// so no key can name this folder.
const TMP = '.tmp';

export class LocalBlobStorage implements BlobStorage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async put(key: string, body: Readable | Buffer): Promise<BlobStat> {
    const file = this.pathOf(key);
    const tmpDir = path.join(this.root, TMP);
    await fs.promises.mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, `${crypto.randomBytes(12).toString('hex')}.part`);
    const out = fs.createWriteStream(tmp, { flags: 'wx' });
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, out);
      // Data on disk before the rename makes it visible, so a crash never leaves a truncated blob.
      const fh = await fs.promises.open(tmp, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await this.renameInto(tmp, file);
    } catch (err) {
      // A source that fails at once can fail before the temp file's open finished: wait for the
      // stream to close, or the open would create the file after it was removed.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
    return { size: (await fs.promises.stat(file)).size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    const file = this.pathOf(key);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(file, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    if (!(await fh.stat()).isFile()) {
      await fh.close();
      return null;
    }
    // Opened before returning: a concurrent put or delete cannot turn this into a half-read.
    return fh.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const st = await fs.promises.stat(this.pathOf(key));
      return st.isFile() ? { size: st.size } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await fs.promises.unlink(file);
    } catch (err) {
      // A missing blob is already deleted; a folder (a prefix) is not a blob.
      if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'EISDIR' || (err as NodeJS.ErrnoException).code === 'EPERM') return;
      throw err;
    }
    await this.removeEmptyParents(file);
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobPrefix(prefix);
    const dir = this.inside(prefix.slice(0, -1));
    await fs.promises.rm(dir, { recursive: true, force: true });
    await this.removeEmptyParents(dir);
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    assertBlobPrefix(prefix);
    const walk = async function* (dir: string, keyPrefix: string): AsyncGenerator<{ key: string; size: number }> {
      let items: fs.Dirent[];
      try {
        items = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const item of items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const p = path.join(dir, item.name);
        if (item.isDirectory()) yield* walk(p, `${keyPrefix}${item.name}/`);
        else if (item.isFile()) yield { key: `${keyPrefix}${item.name}`, size: (await fs.promises.stat(p)).size };
      }
    };
    yield* walk(this.inside(prefix.slice(0, -1)), prefix);
  }

  /** Renames into place, making the folders; retried because a delete may remove an empty folder meanwhile. */
  private async renameInto(tmp: string, file: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      try {
        return await fs.promises.rename(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw err;
      }
    }
  }

  /**
   * Empty folders left by deletes are removed, so that a key once used as a folder
   * (`a/b/c`) can later name a blob (`a/b`). Stops at the first folder that is not empty.
   */
  private async removeEmptyParents(from: string): Promise<void> {
    for (let dir = path.dirname(from); dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
      try {
        await fs.promises.rmdir(dir);
      } catch {
        return; // not empty (or already gone, or in use by a put): leave it
      }
    }
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return this.inside(key);
  }

  /** The path of a validated key; checked again against the root as a second line of defence. */
  private inside(rel: string): string {
    const p = path.resolve(this.root, rel);
    if (!p.startsWith(this.root + path.sep)) throw new InvalidBlobKeyError(`invalid blob key ${JSON.stringify(rel)}`);
    return p;
  }
}

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
