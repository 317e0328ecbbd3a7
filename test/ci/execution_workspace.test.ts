// Job workspaces (src/ci/runner/workspace.ts): a checkout of one commit from a bare repository.
// No database involved, so this runs once rather than per dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareWorkspace, removeWorkspace } from '../../src/ci/runner/workspace.js';

let tmp: string;
let bare: string;
let first: string;
let second: string;

function sh(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmp, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-ws-test-'));
  const work = path.join(tmp, 'work');
  fs.mkdirSync(work);
  sh(work, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(work, 'README.md'), 'one\n');
  fs.mkdirSync(path.join(work, 'src'));
  fs.writeFileSync(path.join(work, 'src', 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
  sh(work, 'add', '.');
  sh(work, 'commit', '-q', '-m', 'first');
  first = sh(work, 'rev-parse', 'HEAD');
  fs.writeFileSync(path.join(work, 'README.md'), 'two\n');
  sh(work, 'commit', '-q', '-am', 'second');
  second = sh(work, 'rev-parse', 'HEAD');
  bare = path.join(tmp, 'repo.git');
  sh(tmp, 'clone', '-q', '--bare', work, bare);
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('prepareWorkspace', () => {
  it('checks out the commit with a detached HEAD and a .git', async () => {
    const dir = path.join(tmp, 'builds', 'job-1');
    await prepareWorkspace({ repoDir: bare, sha: second, dir });
    assert.equal(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), 'two\n');
    assert.equal(fs.statSync(path.join(dir, 'src', 'run.sh')).mode & 0o111, 0o111, 'executable bit kept');
    assert.equal(sh(dir, 'rev-parse', 'HEAD'), second);
    assert.equal(fs.readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim(), second, 'detached');
    assert.equal(sh(dir, 'status', '--porcelain'), '');
    assert.equal(sh(dir, 'remote'), '', 'the server path is not left as origin');
  });

  it('checks out an older commit and removes leftovers of an earlier run', async () => {
    const dir = path.join(tmp, 'builds', 'job-2');
    fs.mkdirSync(path.join(dir, 'stale', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'stale', 'deep', 'file'), 'x');
    fs.chmodSync(path.join(dir, 'stale'), 0o500); // a job made it read-only
    await prepareWorkspace({ repoDir: bare, sha: first, dir });
    assert.equal(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), 'one\n');
    assert.ok(!fs.existsSync(path.join(dir, 'stale')));
    assert.equal(sh(dir, 'log', '--format=%s'), 'first');
  });

  it('sets origin when given a remote URL', async () => {
    const dir = path.join(tmp, 'builds', 'job-3');
    await prepareWorkspace({ repoDir: bare, sha: first, dir, remoteUrl: 'http://gitlab-ci-token:tok@anvil.test/g/p.git' });
    assert.equal(sh(dir, 'remote', 'get-url', 'origin'), 'http://gitlab-ci-token:tok@anvil.test/g/p.git');
  });

  it('does not touch the source repository', async () => {
    const before = sh(bare, 'for-each-ref', '--format=%(refname) %(objectname)');
    await prepareWorkspace({ repoDir: bare, sha: second, dir: path.join(tmp, 'builds', 'job-4') });
    assert.equal(sh(bare, 'for-each-ref', '--format=%(refname) %(objectname)'), before);
  });

  it('rejects a commit that is not there, and a value that is not a commit id', async () => {
    await assert.rejects(prepareWorkspace({ repoDir: bare, sha: '0'.repeat(40), dir: path.join(tmp, 'builds', 'job-5') }));
    await assert.rejects(prepareWorkspace({ repoDir: bare, sha: '--upload-pack=touch /tmp/x', dir: path.join(tmp, 'builds', 'job-6') }), /not a commit id/);
    await assert.rejects(prepareWorkspace({ repoDir: bare, sha: 'main', dir: path.join(tmp, 'builds', 'job-7') }), /not a commit id/);
  });
});

describe('removeWorkspace', () => {
  it('removes the workspace, read-only directories included, and accepts a missing one', async () => {
    const dir = path.join(tmp, 'builds', 'job-8');
    await prepareWorkspace({ repoDir: bare, sha: second, dir });
    fs.mkdirSync(path.join(dir, 'ro', 'inner'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'ro', 'inner', 'f'), 'x');
    fs.chmodSync(path.join(dir, 'ro', 'inner'), 0o500);
    fs.chmodSync(path.join(dir, 'ro'), 0o500);
    await removeWorkspace(dir);
    assert.ok(!fs.existsSync(dir));
    await removeWorkspace(dir);
  });
});
