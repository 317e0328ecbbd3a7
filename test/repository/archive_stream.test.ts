// A large repository's archive streams: the response starts while git is still writing it (git
// waits on the reader), and the server's memory stays flat however large the archive is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { listeningTestApp } from '../helpers/git.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { git, gitText } from '../../src/git/git.js';

const FILES = 16;
const FILE_SIZE = 4 * 1024 * 1024; // 64 MiB of incompressible content in all

/** Is a `git archive` running in this repository now? */
function archiving(dir: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', `git --git-dir=${dir} .*archive`]).toString().trim() !== '';
  } catch {
    return false;
  }
}

for (const dialect of DIALECTS) {
  describe(`archive streaming (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let p: any;
    let dir: string;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      p = await makeRepoProject(t, { path: 'big' });
      dir = repositoryDir(t.c, p.id);
      // Written straight into the repository, one random file at a time.
      const lines: string[] = [];
      for (let i = 0; i < FILES; i++) {
        const sha = await gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: crypto.randomBytes(FILE_SIZE) });
        lines.push(`100644 blob ${sha}\tblob-${i}.bin`);
      }
      const tree = await gitText(['mktree'], { gitDir: dir, input: lines.join('\n') + '\n' });
      const parent = await gitText(['rev-parse', 'main'], { gitDir: dir });
      const commit = await gitText(['commit-tree', tree, '-p', parent, '-m', 'big'], {
        gitDir: dir,
        env: { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' },
      });
      await git(['update-ref', 'refs/heads/main', commit, parent], { gitDir: dir });
    });
    after(async () => t.close());

    it('the first bytes arrive while git is still writing; memory stays flat to the last byte', async () => {
      global.gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      let total = 0;
      let gitWhenPaused = false;
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${url}/api/v4/projects/${p.id}/repository/archive.tar`, { headers: { 'private-token': t.rootToken } }, (res) => {
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers['content-type'], 'application/octet-stream');
          assert.equal(res.headers['content-length'], undefined);
          let paused = false;
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            peak = Math.max(peak, process.memoryUsage().rss);
            if (!paused) {
              // hold the reader: a streaming server leaves git waiting; a buffering one lets it finish
              paused = true;
              res.pause();
              setTimeout(() => {
                gitWhenPaused = archiving(dir);
                res.resume();
              }, 500);
            }
          });
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
      });
      assert.ok(total > FILES * FILE_SIZE, `the whole archive came: ${total} bytes`);
      assert.ok(gitWhenPaused, 'git was still writing the archive after the response had started');
      const growth = peak - baseline;
      assert.ok(growth < 32 * 1024 * 1024, `memory grew by ${Math.round(growth / 1048576)} MiB for a ${Math.round(total / 1048576)} MiB archive`);
      assert.equal(archiving(dir), false, 'no git left behind');
    });
  });
}
