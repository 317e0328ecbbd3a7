// GET /projects/:id/languages and project statistics: computed from the default branch, cached,
// and refreshed by the repository_refresh job after a push.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { actorOf, jobsOf, refSha, setRef, writeCommit } from '../helpers/repository.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { publishRefChanges } from '../../src/domain/repository/ref_changes.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { REPOSITORY_REFRESH_JOB } from '../../src/domain/repository/statistics.js';
import { languageOf, languageShares } from '../../src/git/languages.js';
import { repositorySize } from '../../src/git/repository.js';

const FILES = {
  'src/app.ts': 't'.repeat(3000),
  'lib/tool.py': 'p'.repeat(1000),
  'web/style.css': 'c'.repeat(500),
  'README.md': 'm'.repeat(9000), // prose: not a language
  'package.json': 'j'.repeat(9000), // data
  'vendor/lib.js': 'v'.repeat(9000), // vendored
  'node_modules/x/index.js': 'n'.repeat(9000),
  'docs/example.rb': 'd'.repeat(9000), // documentation
  'logo.png': 'b'.repeat(9000), // unknown: binary
};

for (const dialect of DIALECTS) {
  describe(`repository languages and statistics (${dialect})`, () => {
    let t: TestApp;
    let root: any;
    before(async () => {
      t = await buildTestApp(dialect);
      root = (await t.get('/api/v4/user')).body;
    });
    after(async () => t.close());

    /** Runs queued repository refreshes, as a node's workers would. */
    async function runRefreshes() {
      const queue = testQueue(t.c.db);
      registerBackgroundJobs({ ...t.c, queue }, [REPOSITORY_REFRESH_JOB]);
      queue.start();
      try {
        await waitFor('refreshes to finish', async () => {
          const left = await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', 'repository_refresh').where('state', 'in', ['queued', 'running']).execute();
          return left.length === 0;
        });
      } finally {
        await queue.stop();
      }
    }

    async function pushCommit(projectId: number, message: string, files: Record<string, string>) {
      const old = await refSha(t, projectId, 'refs/heads/main');
      const sha = await writeCommit(t, projectId, old, message, files);
      await setRef(t, projectId, 'refs/heads/main', sha);
      await publishRefChanges(t.c, await actorOf(t, root.id), (await findProjectById(t.c.db, projectId))!, [
        { ref: 'refs/heads/main', oldSha: old, newSha: sha, force: false },
      ]);
    }

    it('languages: shares of the default branch, largest first, rounded to 2 decimals; ignored paths do not count', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'langs', initialize_with_readme: true, visibility: 'private' });
      await pushCommit(p.id, 'Code', FILES);
      const r = await t.get(`/api/v4/projects/${p.id}/languages`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(Object.entries(r.body), [['TypeScript', 66.67], ['Python', 22.22], ['CSS', 11.11]]);
      // Another branch does not count.
      const base = await refSha(t, p.id, 'refs/heads/main');
      await setRef(t, p.id, 'refs/heads/other', await writeCommit(t, p.id, base, 'Go', { 'main.go': 'g'.repeat(99999) }));
      assert.deepEqual(Object.keys((await t.get(`/api/v4/projects/${p.id}/languages`)).body), ['TypeScript', 'Python', 'CSS']);
    });

    it('languages: cached, refreshed by the job a push queues', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'langs-refresh', initialize_with_readme: true });
      await pushCommit(p.id, 'Ruby', { 'a.rb': 'r'.repeat(100) });
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/languages`)).body, { Ruby: 100 });
      await pushCommit(p.id, 'Go too', { 'a.rb': 'r'.repeat(100), 'b.go': 'g'.repeat(300) });
      // Until the job runs, the cached answer stands.
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/languages`)).body, { Ruby: 100 });
      await runRefreshes();
      assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/languages`)).body, { Go: 75, Ruby: 25 });
    });

    it('languages: {} for an empty repository; 404 for a project the caller cannot see', async () => {
      const empty = await makeProject(t, t.rootToken, { name: 'langs-empty', visibility: 'public' });
      const r = await t.get(`/api/v4/projects/${empty.id}/languages`, null);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {});
      const priv = await makeProject(t, t.rootToken, { name: 'langs-private', initialize_with_readme: true, visibility: 'private' });
      const stranger = await t.createUser();
      for (const token of [stranger.token, null]) {
        const x = await t.get(`/api/v4/projects/${priv.id}/languages`, token);
        assert.equal(x.status, 404);
        assert.deepEqual(x.body, { message: '404 Project Not Found' });
      }
      assert.equal((await t.get('/api/v4/projects/999999/languages')).status, 404);
    });

    it('statistics: commit count and repository size for reporters and above, refreshed after pushes', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'stats', initialize_with_readme: true, visibility: 'public' });
      const reporter = await t.createUser();
      const guest = await t.createUser();
      await addMember(t, 'Project', p.id, reporter.id, 20);
      await addMember(t, 'Project', p.id, guest.id, 10);
      const stats = async (token: string) => (await t.get(`/api/v4/projects/${p.id}?statistics=true`, token)).body.statistics;

      const first = await stats(reporter.token);
      assert.deepEqual(keysOf(first), [
        'commit_count', 'job_artifacts_size', 'lfs_objects_size', 'packages_size', 'pipeline_artifacts_size',
        'repository_size', 'snippets_size', 'storage_size', 'uploads_size', 'wiki_size',
      ]);
      assert.equal(first.commit_count, 1);
      assert.equal(first.repository_size, repositorySize(repositoryDir(t.c, p.id)));
      assert.ok(first.repository_size > 0);
      assert.equal(first.storage_size, first.repository_size);
      assert.equal(first.wiki_size, 0);
      assert.equal(await stats(guest.token), undefined);
      assert.equal((await t.get(`/api/v4/projects/${p.id}?statistics=true`, null)).body.statistics, undefined);

      await pushCommit(p.id, 'Two', { 'x.ts': 'a' });
      await pushCommit(p.id, 'Three', { 'x.ts': 'b' });
      assert.equal((await stats(reporter.token)).commit_count, 1); // cached until the refresh runs
      await runRefreshes();
      const later = await stats(t.rootToken);
      assert.equal(later.commit_count, 3);
      assert.equal(later.repository_size, repositorySize(repositoryDir(t.c, p.id)));
      assert.ok(later.repository_size > first.repository_size);
    });

    it('statistics in a project list: cached figures, the missing ones queued rather than computed', async () => {
      const a = await makeProject(t, t.rootToken, { name: 'stats-list-a', initialize_with_readme: true });
      const b = await makeProject(t, t.rootToken, { name: 'stats-list-b', initialize_with_readme: true });
      const list = async () =>
        ((await t.get('/api/v4/projects?statistics=true&owned=true&search=stats-list&order_by=id&sort=asc')).body as any[]).map((x) => [x.id, x.statistics.commit_count]);
      assert.deepEqual(await list(), [[a.id, 0], [b.id, 0]]);
      await runRefreshes();
      assert.deepEqual(await list(), [[a.id, 1], [b.id, 1]]);
    });

    it('the refresh job writes the commit-graph that commit lists walk, and they answer as git log does', async () => {
      const p = await makeProject(t, t.rootToken, { name: 'graph', initialize_with_readme: true });
      const dir = repositoryDir(t.c, p.id);
      const graph = path.join(dir, 'objects', 'info', 'commit-graph');
      await pushCommit(p.id, 'One', { 'a.txt': '1' });
      // a side line merged back: topological order differs from date order
      const base = await refSha(t, p.id, 'refs/heads/main');
      const side = await writeCommit(t, p.id, base, 'Side', { 'a.txt': '1', 'b.txt': 'side' });
      await pushCommit(p.id, 'Two', { 'a.txt': '2' });
      const merge = await writeCommit(t, p.id, await refSha(t, p.id, 'refs/heads/main'), 'Merge', { 'a.txt': '2', 'b.txt': 'side' }, [side]);
      await setRef(t, p.id, 'refs/heads/main', merge);
      assert.equal(fs.existsSync(graph), false);
      await runRefreshes();
      assert.ok(fs.existsSync(graph), 'the job wrote the commit-graph');
      execFileSync('git', ['--git-dir', dir, 'commit-graph', 'verify']);
      for (const query of ['', '?order=topo', '?path=b.txt', '?order=topo&path=a.txt', '?page=2&per_page=2']) {
        const r = await t.get(`/api/v4/projects/${p.id}/repository/commits${query}`);
        assert.equal(r.status, 200, r.text);
        const q = new URLSearchParams(query);
        const args = ['--git-dir', dir, 'log', '--format=%H'];
        if (q.get('order') === 'topo') args.push('--topo-order');
        if (q.get('page')) args.push('--skip=2', '--max-count=2');
        args.push('main', '--');
        if (q.get('path')) args.push(q.get('path')!);
        assert.deepEqual(
          (r.body as any[]).map((c) => c.id),
          execFileSync('git', args).toString().split('\n').filter(Boolean),
          query,
        );
      }
      // a repository without one (older than this release) gets one after its first commit list
      fs.rmSync(graph);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/repository/commits?path=a.txt`)).status, 200);
      assert.ok((await jobsOf(t, 'repository_refresh')).some((j) => j.payload.projectId === p.id && j.state === 'queued'));
      await runRefreshes();
      assert.ok(fs.existsSync(graph));
    });

    it('language detection: by file name and extension; vendored and documentation paths are skipped', () => {
      assert.equal(languageOf('Makefile'), 'Makefile');
      assert.equal(languageOf('src/Main.JAVA'), 'Java');
      assert.equal(languageOf('x/vendor/a.c'), null);
      assert.equal(languageOf('app.min.js'), null);
      assert.equal(languageOf('.bashrc'), null);
      assert.deepEqual(languageShares([{ path: 'a.c', size: 1 }, { path: 'b.h', size: 1 }, { path: 'c.py', size: 1 }]), [['C', 66.67], ['Python', 33.33]]);
      assert.deepEqual(languageShares([]), []);
    });
  });
}
