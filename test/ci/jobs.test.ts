// The jobs API: Job and Bridge shapes, the lists and their filters, one job, its log, cancel,
// retry, erase, play, and who may do what. Pipelines are made from hand-built plans through
// state.createPipelineRecords and jobs driven through state.ts (the runner is off in tests).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findCiJob } from '../../src/db/repos/ci_jobs.js';
import { findProjectById, type ProjectRow } from '../../src/db/repos/projects.js';
import { storeArtifact } from '../../src/domain/ci/artifacts.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';
import { decryptSecret } from '../../src/domain/shared/encryption.js';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { BRIDGE_KEYS, COMMIT_KEYS, JOB_KEYS, PIPELINE_KEYS, RUNNER_KEYS, SHA, USER_KEYS, plannedJob, seedPipeline } from './jobs_fixtures.js';

/** The pipeline's jobs by name (newest of each name). */
async function jobsOf(t: TestApp, pipelineId: number): Promise<Record<string, any>> {
  const rows = await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();
  return Object.fromEntries(rows.map((r) => [r.name, r]));
}

/** Runs a pending job to the given end through state.ts, as the runner would. */
async function runJob(t: TestApp, jobId: number, status: 'success' | 'failed' = 'success'): Promise<void> {
  const started = await startJob(t.c, jobId);
  assert.ok(started, `job ${jobId} could not start`);
  await finishJob(t.c, jobId, { status, exitCode: status === 'success' ? 0 : 1 });
}

for (const dialect of DIALECTS) {
  describe(`jobs API (${dialect})`, () => {
    let t: TestApp;
    let dev: { id: number; username: string; token: string };
    let dev2: { id: number; username: string; token: string };
    let maintainer: { id: number; username: string; token: string };
    let reporter: { id: number; username: string; token: string };
    let guest: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };

    before(async () => {
      t = await buildTestApp(dialect);
      dev = await t.createUser({ extra: { bio: 'builds things' } });
      dev2 = await t.createUser();
      maintainer = await t.createUser();
      reporter = await t.createUser();
      guest = await t.createUser();
      outsider = await t.createUser();
      // No default branch protection: the ref rule has a test of its own.
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    /** A project (private, without public_jobs, unless told) with the users above as members. */
    async function project(body: Record<string, unknown> = {}): Promise<{ api: any; row: ProjectRow }> {
      const api = await makeProject(t, t.rootToken, { name: `p${Math.random().toString(36).slice(2, 8)}`, public_jobs: false, ...body });
      await addMember(t, 'Project', api.id, dev.id, 30);
      await addMember(t, 'Project', api.id, dev2.id, 30);
      await addMember(t, 'Project', api.id, maintainer.id, 40);
      await addMember(t, 'Project', api.id, reporter.id, 20);
      await addMember(t, 'Project', api.id, guest.id, 10);
      return { api, row: (await findProjectById(t.c.db, api.id))! };
    }

    it('presents a job in the exact Job shape, with commit, pipeline, user and runner', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('unit', { tags: ['zeta', 'alpha'] })], { userId: dev.id });
      const { unit } = await jobsOf(t, p.id);
      assert.equal(unit.status, 'pending');

      const r = await t.get(`/api/v4/projects/${api.id}/jobs/${unit.id}`, reporter.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      const j = r.body;
      assert.deepEqual(keysOf(j), JOB_KEYS);
      assert.equal(j.id, unit.id);
      assert.equal(j.status, 'pending');
      assert.equal(j.stage, 'test');
      assert.equal(j.name, 'unit');
      assert.equal(j.ref, 'main');
      assert.equal(j.tag, false);
      assert.equal(j.allow_failure, false);
      assert.equal(j.coverage, null);
      assert.equal(j.started_at, null);
      assert.equal(j.finished_at, null);
      assert.equal(j.duration, null);
      assert.equal(j.runner, null);
      assert.deepEqual(j.artifacts, []);
      assert.equal(j.artifacts_expire_at, null);
      assert.deepEqual(j.tag_list, ['alpha', 'zeta']);
      assert.equal(j.web_url, `${EXTERNAL_URL}/${api.path_with_namespace}/-/jobs/${unit.id}`);
      assert.deepEqual(keysOf(j.commit), COMMIT_KEYS);
      assert.deepEqual(j.commit, {
        id: SHA,
        short_id: SHA.slice(0, 8),
        created_at: '2024-01-02T03:04:05.000Z',
        title: 'Add CI',
        message: 'Add CI\n\nwith a body\n',
        author_name: 'Ada Author',
        author_email: 'ada@example.com',
      });
      assert.deepEqual(keysOf(j.pipeline), PIPELINE_KEYS);
      assert.equal(j.pipeline.id, p.id);
      assert.equal(j.pipeline.iid, p.iid);
      assert.equal(j.pipeline.project_id, api.id);
      assert.equal(j.pipeline.sha, SHA);
      assert.equal(j.pipeline.source, 'api');
      assert.equal(j.pipeline.web_url, `${EXTERNAL_URL}/${api.path_with_namespace}/-/pipelines/${p.id}`);
      assert.deepEqual(keysOf(j.user), USER_KEYS);
      assert.equal(j.user.id, dev.id);
      assert.equal(j.user.username, dev.username);
      assert.equal(j.user.web_url, `${EXTERNAL_URL}/${dev.username}`);
      assert.equal(j.user.bio, 'builds things');

      // Running: the built-in runner and the times; failed: failure_reason appears.
      await startJob(t.c, unit.id);
      const running = (await t.get(`/api/v4/projects/${api.id}/jobs/${unit.id}`, reporter.token)).body;
      assert.equal(running.status, 'running');
      assert.ok(running.started_at);
      assert.equal(typeof running.queued_duration, 'number');
      assert.deepEqual(keysOf(running.runner), RUNNER_KEYS);
      assert.equal(running.runner.id, 1);
      assert.equal(running.runner.runner_type, 'instance_type');
      assert.equal(running.runner.is_shared, true);
      await finishJob(t.c, unit.id, { status: 'failed', exitCode: 1 });
      const failed = (await t.get(`/api/v4/projects/${api.id}/jobs/${unit.id}`, reporter.token)).body;
      assert.deepEqual(keysOf(failed), [...JOB_KEYS, 'failure_reason'].sort());
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failure_reason, 'script_failure');
      assert.ok(failed.finished_at);
      assert.equal(typeof failed.duration, 'number');
    });

    it('shows artifacts, and artifacts_file only when an archive exists', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('build')]);
      const { build } = await jobsOf(t, p.id);
      await runJob(t, build.id);
      await storeArtifact(t.c, build, { fileType: 'junit', filename: 'junit.xml.gz', body: Buffer.from('x'.repeat(7)), expireAt: null });
      let j = (await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}`)).body;
      assert.equal(j.artifacts_file, undefined);
      assert.deepEqual(j.artifacts, [{ file_type: 'junit', size: 7, filename: 'junit.xml.gz', file_format: 'gzip' }]);
      await storeArtifact(t.c, build, { fileType: 'archive', filename: 'artifacts.zip', body: Buffer.from('zipzip'), expireAt: null });
      j = (await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}`)).body;
      assert.deepEqual(keysOf(j), [...JOB_KEYS, 'artifacts_file'].sort());
      assert.deepEqual(j.artifacts_file, { filename: 'artifacts.zip', size: 6 });
      assert.deepEqual(j.artifacts.map((a: any) => a.file_type).sort(), ['archive', 'junit']);
    });

    it('downloads the artifacts archive to readers; 404 without one; hidden from others', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('build'), plannedJob('bare')]);
      const { build, bare } = await jobsOf(t, p.id);
      await runJob(t, build.id);
      const zip = Buffer.from('PK\x05\x06'.padEnd(22, '\0'), 'binary');
      await storeArtifact(t.c, build, { fileType: 'archive', filename: 'artifacts.zip', body: zip, expireAt: null });
      const r = await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}/artifacts`, reporter.token);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/zip');
      assert.equal(r.headers['content-length'], String(zip.length));
      assert.equal(r.headers['content-disposition'], `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`);
      assert.deepEqual(Buffer.from(r.text, 'latin1').subarray(0, 4), zip.subarray(0, 4));
      const none = await t.get(`/api/v4/projects/${api.id}/jobs/${bare.id}/artifacts`, reporter.token);
      assert.deepEqual([none.status, none.body], [404, { message: '404 Not Found' }]);
      const unknown = await t.get(`/api/v4/projects/${api.id}/jobs/999999/artifacts`, reporter.token);
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}/artifacts`, guest.token)).status, 403);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}/artifacts`, outsider.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${build.id}/artifacts`, null)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/abc/artifacts`, reporter.token)).status, 400);
    });

    it('downloads a byte range of the archive: 206 with Content-Range, the last bytes, 416 past the end', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('build')]);
      const { build } = await jobsOf(t, p.id);
      await runJob(t, build.id);
      const zip = Buffer.from('PK\x03\x04 entries PK\x05\x06'.padEnd(40, '\0'), 'binary');
      await storeArtifact(t.c, build, { fileType: 'archive', filename: 'artifacts.zip', body: zip, expireAt: null });
      const url = `/api/v4/projects/${api.id}/jobs/${build.id}/artifacts`;
      const ranged = (range: string, token: string | null = reporter.token) => t.request('GET', url, { token, headers: { range } });
      const bytes = (r: { text: string }) => Buffer.from(r.text, 'latin1');

      const whole = await t.get(url, reporter.token);
      assert.equal(whole.headers['accept-ranges'], 'bytes');
      const first = await ranged('bytes=0-3');
      assert.equal(first.status, 206);
      assert.equal(first.headers['content-range'], `bytes 0-3/${zip.length}`);
      assert.equal(first.headers['content-length'], '4');
      assert.equal(first.headers['content-type'], 'application/zip');
      assert.deepEqual(bytes(first), zip.subarray(0, 4));
      const last = await ranged('bytes=-22');
      assert.equal(last.status, 206);
      assert.equal(last.headers['content-range'], `bytes ${zip.length - 22}-${zip.length - 1}/${zip.length}`);
      assert.deepEqual(bytes(last), zip.subarray(zip.length - 22));
      const clipped = await ranged(`bytes=10-${zip.length + 100}`);
      assert.equal(clipped.headers['content-range'], `bytes 10-${zip.length - 1}/${zip.length}`);
      assert.deepEqual(bytes(clipped), zip.subarray(10));
      // Not a single byte range: the whole archive, as a server may answer
      for (const ignored of ['bytes=5-2', 'bytes=0-1,4-5', 'lines=1-2']) {
        const r = await ranged(ignored);
        assert.deepEqual([r.status, bytes(r).length], [200, zip.length], ignored);
      }
      const past = await ranged(`bytes=${zip.length}-`);
      assert.equal(past.status, 416);
      assert.equal(past.headers['content-range'], `bytes */${zip.length}`);
      assert.equal(past.text, '416 Range Not Satisfiable');
      // A range changes nothing about who may read it
      assert.equal((await ranged('bytes=0-3', outsider.token)).status, 404);
      assert.equal((await ranged('bytes=0-3', null)).status, 404);
      assert.equal((await ranged('bytes=0-3', guest.token)).status, 403);
    });

    it('lists project jobs newest first, retried ones included, bridges not; filters by scope', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [
        plannedJob('a'),
        plannedJob('b'),
        plannedJob('m', { when: 'manual' }),
        plannedJob('trig', { type: 'bridge', when: 'manual', trigger: { include: ['child.yml'], project: null, branch: null, strategy: null } }),
      ]);
      const jobs = await jobsOf(t, p.id);
      await runJob(t, jobs.a.id, 'failed');
      const retried = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.a.id}/retry`, { token: dev.token });
      assert.equal(retried.status, 201, retried.text);

      const all = await t.get(`/api/v4/projects/${api.id}/jobs`, reporter.token);
      assert.equal(all.status, 200, all.text);
      const ids = all.body.map((j: any) => j.id);
      assert.deepEqual(ids, [...ids].sort((x: number, y: number) => y - x));
      assert.deepEqual(all.body.map((j: any) => j.name), ['a', 'm', 'b', 'a']);
      assert.ok(!ids.includes(jobs.trig.id));
      assert.equal(all.headers['x-total'], '4');
      for (const j of all.body) assert.ok(keysOf(j).every((k) => [...JOB_KEYS, 'failure_reason'].includes(k)));

      const failed = await t.get(`/api/v4/projects/${api.id}/jobs?scope=failed`, reporter.token);
      assert.deepEqual(failed.body.map((j: any) => j.id), [jobs.a.id]);
      const some = await t.get(`/api/v4/projects/${api.id}/jobs?scope[]=manual&scope[]=failed`, reporter.token);
      assert.deepEqual(some.body.map((j: any) => j.id), [jobs.m.id, jobs.a.id]);
      const none = await t.get(`/api/v4/projects/${api.id}/jobs?scope[]=canceled`, reporter.token);
      assert.deepEqual(none.body, []);

      const bad = await t.get(`/api/v4/projects/${api.id}/jobs?scope=bogus`, reporter.token);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'scope does not have a valid value' });
      const badArray = await t.get(`/api/v4/projects/${api.id}/jobs?scope[]=pending&scope[]=nope`, reporter.token);
      assert.equal(badArray.status, 400);
      assert.deepEqual(badArray.body, { error: 'scope does not have a valid value' });

      const paged = await t.get(`/api/v4/projects/${api.id}/jobs?per_page=2&page=2`, reporter.token);
      assert.deepEqual(paged.body.map((j: any) => j.id), ids.slice(2, 4));
      assert.equal(paged.headers['x-page'], '2');
    });

    it("lists a pipeline's jobs: retried only with include_retried, its child pipelines' jobs not", async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('a'), plannedJob('b', { stage: 'deploy', stageIdx: 3 })]);
      const jobs = await jobsOf(t, p.id);
      await runJob(t, jobs.a.id, 'failed');
      const retry = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.a.id}/retry`, { token: dev.token });
      assert.equal(retry.status, 201);
      const child = await seedPipeline(t, row, [plannedJob('c1'), plannedJob('c2')], { parentPipelineId: p.id });
      const childJobs = await jobsOf(t, child.id);

      const latest = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/jobs`, reporter.token);
      assert.equal(latest.status, 200, latest.text);
      assert.deepEqual(latest.body.map((j: any) => j.id), [retry.body.id, jobs.b.id]);
      for (const j of latest.body) assert.deepEqual(keysOf(j), JOB_KEYS);
      const withRetried = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/jobs?include_retried=true`, reporter.token);
      assert.deepEqual(withRetried.body.map((j: any) => j.id), [retry.body.id, jobs.b.id, jobs.a.id]);
      const scoped = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/jobs?scope[]=failed&include_retried=true`, reporter.token);
      assert.deepEqual(scoped.body.map((j: any) => j.id), [jobs.a.id]);

      // The child pipeline's id answers too, with only its jobs.
      const childList = await t.get(`/api/v4/projects/${api.id}/pipelines/${child.id}/jobs`, reporter.token);
      assert.equal(childList.status, 200);
      assert.deepEqual(childList.body.map((j: any) => j.id), [childJobs.c2.id, childJobs.c1.id]);
      assert.ok(childList.body.every((j: any) => j.pipeline.id === child.id));

      const badBool = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/jobs?include_retried=maybe`, reporter.token);
      assert.equal(badBool.status, 400);
      assert.deepEqual(badBool.body, { error: 'include_retried is invalid' });
      const badScope = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/jobs?scope=nope`, reporter.token);
      assert.deepEqual([badScope.status, badScope.body], [400, { error: 'scope does not have a valid value' }]);
      const unknown = await t.get(`/api/v4/projects/${api.id}/pipelines/999999/jobs`, reporter.token);
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);
      // Another project's pipeline is not found through this one.
      const other = await project();
      const otherList = await t.get(`/api/v4/projects/${other.api.id}/pipelines/${p.id}/jobs`, reporter.token);
      assert.deepEqual([otherList.status, otherList.body], [404, { message: '404 Not found' }]);
    });

    it("lists a pipeline's bridges with their downstream pipeline", async () => {
      const { api, row } = await project();
      const trigger = { include: ['child.yml'], project: null, branch: null, strategy: null };
      const p = await seedPipeline(t, row, [
        plannedJob('build'),
        plannedJob('trig1', { type: 'bridge', when: 'manual', trigger }),
        plannedJob('trig2', { type: 'bridge', when: 'manual', trigger }),
      ]);
      const jobs = await jobsOf(t, p.id);
      const child = await seedPipeline(t, row, [plannedJob('c1'), plannedJob('ctrig', { type: 'bridge', when: 'manual', trigger })], { parentPipelineId: p.id });
      await t.c.db.updateTable('ci_jobs').set({ downstream_pipeline_id: child.id }).where('id', '=', jobs.trig1.id).execute();
      // A child pipeline's id answers with its own bridges; the parent does not list them.
      const childBridges = await t.get(`/api/v4/projects/${api.id}/pipelines/${child.id}/bridges`, reporter.token);
      assert.equal(childBridges.status, 200, childBridges.text);
      assert.deepEqual(childBridges.body.map((b: any) => [b.name, b.pipeline.id]), [['ctrig', child.id]]);

      const r = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/bridges`, reporter.token);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((b: any) => b.id), [jobs.trig2.id, jobs.trig1.id]);
      for (const b of r.body) assert.deepEqual(keysOf(b), BRIDGE_KEYS);
      const [b2, b1] = r.body;
      assert.equal(b2.downstream_pipeline, null);
      assert.equal(b1.status, 'manual');
      assert.deepEqual(keysOf(b1.downstream_pipeline), PIPELINE_KEYS);
      assert.equal(b1.downstream_pipeline.id, child.id);
      assert.equal(b1.downstream_pipeline.source, 'parent_pipeline');
      assert.equal(b1.downstream_pipeline.web_url, `${EXTERNAL_URL}/${api.path_with_namespace}/-/pipelines/${child.id}`);
      assert.deepEqual(keysOf(b1.pipeline), PIPELINE_KEYS);
      assert.equal(b1.web_url, `${EXTERNAL_URL}/${api.path_with_namespace}/-/jobs/${jobs.trig1.id}`);

      const scoped = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/bridges?scope=success`, reporter.token);
      assert.deepEqual(scoped.body, []);
      const bad = await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/bridges?scope[]=x`, reporter.token);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'scope does not have a valid value' }]);
      // A bridge is not a job of GET /jobs/:job_id.
      const asJob = await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.trig1.id}`, reporter.token);
      assert.deepEqual([asJob.status, asJob.body], [404, { message: '404 Not found' }]);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/pipelines/${p.id}/bridges`, guest.token)).status, 403);
    });

    it('returns the log as text, and 404 for a missing job or log', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('logged'), plannedJob('silent')]);
      const jobs = await jobsOf(t, p.id);
      const none = await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.silent.id}/trace`, reporter.token);
      assert.equal(none.status, 404);
      assert.deepEqual(none.body, { message: '404 Not Found' });
      const unknown = await t.get(`/api/v4/projects/${api.id}/jobs/999999/trace`, reporter.token);
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);

      await startJob(t.c, jobs.logged.id);
      await t.c.db.insertInto('ci_trace_chunks').values([
        { job_id: jobs.logged.id, seq: 0, data: Buffer.from('$ make\n').toString('base64') },
        { job_id: jobs.logged.id, seq: 1, data: Buffer.from('ok ✓\n').toString('base64') },
      ]).execute();
      const r = await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.logged.id}/trace`, reporter.token);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/plain');
      assert.equal(r.headers['content-disposition'], `infile; filename="${jobs.logged.id}.log"`);
      assert.equal(r.text, '$ make\nok ✓\n');
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.logged.id}/trace`, guest.token)).status, 403);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.logged.id}/trace`, outsider.token)).status, 404);
    });

    it('cancels a job; a finished one stays as it is', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('a'), plannedJob('b')]);
      const jobs = await jobsOf(t, p.id);
      const r = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.a.id}/cancel`, { token: dev.token });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), JOB_KEYS);
      assert.equal(r.body.status, 'canceled');
      assert.equal((await findCiJob(t.c.db, jobs.a.id))!.status, 'canceled');

      await runJob(t, jobs.b.id);
      const done = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.b.id}/cancel`, { token: dev.token });
      assert.equal(done.status, 201);
      assert.equal(done.body.status, 'success');

      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.b.id}/cancel`, { token: reporter.token })).status, 403);
      const hidden = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.b.id}/cancel`, { token: outsider.token });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.b.id}/cancel`, { token: null })).status, 401);
      const unknown = await t.request('POST', `/api/v4/projects/${api.id}/jobs/999999/cancel`, { token: dev.token });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);
      const badId = await t.request('POST', `/api/v4/projects/${api.id}/jobs/abc/cancel`, { token: dev.token });
      assert.deepEqual([badId.status, badId.body], [400, { error: 'job_id is invalid' }]);
    });

    it("refuses developers the actions on a protected ref they may not push or merge to", async () => {
      const { api, row } = await project();
      const pb = await t.request('POST', `/api/v4/projects/${api.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
      assert.equal(pb.status, 201, pb.text);
      const p = await seedPipeline(t, row, [plannedJob('a'), plannedJob('m', { when: 'manual' })], { userId: dev.id });
      const jobs = await jobsOf(t, p.id);
      for (const action of ['cancel', 'play']) {
        const id = action === 'play' ? jobs.m.id : jobs.a.id;
        const r = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${id}/${action}`, { token: dev.token });
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }], action);
      }
      assert.equal((await findCiJob(t.c.db, jobs.a.id))!.status, 'pending');
      const byMaintainer = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.a.id}/cancel`, { token: maintainer.token });
      assert.equal(byMaintainer.status, 201, byMaintainer.text);
      assert.equal(byMaintainer.body.status, 'canceled');
      // Another branch is open to developers.
      const feature = await seedPipeline(t, row, [plannedJob('f')], { ref: 'feature' });
      const { f } = await jobsOf(t, feature.id);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${f.id}/cancel`, { token: dev.token })).status, 201);
    });

    it('retries a finished job as a new job; an unfinished one is not retryable', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('a'), plannedJob('b')], { userId: dev2.id });
      const jobs = await jobsOf(t, p.id);
      await runJob(t, jobs.a.id, 'failed');
      const r = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.a.id}/retry`, { token: dev.token });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), JOB_KEYS);
      assert.notEqual(r.body.id, jobs.a.id);
      assert.equal(r.body.name, 'a');
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.started_at, null);
      assert.equal(r.body.finished_at, null);
      assert.equal(r.body.duration, null);
      assert.equal(r.body.user.id, dev.id);
      assert.equal((await findCiJob(t.c.db, jobs.a.id))!.retried, 1);

      const pending = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.b.id}/retry`, { token: dev.token });
      assert.deepEqual([pending.status, pending.body], [403, { message: '403 Forbidden - Job is not retryable' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${r.body.id}/retry`, { token: reporter.token })).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${r.body.id}/retry`, { token: outsider.token })).status, 404);
    });

    it('erases artifacts and log of a finished job; refuses what is not erasable or not yours', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('mine'), plannedJob('theirs'), plannedJob('bare'), plannedJob('live')], { userId: dev.id });
      const jobs = await jobsOf(t, p.id);
      for (const name of ['mine', 'theirs', 'bare']) await runJob(t, jobs[name].id);
      await t.c.db.updateTable('ci_jobs').set({ user_id: dev2.id }).where('id', '=', jobs.theirs.id).execute();
      for (const name of ['mine', 'theirs']) {
        await storeArtifact(t.c, jobs[name], { fileType: 'archive', filename: 'artifacts.zip', body: Buffer.from('zip'), expireAt: '2999-01-01T00:00:00.000Z' });
        await storeArtifact(t.c, jobs[name], { fileType: 'trace', filename: 'job.log', body: Buffer.from('log\n'), expireAt: null });
      }
      await t.c.db.updateTable('ci_jobs').set({ artifacts_expire_at: '2999-01-01T00:00:00.000Z' }).where('id', '=', jobs.mine.id).execute();

      const r = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.mine.id}/erase`, { token: dev.token });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), [...JOB_KEYS, 'download_url'].sort());
      assert.equal(r.body.download_url, null);
      assert.equal(r.body.status, 'success');
      assert.deepEqual(r.body.artifacts, []);
      assert.equal(r.body.artifacts_expire_at, null);
      const erased = (await findCiJob(t.c.db, jobs.mine.id))!;
      assert.ok(erased.erased_at);
      assert.equal(erased.erased_by_id, dev.id);
      const trace = await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.mine.id}/trace`, dev.token);
      assert.equal(trace.status, 404);
      // An erased job is not erasable again, as the reference's erasable? has it.
      const again = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.mine.id}/erase`, { token: dev.token });
      assert.deepEqual([again.status, again.body], [403, { message: '403 Forbidden - Job is not erasable!' }]);
      // A finished job that never stored anything still is: the job, status unchanged.
      const bare = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.bare.id}/erase`, { token: dev.token });
      assert.deepEqual([bare.status, bare.body.id, bare.body.status, bare.body.artifacts], [201, jobs.bare.id, 'success', []]);
      assert.equal((await t.get(`/api/v4/projects/${api.id}/jobs/${jobs.bare.id}/trace`, dev.token)).status, 404);
      // One that has not finished is not (pending here; running in the e2e test), as the reference's erasable?.
      const live = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.live.id}/erase`, { token: dev.token });
      assert.deepEqual([live.status, live.body], [403, { message: '403 Forbidden - Job is not erasable!' }]);

      // A developer erases only their own jobs; a maintainer anyone's.
      const notMine = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.theirs.id}/erase`, { token: dev.token });
      assert.deepEqual([notMine.status, notMine.body], [403, { message: '403 Forbidden' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.theirs.id}/erase`, { token: reporter.token })).status, 403);
      const byMaintainer = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.theirs.id}/erase`, { token: maintainer.token });
      assert.equal(byMaintainer.status, 201, byMaintainer.text);
      assert.equal((await findCiJob(t.c.db, jobs.theirs.id))!.erased_by_id, maintainer.id);
      const blobs = await t.c.db.selectFrom('ci_job_artifacts').select('id').where('job_id', 'in', [jobs.mine.id, jobs.theirs.id]).execute();
      assert.deepEqual(blobs, []);
    });

    it('refuses to erase or retry an archived (old) job', async () => {
      const { api, row } = await project();
      const p = await seedPipeline(t, row, [plannedJob('old')], { userId: dev.id });
      const { old } = await jobsOf(t, p.id);
      await runJob(t, old.id, 'failed');
      await storeArtifact(t.c, old, { fileType: 'trace', filename: 'job.log', body: Buffer.from('log\n'), expireAt: null });
      await t.c.db.updateTable('ci_jobs').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', old.id).execute();
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { archive_builds_in_human_readable: '30 days' } });
      assert.equal(s.status, 200, s.text);
      try {
        assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${old.id}/erase`, { token: dev.token })).status, 403);
        assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${old.id}/retry`, { token: dev.token })).status, 403);
        assert.equal((await findCiJob(t.c.db, old.id))!.erased_at, null);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { archive_builds_in_human_readable: '' } });
      }
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${old.id}/erase`, { token: dev.token })).status, 201);
    });

    it('plays a manual job with variables (stored encrypted); anything else is unplayable', async () => {
      const { api, row } = await project();
      const trigger = { include: ['child.yml'], project: null, branch: null, strategy: null };
      const p = await seedPipeline(t, row, [
        plannedJob('auto'),
        plannedJob('deploy', { when: 'manual' }),
        plannedJob('trig', { type: 'bridge', when: 'manual', trigger }),
      ]);
      const jobs = await jobsOf(t, p.id);
      assert.equal(jobs.deploy.status, 'manual');

      const bad = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.deploy.id}/play`, {
        token: dev.token,
        body: { job_variables_attributes: [{ key: 'not ok', value: 'x' }] },
      });
      assert.equal(bad.status, 400);
      assert.equal((await findCiJob(t.c.db, jobs.deploy.id))!.status, 'manual');
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.deploy.id}/play`, { token: reporter.token })).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.deploy.id}/play`, { token: outsider.token })).status, 404);

      const r = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.deploy.id}/play`, {
        token: dev.token,
        body: { job_variables_attributes: [{ key: 'TARGET', value: 'prod' }, { key: 'DRY', value: '0' }] },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), JOB_KEYS);
      assert.equal(r.body.id, jobs.deploy.id);
      assert.equal(r.body.status, 'pending');
      assert.equal(r.body.user.id, dev.id);
      const vars = await t.c.db.selectFrom('ci_job_variables').selectAll().where('job_id', '=', jobs.deploy.id).orderBy('id').execute();
      assert.deepEqual(vars.map((v) => v.key), ['TARGET', 'DRY']);
      assert.notEqual(vars[0].encrypted_value, 'prod');
      assert.equal(decryptSecret(t.c.config.secretKey, vars[0].encrypted_value), 'prod');

      const auto = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.auto.id}/play`, { token: dev.token });
      assert.deepEqual([auto.status, auto.body], [400, { message: '400 Bad request - Unplayable Job' }]);
      const bridge = await t.request('POST', `/api/v4/projects/${api.id}/jobs/${jobs.trig.id}/play`, { token: dev.token });
      assert.deepEqual([bridge.status, bridge.body], [400, { message: '400 Bad request - Unplayable Job' }]);
      const unknown = await t.request('POST', `/api/v4/projects/${api.id}/jobs/999999/play`, { token: dev.token });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);
    });

    it('lets reporters read, others of a public project only with public_jobs, and hides private projects', async () => {
      const priv = await project();
      const pp = await seedPipeline(t, priv.row, [plannedJob('x')]);
      const { x } = await jobsOf(t, pp.id);
      assert.equal((await t.get(`/api/v4/projects/${priv.api.id}/jobs`, reporter.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${priv.api.id}/jobs/${x.id}`, reporter.token)).status, 200);
      assert.deepEqual((await t.get(`/api/v4/projects/${priv.api.id}/jobs`, guest.token)).status, 403);
      const hidden = await t.get(`/api/v4/projects/${priv.api.id}/jobs/${x.id}`, outsider.token);
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      // No token: 401 before anything, as the reference's jobs API authenticates first.
      assert.equal((await t.get(`/api/v4/projects/${priv.api.id}/jobs`, null)).status, 401);
      // A job id of another project is not found through this one.
      const other = await project();
      const cross = await t.get(`/api/v4/projects/${other.api.id}/jobs/${x.id}`, reporter.token);
      assert.deepEqual([cross.status, cross.body], [404, { message: '404 Not found' }]);

      const pub = await project({ visibility: 'public', public_jobs: true });
      const pubPipeline = await seedPipeline(t, pub.row, [plannedJob('y')]);
      const { y } = await jobsOf(t, pubPipeline.id);
      const anon = await t.get(`/api/v4/projects/${pub.api.id}/jobs`, null);
      assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }]);
      const outside = await t.get(`/api/v4/projects/${pub.api.id}/jobs`, outsider.token);
      assert.equal(outside.status, 200, outside.text);
      assert.deepEqual(outside.body.map((j: any) => j.id), [y.id]);
      assert.equal((await t.get(`/api/v4/projects/${pub.api.id}/jobs/${y.id}`, outsider.token)).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${pub.api.id}/pipelines/${pubPipeline.id}/jobs`, null)).status, 200);
      assert.equal((await t.request('POST', `/api/v4/projects/${pub.api.id}/jobs/${y.id}/cancel`, { token: outsider.token })).status, 403);

      const closed = await project({ visibility: 'public', public_jobs: false });
      const cp = await seedPipeline(t, closed.row, [plannedJob('z')]);
      assert.equal((await t.get(`/api/v4/projects/${closed.api.id}/jobs`, null)).status, 401);
      assert.equal((await t.get(`/api/v4/projects/${closed.api.id}/jobs`, outsider.token)).status, 403);
      // Pipelines stay readable there, their jobs do not: an empty list, as the reference answers.
      const list = await t.get(`/api/v4/projects/${closed.api.id}/pipelines/${cp.id}/jobs`, outsider.token);
      assert.deepEqual([list.status, list.body], [200, []]);
      assert.equal((await t.get(`/api/v4/projects/${closed.api.id}/jobs`, reporter.token)).status, 200);
    });

    it('read_build_trace: the log of a job in debug mode only for developers and above, even with public_jobs', async () => {
      const pub = await project({ visibility: 'public', public_jobs: true });
      const p = await seedPipeline(t, pub.row, [plannedJob('plain'), plannedJob('debug', { variables: { CI_DEBUG_TRACE: 'true' } })]);
      const jobs = await jobsOf(t, p.id);
      for (const name of ['plain', 'debug']) {
        await runJob(t, jobs[name].id);
        await storeArtifact(t.c, jobs[name], { fileType: 'trace', filename: 'job.log', body: Buffer.from(`${name} log\n`), expireAt: null });
      }
      const trace = (name: string, token: string | null) => t.get(`/api/v4/projects/${pub.api.id}/jobs/${jobs[name].id}/trace`, token);
      const plain = await trace('plain', outsider.token);
      assert.deepEqual([plain.status, plain.text], [200, 'plain log\n']);
      assert.equal((await trace('plain', null)).status, 401);
      for (const who of [outsider.token, guest.token, reporter.token]) {
        const r = await trace('debug', who);
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      }
      // the job itself stays readable; only its log is closed
      assert.equal((await t.get(`/api/v4/projects/${pub.api.id}/jobs/${jobs.debug.id}`, outsider.token)).status, 200);
      for (const who of [dev.token, maintainer.token]) assert.deepEqual([(await trace('debug', who)).status, (await trace('debug', who)).text], [200, 'debug log\n']);
    });
  });
}
