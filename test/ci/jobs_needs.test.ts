// GET /projects/:id/pipelines/:pipeline_id/needs, an Anvil extension: a pipeline's current jobs
// and bridges with the names of the jobs each needs, from a CI file with `needs:` (parallel
// expansion, `needs: []`, optional needs of jobs left out, a bridge), paged and guarded as the
// pipeline's jobs list is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { CHILD_CI, CI_FILE, createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';

const NEEDS_CI = `stages: [build, test, deploy]
build:
  stage: build
  parallel: 2
  script: echo build
lint:
  stage: build
  script: echo lint
never:
  stage: build
  script: echo never
  rules:
    - when: never
unit:
  stage: test
  needs: [build]
  script: echo unit
docs:
  stage: test
  needs: []
  script: echo docs
ship:
  stage: deploy
  needs:
    - job: unit
    - job: lint
      artifacts: false
    - job: never
      optional: true
  script: echo ship
last:
  stage: deploy
  script: echo last
child:
  stage: deploy
  needs: [docs]
  when: manual
  trigger:
    include: child.yml
`;

/** What the CI file above plans: each job's needs by name (null: stage order). */
const EXPECTED: Record<string, string[] | null> = {
  'build 1/2': null,
  'build 2/2': null,
  lint: null,
  unit: ['build 1/2', 'build 2/2'],
  docs: [],
  ship: ['unit', 'lint'],
  last: null,
  child: ['docs'],
};

for (const dialect of DIALECTS) {
  describe(`pipeline needs API (${dialect})`, () => {
    let t: TestApp;
    let reporter: { id: number; username: string; token: string };
    let guest: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };
    let project: { id: number; project: any };
    let pipeline: any;

    before(async () => {
      t = await buildTestApp(dialect);
      reporter = await t.createUser();
      guest = await t.createUser();
      outsider = await t.createUser();
      // A private project without public jobs: reporters read jobs, guests nothing, others not even the project.
      project = await makeCiProject(t, { [CI_FILE]: NEEDS_CI, 'child.yml': CHILD_CI }, { body: { visibility: 'private', public_jobs: false } });
      await addMember(t, 'Project', project.id, reporter.id, 20);
      await addMember(t, 'Project', project.id, guest.id, 10);
      pipeline = await createPipelineOk(t, project.id);
    });
    after(async () => t.close());

    const needsUrl = (projectId: number | string, pipelineId: number | string, query = '') =>
      `/api/v4/projects/${projectId}/pipelines/${pipelineId}/needs${query}`;

    it("answers each current job and bridge with the names of the jobs it needs, newest first", async () => {
      const r = await t.get(needsUrl(project.id, pipeline.id), reporter.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['x-total'], String(Object.keys(EXPECTED).length));
      assert.equal(r.headers['x-page'], '1');
      assert.equal(r.headers['x-per-page'], '20');
      for (const item of r.body) {
        assert.deepEqual(keysOf(item), ['id', 'name', 'needs']);
        assert.ok(Number.isInteger(item.id), `id ${JSON.stringify(item.id)} is an integer`);
      }
      const ids = r.body.map((j: any) => j.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'descending id, as the jobs list');
      assert.deepEqual(Object.fromEntries(r.body.map((j: any) => [j.name, j.needs])), EXPECTED);

      // The ids are those of the pipeline's jobs and bridges lists.
      const jobs = (await t.get(`/api/v4/projects/${project.id}/pipelines/${pipeline.id}/jobs`, reporter.token)).body;
      const bridges = (await t.get(`/api/v4/projects/${project.id}/pipelines/${pipeline.id}/bridges`, reporter.token)).body;
      assert.deepEqual(
        [...jobs, ...bridges].map((j: any) => [j.id, j.name]).sort((a, b) => b[0] - a[0]),
        r.body.map((j: any) => [j.id, j.name]),
      );
    });

    it('pages as the jobs list does, and a retried job gives way to its new try', async () => {
      const first = await t.get(needsUrl(project.id, pipeline.id, '?per_page=3'), reporter.token);
      const second = await t.get(needsUrl(project.id, pipeline.id, '?per_page=3&page=2'), reporter.token);
      assert.deepEqual([first.status, second.status], [200, 200]);
      assert.equal(first.body.length, 3);
      assert.equal(first.headers['x-next-page'], '2');
      assert.equal(second.headers['x-page'], '2');
      assert.equal(second.headers['x-total-pages'], '3');
      assert.ok(second.body.every((j: any) => j.id < first.body[2].id));

      const all = (await t.get(needsUrl(project.id, pipeline.id), reporter.token)).body;
      const unit = all.find((j: any) => j.name === 'unit');
      const docs = all.find((j: any) => j.name === 'docs');
      // docs (needs: []) is pending at once; cancel and retry it: a new job with the same needs.
      assert.equal((await t.request('POST', `/api/v4/projects/${project.id}/jobs/${docs.id}/cancel`)).status, 201);
      const retried = await t.request('POST', `/api/v4/projects/${project.id}/jobs/${docs.id}/retry`);
      assert.equal(retried.status, 201, retried.text);
      const after = (await t.get(needsUrl(project.id, pipeline.id), reporter.token)).body;
      assert.deepEqual(after.filter((j: any) => j.name === 'docs'), [{ id: retried.body.id, name: 'docs', needs: [] }]);
      assert.deepEqual(after.find((j: any) => j.name === 'unit'), unit);
      assert.equal(after.length, all.length);
    });

    it('is guarded as the pipeline jobs list: 404 for a private project to others and to no token, 403 for a guest', async () => {
      const jobsUrl = `/api/v4/projects/${project.id}/pipelines/${pipeline.id}/jobs`;
      for (const [who, token, status] of [
        ['a non-member', outsider.token, 404],
        ['no token', null, 404],
        ['a guest', guest.token, 403],
      ] as const) {
        const r = await t.get(needsUrl(project.id, pipeline.id), token);
        const jobs = await t.get(jobsUrl, token);
        assert.deepEqual([r.status, r.body], [jobs.status, jobs.body], who);
        assert.equal(r.status, status, who);
      }
      const hidden = await t.get(needsUrl(project.id, pipeline.id), outsider.token);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const anon = await t.get(needsUrl(project.id, pipeline.id), null);
      assert.deepEqual(anon.body, { message: '404 Project Not Found' });
      assert.deepEqual((await t.get(needsUrl(project.id, pipeline.id), guest.token)).body, { message: '403 Forbidden' });

      // A public project without public jobs: its pipelines are readable, their jobs are not, so
      // the list is empty for a non-member, as the jobs list answers.
      const open = await makeCiProject(t, NEEDS_CI.replace(/child:[\s\S]*$/, ''), { body: { visibility: 'public', public_jobs: false } });
      const op = await createPipelineOk(t, open.id);
      for (const token of [outsider.token, null]) {
        const r = await t.get(needsUrl(open.id, op.id), token);
        const jobs = await t.get(`/api/v4/projects/${open.id}/pipelines/${op.id}/jobs`, token);
        assert.deepEqual([r.status, r.body], [200, []]);
        assert.deepEqual([jobs.status, jobs.body], [200, []]);
      }
      // With public jobs, anyone reads the needs.
      assert.equal((await t.request('PUT', `/api/v4/projects/${open.id}`, { body: { public_jobs: true } })).status, 200);
      const anyone = await t.get(needsUrl(open.id, op.id), null);
      assert.equal(anyone.status, 200, anyone.text);
      assert.deepEqual(anyone.body.find((j: any) => j.name === 'ship').needs, ['unit', 'lint']);
    });

    it("answers the spec's 404 for an unknown pipeline or another project's, and 400 for a bad id", async () => {
      const unknown = await t.get(needsUrl(project.id, 999999), reporter.token);
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Not found' }]);
      const other = await makeCiProject(t);
      const cross = await t.get(needsUrl(other.id, pipeline.id));
      assert.deepEqual([cross.status, cross.body], [404, { message: '404 Not found' }]);
      const noProject = await t.get(needsUrl(999999, pipeline.id));
      assert.deepEqual([noProject.status, noProject.body], [404, { message: '404 Project Not Found' }]);
      const bad = await t.get(needsUrl(project.id, 'abc'), reporter.token);
      const badJobs = await t.get(`/api/v4/projects/${project.id}/pipelines/abc/jobs`, reporter.token);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'pipeline_id is invalid' }]);
      assert.deepEqual([badJobs.status, badJobs.body], [bad.status, bad.body]);
      const badPage = await t.get(needsUrl(project.id, pipeline.id, '?per_page=zero'), reporter.token);
      assert.deepEqual([badPage.status, badPage.body], [400, { error: 'per_page is invalid' }]);
    });
  });
}
