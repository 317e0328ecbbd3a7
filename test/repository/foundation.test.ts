// Every project owns a real bare repository: created with it, seeded with a README when asked,
// copied for forks, removed with the project.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { runDueProjectJobs } from '../helpers/project_jobs.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { refreshRepositoryStatistics } from '../../src/domain/repository/statistics.js';
import { gitText, safeArg } from '../../src/git/git.js';

for (const dialect of DIALECTS) {
  describe(`repository foundation (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    it('a project with initialize_with_readme has a bare repository with one README commit on its default branch', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'seeded', initialize_with_readme: true, default_branch: 'trunk' });
      const dir = repositoryDir(t.c, p.id);
      assert.equal(await gitText(['rev-parse', '--is-bare-repository'], { gitDir: dir }), 'true');
      assert.equal(await gitText(['symbolic-ref', 'HEAD'], { gitDir: dir }), 'refs/heads/trunk');
      assert.equal(await gitText(['rev-list', '--count', 'trunk'], { gitDir: dir }), '1');
      assert.equal(await gitText(['log', '-1', '--format=%s|%an', 'trunk'], { gitDir: dir }), 'Initial commit|Administrator');
      assert.match(await gitText(['show', 'trunk:README.md'], { gitDir: dir }), /^# seeded/);
    });

    it('a project without it has an empty repository; deleting the project removes the repository', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'empty' });
      const dir = repositoryDir(t.c, p.id);
      assert.equal(await gitText(['for-each-ref'], { gitDir: dir }), '');
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}`)).status, 202);
      assert.equal(fs.existsSync(dir), false);
    });

    it("a fork's repository is a copy of its source's", async () => {
      const src = await makeProject(t, t.rootToken, { name: 'forksrc', initialize_with_readme: true, visibility: 'public' });
      const u = await t.createUser();
      const fork = await t.request('POST', `/api/v4/projects/${src.id}/fork`, { token: u.token });
      assert.equal(fork.status, 201, fork.text);
      await runDueProjectJobs(t);
      const head = (id: number) => gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, id) });
      assert.equal(await head(fork.body.id), await head(src.id));
      assert.equal((await t.get(`/api/v4/projects/${fork.body.id}`, u.token)).body.import_status, 'finished');
    });

    it('the repository refresh job packs loose refs (branch listings stay fast with many branches)', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'packme', initialize_with_readme: true });
      for (const name of ['a', 'b', 'c']) {
        assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { body: { branch: name, ref: 'main' } })).status, 201);
      }
      const dir = repositoryDir(t.c, p.id);
      const loose = () => fs.readdirSync(path.join(dir, 'refs', 'heads'));
      assert.ok(loose().length >= 3);
      await refreshRepositoryStatistics(t.c, p.id);
      assert.deepEqual(loose(), []);
      assert.match(fs.readFileSync(path.join(dir, 'packed-refs'), 'utf8'), /refs\/heads\/b$/m);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/branches`)).body.length, 4);
    });

    it('the git wrapper refuses values that git would read as options', () => {
      assert.throws(() => safeArg('--upload-pack=evil', 'branch'), /may not start with "-"/);
      assert.equal(safeArg('feature/x', 'branch'), 'feature/x');
    });
  });
}
