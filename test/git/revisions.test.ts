// The revision reads of src/git, each written once: one answer for a revision that names nothing,
// and a value git would read as an option never reaches git.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { branchTip, commitOn, repoDir } from '../helpers/branches.js';
import { countCommits, isAncestor, newestMessage, resolveRevision } from '../../src/git/repository.js';
import { diffPaths, fileAt } from '../../src/git/refs.js';

const UNKNOWN = '1234567890123456789012345678901234567890';

for (const dialect of DIALECTS) {
  describe(`git revisions (${dialect})`, () => {
    let t: TestApp;
    let dir: string;
    let first: string;
    let second: string;
    before(async () => {
      t = await buildTestApp(dialect);
      const u = await t.createUser();
      const p = await makeProject(t, u.token, { name: 'revs', initialize_with_readme: true });
      dir = repoDir(t, p.id);
      first = (await branchTip(t, p.id, 'main'))!;
      second = await commitOn(t, p.id, 'main', { 'b.txt': 'b\n' }, 'Second\n\nbody');
    });
    after(async () => t.close());

    it('known revisions: rev-parse, ancestry, counts, the newest message, changed paths', async () => {
      assert.equal(await resolveRevision(dir, 'main'), second);
      assert.equal(await resolveRevision(dir, 'refs/heads/main'), second);
      assert.equal(await isAncestor(dir, first, second), true);
      assert.equal(await isAncestor(dir, second, first), false);
      assert.equal(await countCommits(dir, second), 2);
      assert.equal(await countCommits(dir, second, first), 1);
      assert.equal(await countCommits(dir, second, null, 1), 1);
      assert.equal(await newestMessage(dir, second, first), 'Second\n\nbody\n');
      assert.equal(await newestMessage(dir, first, second), null); // nothing in the range
      assert.deepEqual(await diffPaths(dir, first, second), ['b.txt']);
      assert.equal(await fileAt(dir, second, 'b.txt'), 'b\n');
    });

    it('an unknown commit: null, false, 0, null, the same from every reader', async () => {
      assert.equal(await resolveRevision(dir, UNKNOWN), null);
      assert.equal(await resolveRevision(dir, 'no-such-branch'), null);
      assert.equal(await isAncestor(dir, UNKNOWN, second), false);
      assert.equal(await isAncestor(dir, second, UNKNOWN), false);
      assert.equal(await countCommits(dir, UNKNOWN), 0);
      assert.equal(await countCommits(dir, second, UNKNOWN), 0);
      assert.equal(await newestMessage(dir, UNKNOWN), null);
      assert.equal(await diffPaths(dir, UNKNOWN, second), null);
      assert.equal(await fileAt(dir, UNKNOWN, 'b.txt'), null);
    });

    it('option-like and NUL values never reach git: the same answers, no side effect', async () => {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-opt-')), 'written');
      const option = `--output=${out}`;
      for (const bad of [option, '-rf', 'main\0', '']) {
        assert.equal(await resolveRevision(dir, bad), null);
        assert.equal(await isAncestor(dir, bad, second), false);
        assert.equal(await countCommits(dir, second, bad), 0);
        assert.equal(await newestMessage(dir, bad), null);
        assert.equal(await diffPaths(dir, bad, second), null);
        assert.equal(await diffPaths(dir, first, bad), null);
        assert.equal(await fileAt(dir, bad, 'b.txt'), null);
      }
      assert.equal(fs.existsSync(out), false, 'git wrote no file: the diff saw no option');
    });
  });
}
