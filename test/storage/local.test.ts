import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { LocalBlobStorage } from '../../src/storage/local.js';
import type { BlobStorage } from '../../src/storage/blob.js';
import { blobStorageSuite } from './suite.js';

// The blob store does not touch the database; it runs once per dialect only because the
// container wires it the same way on both.
for (const dialect of DIALECTS) {
  describe(`local blob storage (${dialect})`, () => {
    let t: TestApp;
    let s: BlobStorage;
    let root: string;
    let elsewhere: LocalBlobStorage;
    before(async () => {
      t = await buildTestApp(dialect);
      s = t.c.storage;
      root = path.join(t.c.config.dataDir, 'blobs');
      elsewhere = new LocalBlobStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-blobs-')));
    });
    after(async () => {
      fs.rmSync(elsewhere.root, { recursive: true, force: true });
      await t.close();
    });

    blobStorageSuite({ store: () => s, second: () => new LocalBlobStorage(root), elsewhere: () => elsewhere });

    it('the container stores blobs under <dataDir>/blobs', async () => {
      await s.put('where/am-i.txt', Buffer.from('here'));
      assert.equal(fs.readFileSync(path.join(root, 'where', 'am-i.txt'), 'utf8'), 'here');
    });

    it('empty folders are removed with their last blob', async () => {
      await s.put('gone/with/it', Buffer.from('x'));
      await s.delete('gone/with/it');
      assert.equal(fs.existsSync(path.join(root, 'gone')), false);
    });

    it('a failed upload leaves no temp file', async () => {
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('client went away'));
        },
      });
      await assert.rejects(s.put('up/tmpcheck', failing), /client went away/);
      assert.deepEqual(fs.readdirSync(path.join(root, '.tmp')), []);
    });

    it('no key reaches outside the folder', async () => {
      await assert.rejects(s.put('../x', Buffer.from('x')), /invalid blob key/);
      assert.equal(fs.existsSync(path.join(t.c.config.dataDir, 'x')), false);
    });
  });
}
