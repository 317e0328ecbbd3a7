// The last commit of each entry of a directory (git/log.ts lastCommitsFor), on repositories built
// with git's porcelain: renames, a directory changed deep inside, a submodule, a file unchanged
// for a long history, merges (one that takes a side, one that changes a file itself), names git
// quotes; each answer against `git log -1 -- <entry>`, run here as the oracle.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastCommitsFor } from '../../src/git/log.js';
import { PLAIN_GIT_ENV } from '../helpers/git.js';
import { spawnsDuring } from '../helpers/spawns.js';

const ENV = PLAIN_GIT_ENV;

describe('git: the last commit of each entry of a directory', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-treelog-'));
  const work = path.join(tmp, 'work');
  const bare = path.join(tmp, 'bare.git');
  let clock = 1_700_000_000;
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: work, env: { ...ENV, GIT_AUTHOR_DATE: `${clock} +0000`, GIT_COMMITTER_DATE: `${clock} +0000` }, maxBuffer: 64 << 20 }).toString('utf8').trim();
  const write = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), content);
  };
  /** Commits what the work tree holds; returns the commit's sha. */
  const commit = (message: string) => {
    clock += 60;
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  const shas: Record<string, string> = {};
  const WEIRD = ['quote"d', 'tab\there', 'new\nline', 'ünïcode ✓', 'back\\slash'];

  before(() => {
    fs.mkdirSync(work);
    git('init', '-q', '-b', 'main');
    write('LICENSE', 'license\n');
    write('old.txt', 'to be renamed\n');
    write('dir/a/b/c.txt', 'deep\n');
    write('dir/top.txt', 'top\n');
    write('docs/guide.md', 'guide\n');
    shas.root = commit('root');
    // a submodule: a gitlink entry (its folder empty, as one not checked out), moved later
    fs.mkdirSync(path.join(work, 'vendor/lib'), { recursive: true });
    git('update-index', '--add', '--cacheinfo', `160000,${shas.root},vendor/lib`);
    shas.submodule = commit('add a submodule');
    git('mv', 'old.txt', 'new.txt');
    shas.rename = commit('rename old.txt to new.txt');
    for (let i = 0; i < 120; i++) {
      write('docs/guide.md', `guide ${i}\n`);
      commit(`guide ${i}`);
    }
    write('dir/a/b/c.txt', 'deeper\n');
    shas.deep = commit('change deep inside dir');
    git('update-index', '--cacheinfo', `160000,${shas.rename},vendor/lib`);
    shas.submoduleMoved = commit('move the submodule');
    // a side branch merged as it is, and a merge that changes a file itself
    git('switch', '-q', '-c', 'side');
    write('side.txt', 'side\n');
    shas.side = commit('side file');
    git('switch', '-q', 'main');
    write('docs/guide.md', 'main guide\n');
    commit('guide on main');
    git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
    shas.merge = git('rev-parse', 'HEAD');
    git('switch', '-q', '-c', 'other', 'HEAD~1');
    write('conflict.txt', 'other\n');
    commit('conflict on other');
    git('switch', '-q', 'main');
    write('conflict.txt', 'main\n');
    commit('conflict on main');
    try {
      git('merge', '-q', '-m', 'merge other', 'other');
    } catch {
      // the conflict, resolved by hand: the merge's own content
    }
    write('conflict.txt', 'resolved\n');
    shas.evil = commit('merge other, resolved');
    for (const name of WEIRD) write(`odd/${name}`, name);
    shas.weird = commit('names git quotes');
    execFileSync('git', ['clone', '-q', '--bare', work, bare], { env: ENV });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const headSha = () => execFileSync('git', [`--git-dir=${bare}`, 'rev-parse', 'HEAD'], { env: ENV }).toString().trim();
  const oracle = (sha: string, p: string) => execFileSync('git', [`--git-dir=${bare}`, 'log', '-1', '--format=%H', sha, '--', p], { env: { ...ENV, GIT_LITERAL_PATHSPECS: '1' } }).toString().trim() || undefined;
  const entriesOf = (sha: string, dir: string) =>
    execFileSync('git', [`--git-dir=${bare}`, 'ls-tree', '-z', '--name-only', dir ? `${sha}:${dir}` : sha], { env: ENV })
      .toString()
      .split('\0')
      .filter(Boolean)
      .map((n) => (dir ? `${dir}/${n}` : n));

  it('finds, for every entry of the root, the commit git log -1 names: renames, a deep change, a submodule, merges, a file unchanged since the first commit', async () => {
    const head = headSha();
    const paths = entriesOf(head, '');
    const found = await lastCommitsFor(bare, head, paths);
    for (const p of paths) assert.equal(found.get(p), oracle(head, p), p);
    assert.equal(found.get('new.txt'), shas.rename);
    assert.equal(found.get('dir'), shas.deep);
    assert.equal(found.get('vendor'), shas.submoduleMoved);
    assert.equal(found.get('side.txt'), shas.side);
    assert.equal(found.get('conflict.txt'), shas.evil);
    assert.equal(found.get('LICENSE'), shas.root);
  });

  it('answers for entries of a sub-directory, a submodule itself, and names git quotes', async () => {
    const head = headSha();
    const paths = [...entriesOf(head, 'dir'), ...entriesOf(head, 'vendor'), ...entriesOf(head, 'odd')];
    assert.equal(paths.length, 2 + 1 + WEIRD.length);
    const found = await lastCommitsFor(bare, head, paths);
    for (const p of paths) assert.equal(found.get(p), oracle(head, p), p);
    assert.equal(found.get('dir/a'), shas.deep);
    assert.equal(found.get('dir/top.txt'), shas.root);
    assert.equal(found.get('vendor/lib'), shas.submoduleMoved);
    for (const name of WEIRD) assert.equal(found.get(`odd/${name}`), shas.weird, name);
  });

  it('at an older commit, sees only the history behind it', async () => {
    const found = await lastCommitsFor(bare, shas.rename, ['new.txt', 'vendor', 'dir', 'LICENSE']);
    assert.deepEqual(Object.fromEntries(found), { 'new.txt': shas.rename, vendor: shas.submodule, dir: shas.root, LICENSE: shas.root });
  });

  it('reads at most the commits it is allowed: an entry older than them has no answer', async () => {
    const found = await lastCommitsFor(bare, shas.deep, ['LICENSE', 'docs', 'dir'], 50);
    assert.deepEqual(Object.fromEntries(found), { docs: oracle(shas.deep, 'docs'), dir: shas.deep });
  });

  it('asked again at the same commit, answers from memory without running git', async () => {
    const head = headSha();
    const paths = entriesOf(head, '');
    const first = await lastCommitsFor(bare, head, paths);
    const { spawned, result } = await spawnsDuring(() => lastCommitsFor(bare, head, paths));
    assert.deepEqual(spawned, []);
    assert.deepEqual(result, first);
  });
});
