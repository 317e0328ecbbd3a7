// The branch list reads refs from the repository's files and keeps them until a ref file changes:
// every kind of change (a new, moved or deleted loose ref, a new directory, a rewritten
// packed-refs) shows in the next list, also when the files are old (no racy-window re-read).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { branchTip, commitOn, repoDir, setBranch } from '../helpers/branches.js';
import { git } from '../../src/git/git.js';

/** Dates packed-refs and every directory under refs/heads/ an hour back, as if nothing changed lately. */
function ageRefFiles(dir: string): void {
  const past = new Date(Date.now() - 3_600_000);
  const age = (d: string) => {
    fs.utimesSync(d, past, past);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) age(path.join(d, e.name));
  };
  age(path.join(dir, 'refs/heads'));
  if (fs.existsSync(path.join(dir, 'packed-refs'))) fs.utimesSync(path.join(dir, 'packed-refs'), past, past);
}

describe('branch list from ref files', () => {
  let t: TestApp;
  let projectId: number;
  let dir: string;
  let main: string;

  /** Lists the branches (after ageing the files, so the cache is trusted) as name → commit id. */
  async function listed(): Promise<Record<string, string>> {
    const r = await t.get(`/api/v4/projects/${projectId}/repository/branches?per_page=100`);
    assert.equal(r.status, 200, r.text);
    return Object.fromEntries(r.body.map((b: any) => [b.name, b.commit.id]));
  }
  async function agedList(): Promise<Record<string, string>> {
    ageRefFiles(dir);
    return listed();
  }

  before(async () => {
    t = await buildTestApp('sqlite');
    const p = await makeProject(t, t.rootToken, { name: 'ref-files', initialize_with_readme: true });
    projectId = p.id;
    dir = repoDir(t, projectId);
    main = (await branchTip(t, projectId, 'main'))!;
  });
  after(() => t.close());

  it('shows new, moved and deleted loose refs, and branches in new directories', async () => {
    assert.deepEqual(await agedList(), { main });
    await setBranch(t, projectId, 'a', main);
    assert.deepEqual(await agedList(), { a: main, main });
    const next = await commitOn(t, projectId, 'a', { 'x.txt': 'x\n' });
    assert.deepEqual(await agedList(), { a: next, main });
    await commitOn(t, projectId, 'deep/er/b', { 'y.txt': 'y\n' }, 'b', main);
    assert.deepEqual(Object.keys(await agedList()), ['a', 'deep/er/b', 'main']);
    await git(['update-ref', '-d', 'refs/heads/deep/er/b'], { gitDir: dir });
    assert.deepEqual(await agedList(), { a: next, main });
  });

  it('reads packed refs, a loose ref over its packed line, and a packed ref deleted', async () => {
    await setBranch(t, projectId, 'packed', main);
    await git(['pack-refs', '--all'], { gitDir: dir });
    assert.deepEqual(await agedList(), { a: (await branchTip(t, projectId, 'a'))!, main, packed: main });
    const moved = await commitOn(t, projectId, 'packed', { 'z.txt': 'z\n' });
    assert.equal((await agedList()).packed, moved);
    await git(['update-ref', '-d', 'refs/heads/packed'], { gitDir: dir });
    assert.equal((await agedList()).packed, undefined);
  });

  it('sorts names in byte order, as git does', async () => {
    for (const name of ['Z', 'b-1', 'b/1', 'é']) await setBranch(t, projectId, name, main);
    assert.deepEqual(Object.keys(await agedList()), ['Z', 'a', 'b-1', 'b/1', 'main', 'é']);
  });
});
