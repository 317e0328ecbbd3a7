// Reads through the long-lived cat-file of a repository: answers stay paired with their requests
// under concurrency, a commit list walks in git log's own order, refs moved by others show at
// once, and the process goes away with the repository or when it dies (the next read starts one).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readObject } from '../../src/git/cat_file.js';
import { closeGitProcesses } from '../../src/git/long_lived.js';
import { git, gitText } from '../../src/git/git.js';
import { logCommits } from '../../src/git/log.js';
import { blobAt, listTree, readBlob, readCommit } from '../../src/git/objects.js';
import { initBare, removeRepository } from '../../src/git/repository.js';

const FIELDS = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'];

/** cat-file processes started for `dir`. */
function readersOf(dir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args=']).toString();
  return out
    .split('\n')
    .filter((l) => l.includes(`--git-dir=${dir} `) && l.includes('cat-file --batch-command'))
    .map((l) => Number(l.trim().split(' ')[0]));
}

describe('object reads through cat-file', () => {
  let tmp: string;
  let dir: string;
  let main: string;
  let first: string;

  /** A commit of `files` on `parents` at committer time `t` (seconds) in time zone `tz`. */
  async function commit(files: Record<string, string>, parents: string[], message: string, t: number, tz = '+0000'): Promise<string> {
    const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
    await git(['read-tree', '--empty'], { gitDir: dir, env });
    for (const [p, content] of Object.entries(files)) {
      const blob = await gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: content });
      await git(['update-index', '--add', '--cacheinfo', `${p.endsWith('.sh') ? '100755' : '100644'},${blob},${p}`], { gitDir: dir, env });
    }
    const tree = await gitText(['write-tree'], { gitDir: dir, env });
    const who = { GIT_AUTHOR_NAME: 'Ädä', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@x' };
    const dates = { GIT_AUTHOR_DATE: `${t - 7} ${tz}`, GIT_COMMITTER_DATE: `${t} ${tz}` };
    return gitText(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message], { gitDir: dir, env: { ...who, ...dates } });
  }

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-cat-file-'));
    dir = path.join(tmp, 'r.git');
    await initBare(dir, 'main');
    const t0 = 1_700_000_000;
    const root = await commit({ 'README.md': 'hi\n', 'd/x.txt': 'x', 'd/e/run.sh': 'y' }, [], 'root', t0);
    first = root;
    // Two lines with equal times and mixed zones, merged twice: the walk order's hard cases.
    let a = root;
    let b = root;
    for (let i = 0; i < 6; i++) {
      a = await commit({ 'README.md': `a ${i}\n` }, [a], `a ${i}\n\nbody ünï`, t0 + 100 + (i % 3) * 10, i % 2 ? '-0730' : '+0530');
      b = await commit({ 'README.md': `b ${i}` }, [b], `b ${i}`, t0 + 100 + (i % 3) * 10);
    }
    const merge = await commit({ 'README.md': 'merged' }, [a, b], 'merge\n', t0 + 500);
    main = await commit({ 'README.md': 'after', 'd/x.txt': 'x' }, [merge, root], '', t0 + 400);
    await git(['update-ref', 'refs/heads/main', main], { gitDir: dir });
    await git(['tag', '-a', 'v1', '-m', 'tag', b], { gitDir: dir, env: { GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@x' } });
  });
  after(() => {
    closeGitProcesses(dir);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists commits as git log does, page by page, from a branch, a tag or a short sha', async () => {
    const log = async (rev: string, skip: number, n: number) =>
      (await git(['log', `--format=%x1e${FIELDS.join('%x1f')}`, `--skip=${skip}`, `--max-count=${n}`, rev, '--'], { gitDir: dir })).stdout.toString();
    const shown = (cs: Awaited<ReturnType<typeof logCommits>>) =>
      cs
        .map((c) => `\x1e${[c.id, c.parentIds.join(' '), c.authorName, c.authorEmail, c.authoredDate, c.committerName, c.committerEmail, c.committedDate, c.message].join('\x1f')}\n`)
        .join('');
    for (const rev of ['main', 'v1', 'HEAD', main.slice(0, 10)]) {
      for (const [skip, n] of [
        [0, 100],
        [0, 3],
        [4, 5],
      ]) {
        assert.equal(shown(await logCommits(dir, { rev, skip, limit: n })), await log(rev, skip, n), `${rev} ${skip} ${n}`);
      }
    }
    assert.deepEqual(await logCommits(dir, { rev: 'nope', skip: 0, limit: 20 }), []);
  });

  it('pairs every answer with its request when many are in flight', async () => {
    const shas = (await gitText(['rev-list', 'main'], { gitDir: dir })).split('\n');
    const reads = await Promise.all([...shas, ...shas].map((s) => readObject(dir, s)));
    assert.deepEqual(
      reads.map((r) => r?.sha),
      [...shas, ...shas],
    );
    const blob = (await blobAt(dir, first, 'd/e/run.sh'))!;
    assert.deepEqual({ mode: blob.mode, size: blob.size }, { mode: '100755', size: 1 });
    assert.equal((await readBlob(dir, blob.sha)).toString(), 'y');
    assert.equal(await blobAt(dir, first, 'd/e'), null);
    assert.equal(await listTree(dir, main, 'd/x.txt', false), null);
    assert.deepEqual(
      (await listTree(dir, first, 'd', true))!.map((e) => `${e.type} ${e.path}`),
      ['tree d/e', 'blob d/e/run.sh', 'blob d/x.txt'],
    );
    assert.equal(readersOf(dir).length, 1);
  });

  it('sees refs moved by others at once', async () => {
    const parent = (await readCommit(dir, 'main'))!.parentIds[0];
    await git(['update-ref', 'refs/heads/main', parent], { gitDir: dir });
    assert.equal((await readCommit(dir, 'main'))!.id, parent);
    await git(['pack-refs', '--all', '--prune'], { gitDir: dir });
    await git(['update-ref', 'refs/heads/main', main], { gitDir: dir });
    assert.equal((await readCommit(dir, 'main'))!.id, main);
    await git(['update-ref', '-d', 'refs/heads/main'], { gitDir: dir });
    assert.equal(await readCommit(dir, 'main'), null);
    await git(['update-ref', 'refs/heads/main', main], { gitDir: dir });
  });

  it('starts again after its process died, and stops with its repository', async () => {
    const [pid] = readersOf(dir);
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await readCommit(dir, 'main'))!.id, main);
    assert.equal(readersOf(dir).length, 1);
    const copy = path.join(tmp, 'copy.git');
    fs.cpSync(dir, copy, { recursive: true });
    assert.equal((await readCommit(copy, 'main'))!.id, main);
    removeRepository(copy);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(readersOf(copy), []);
  });
});
