// End to end, a CI file written for today's reference, run by the built-in runner: `workflow:name`,
// an include with `rules:changes:compare_to` and `inputs` into a `spec:inputs` template,
// `parallel:matrix` with `needs:parallel:matrix`, and a job left out by `compare_to` against a
// real branch of the repository. Missing inputs refuse the pipeline with the reference's message.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { createPipeline, createPipelineOk, makeCiProject, putFiles } from '../helpers/ci.js';
import { appWithRunner, traceText } from './runner_fixtures.js';

const CI = `workflow:
  name: "Release of $CI_COMMIT_REF_NAME"
include:
  - local: templates/deploy.yml
    inputs:
      env: production
    rules:
      - changes:
          paths: [templates/*]
          compare_to: refs/heads/base
stages: [build, test, deploy]
build:
  stage: build
  script: echo "built for $OS"
  parallel:
    matrix:
      - OS: [linux, mac]
test-linux:
  stage: test
  needs:
    - job: build
      parallel:
        matrix:
          - OS: linux
  script: echo "tested on linux"
docs:
  stage: test
  script: echo docs
  rules:
    - changes:
        paths: [docs/*]
        compare_to: refs/heads/base
`;

const TEMPLATE = `spec:
  inputs:
    env:
      options: [staging, production]
    replicas:
      type: number
      default: 2
---
deploy-$[[ inputs.env ]]:
  stage: deploy
  script: echo "deploying to $[[ inputs.env ]] with $[[ inputs.replicas ]] replicas"
`;

for (const dialect of DIALECTS) {
  describe(`CI end to end: today's keywords (${dialect})`, () => {
    const app = appWithRunner(dialect);

    /** A project whose `base` branch is main before the CI files came. */
    async function projectWith(files: Record<string, string>): Promise<number> {
      const t = app();
      const { id } = await makeCiProject(t, { 'seed.txt': 'seed\n' });
      const branch = await t.request('POST', `/api/v4/projects/${id}/repository/branches`, { body: { branch: 'base', ref: 'main' } });
      assert.equal(branch.status, 201, branch.text);
      await putFiles(t, id, files);
      return id;
    }

    it('runs the pipeline: inputs interpolated, matrix needs, compare_to, the workflow name kept', async () => {
      const t = app();
      const id = await projectWith({ '.service-ci.yml': CI, 'templates/deploy.yml': TEMPLATE });
      const created = await createPipelineOk(t, id);
      assert.ok(!keysOf(created).includes('name'), 'the 15.1 response has no pipeline name');
      const row = await t.c.db.selectFrom('ci_pipelines').select('name').where('id', '=', created.id).executeTakeFirstOrThrow();
      assert.equal(row.name, 'Release of main');

      const done = await waitFor('pipeline finished', async () => {
        const p = (await t.get(`/api/v4/projects/${id}/pipelines/${created.id}`)).body;
        return ['success', 'failed', 'canceled'].includes(p.status) ? p : null;
      }, 60_000);
      assert.equal(done.status, 'success');
      const jobs = (await t.get(`/api/v4/projects/${id}/pipelines/${created.id}/jobs?per_page=100`)).body;
      const byName = Object.fromEntries(jobs.map((j: any) => [j.name, j]));
      assert.deepEqual(Object.keys(byName).sort(), ['build: [linux]', 'build: [mac]', 'deploy-production', 'test-linux'], 'docs/ did not change since base');
      assert.match((await traceText(t, byName['deploy-production'].id))!, /deploying to production with 2 replicas/);
      assert.match((await traceText(t, byName['build: [linux]'].id))!, /built for linux/);
      // test-linux needed only the linux build: it may start before the mac build ends, never before linux's.
      assert.ok(Date.parse(byName['test-linux'].started_at) >= Date.parse(byName['build: [linux]'].finished_at));
    });

    it("refuses a pipeline whose include misses a required input, with the reference's message", async () => {
      const t = app();
      const id = await projectWith({
        '.service-ci.yml': 'include:\n  - local: templates/deploy.yml\n    inputs:\n      replicas: 3\n',
        'templates/deploy.yml': TEMPLATE,
      });
      const r = await createPipeline(t, id);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body, { message: { base: ['`templates/deploy.yml`: `env` input: required value has not been provided'] } });
      const wrong = await projectWith({
        '.service-ci.yml': 'include:\n  - local: templates/deploy.yml\n    inputs:\n      env: dev\n',
        'templates/deploy.yml': TEMPLATE,
      });
      const bad = await createPipeline(t, wrong);
      assert.deepEqual([bad.status, bad.body], [
        400,
        { message: { base: ['`templates/deploy.yml`: `env` input: `dev` cannot be used because it is not in the list of allowed options'] } },
      ]);
    });
  });
}
