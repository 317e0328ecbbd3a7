// The behaviour every blob store must have, run against each backend (local folder, S3 API):
// the same keys, the same answers, streams both ways.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStorage } from '../../src/storage/blob.js';

export async function readAll(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A stream of n bytes made in 64 KiB chunks, hashed as it goes (never held whole). */
export function generated(n: number): { stream: Readable; sha: () => string } {
  const h = crypto.createHash('sha256');
  let left = n;
  let i = 0;
  const stream = new Readable({
    read() {
      if (left === 0) return this.push(null);
      const size = Math.min(left, 65536);
      const chunk = Buffer.alloc(size, i++ % 251);
      h.update(chunk);
      left -= size;
      this.push(chunk);
    },
  });
  return { stream, sha: () => h.digest('hex') };
}

export interface SuiteContext {
  /** The store under test (set up by the caller's before hook). */
  store(): BlobStorage;
  /** Another store on the same backend location: a second node. */
  second(): BlobStorage;
  /** Another store on a different location: sees none of these blobs. */
  elsewhere(): BlobStorage;
}

export function blobStorageSuite(ctx: SuiteContext): void {
  it('put, get, stat, overwrite and delete a blob', async () => {
    const s = ctx.store();
    assert.deepEqual(await s.put('projects/1/exports/a.tar.gz', Buffer.from('hello')), { size: 5 });
    assert.deepEqual(await s.stat('projects/1/exports/a.tar.gz'), { size: 5 });
    assert.equal((await readAll((await s.get('projects/1/exports/a.tar.gz'))!)).toString(), 'hello');

    assert.deepEqual(await s.put('projects/1/exports/a.tar.gz', Readable.from([Buffer.from('bye')])), { size: 3 });
    assert.equal((await readAll((await s.get('projects/1/exports/a.tar.gz'))!)).toString(), 'bye');

    await s.delete('projects/1/exports/a.tar.gz');
    assert.equal(await s.stat('projects/1/exports/a.tar.gz'), null);
    assert.equal(await s.get('projects/1/exports/a.tar.gz'), null);
    await s.delete('projects/1/exports/a.tar.gz'); // deleting twice is fine
  });

  it('reads a range of a blob: its first, middle and last bytes', async () => {
    const s = ctx.store();
    await s.put('ci/9/artifacts.zip', Buffer.from('0123456789'));
    const range = async (start: number, end: number) => (await readAll((await s.get('ci/9/artifacts.zip', { start, end }))!)).toString();
    assert.equal(await range(0, 1), '01');
    assert.equal(await range(3, 6), '3456');
    assert.equal(await range(7, 9), '789');
    assert.equal(await s.get('ci/9/missing.zip', { start: 0, end: 1 }), null);
  });

  it('an empty blob is a blob; a missing key or a folder is not', async () => {
    const s = ctx.store();
    await s.put('empty', Buffer.alloc(0));
    assert.deepEqual(await s.stat('empty'), { size: 0 });
    assert.equal((await readAll((await s.get('empty'))!)).length, 0);
    assert.deepEqual(await s.put('empty-stream', Readable.from([])), { size: 0 });
    assert.deepEqual(await s.stat('empty-stream'), { size: 0 });
    assert.equal(await s.stat('nothing/here'), null);
    assert.equal(await s.get('nothing/here'), null);
    await s.put('dir/child', Buffer.from('x'));
    assert.equal(await s.stat('dir'), null);
    assert.equal(await s.get('dir'), null);
    await s.delete('dir'); // not a blob: nothing happens
    assert.deepEqual(await s.stat('dir/child'), { size: 1 });
  });

  it('deletePrefix removes every blob under a folder and nothing beside it', async () => {
    const s = ctx.store();
    await s.put('projects/12/a', Buffer.from('a'));
    await s.put('projects/12/deep/b', Buffer.from('b'));
    await s.put('projects/123/c', Buffer.from('c'));
    await s.put('projects/1', Buffer.from('d'));
    await s.deletePrefix('projects/12/');
    assert.equal(await s.stat('projects/12/a'), null);
    assert.equal(await s.stat('projects/12/deep/b'), null);
    assert.deepEqual(await s.stat('projects/123/c'), { size: 1 });
    assert.deepEqual(await s.stat('projects/1'), { size: 1 });
    await s.deletePrefix('projects/none/'); // nothing there: fine
    await assert.rejects(s.deletePrefix('projects/1'), /must end with "\/"/);
    await assert.rejects(s.deletePrefix('/'), /invalid blob/);
  });

  it('list names every blob under a folder with its size, and nothing beside it', async () => {
    const s = ctx.store();
    await s.put('lists/9/b', Buffer.from('bb'));
    await s.put('lists/9/a/x', Buffer.from('x'));
    await s.put('lists/90/c', Buffer.from('c'));
    const seen = [];
    for await (const b of s.list('lists/9/')) seen.push(b);
    assert.deepEqual(seen, [{ key: 'lists/9/a/x', size: 1 }, { key: 'lists/9/b', size: 2 }]);
    for await (const b of s.list('lists/none/')) assert.fail(`unexpected ${b.key}`);
    await assert.rejects(async () => { for await (const _ of s.list('lists/9')) break; }, /must end with "\/"/);
    await s.deletePrefix('lists/');
  });

  it('streams a multi-MB blob in and out', async () => {
    const s = ctx.store();
    const size = 24 * 1024 * 1024 + 17;
    const src = generated(size);
    assert.deepEqual(await s.put('big/blob.bin', src.stream), { size });
    assert.deepEqual(await s.stat('big/blob.bin'), { size });
    const h = crypto.createHash('sha256');
    let chunks = 0;
    let largest = 0;
    for await (const c of (await s.get('big/blob.bin'))!) {
      h.update(c as Buffer);
      chunks += 1;
      largest = Math.max(largest, (c as Buffer).length);
    }
    assert.equal(h.digest('hex'), src.sha());
    assert.ok(chunks > 100 && largest <= 1024 * 1024, `read in ${chunks} chunks of at most ${largest} bytes`);
  });

  it('a failed upload leaves no partial blob and keeps the old blob', async () => {
    const s = ctx.store();
    await s.put('up/file', Buffer.from('old'));
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024, 1));
        this.destroy(new Error('client went away'));
      },
    });
    await assert.rejects(s.put('up/file', failing), /client went away/);
    assert.equal((await readAll((await s.get('up/file'))!)).toString(), 'old');
    assert.equal(await s.stat('up/other'), null);
  });

  it('refuses keys that could escape the store or name its internals', async () => {
    const s = ctx.store();
    const bad = ['', '../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/', './a', 'a/./b', '.tmp/x', '.hidden', 'a\\..\\b', 'a\0b', 'ü', 'x'.repeat(1025)];
    for (const key of bad) {
      await assert.rejects(s.put(key, Buffer.from('x')), /invalid blob key/, `put ${JSON.stringify(key)}`);
      await assert.rejects(s.get(key), /invalid blob key/, `get ${JSON.stringify(key)}`);
      await assert.rejects(s.stat(key), /invalid blob key/, `stat ${JSON.stringify(key)}`);
      await assert.rejects(s.delete(key), /invalid blob key/, `delete ${JSON.stringify(key)}`);
    }
    await assert.rejects(s.deletePrefix('../'), /invalid blob/);
    await assert.rejects(s.deletePrefix('a/../'), /invalid blob/);
  });

  it('a second store on the same location sees the same blobs (two nodes); another location does not', async () => {
    await ctx.store().put('shared/k', Buffer.from('v'));
    assert.equal((await readAll((await ctx.second().get('shared/k'))!)).toString(), 'v');
    assert.equal(await ctx.elsewhere().get('shared/k'), null);
  });
}
