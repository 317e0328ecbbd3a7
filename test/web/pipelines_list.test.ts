// The pipelines list renders each row's stage icons from all of its pipeline's current jobs: a
// page of 20 pipelines, one of them with more jobs than an API page holds (its first stage's jobs
// are the oldest, past the newest 100).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { createPipelineOk, makeCiProject, putFiles } from '../helpers/ci.js';

const SMALL = `stages: [build, test, deploy]
compile:
  stage: build
  script: echo compile
unit:
  stage: test
  script: echo unit
ship:
  stage: deploy
  script: echo ship
`;
const BIG = `stages: [build, test, deploy]
compile:
  stage: build
  script: echo compile
unit:
  stage: test
  parallel: 110
  script: echo unit
ship:
  stage: deploy
  script: echo ship
`;

/** Each row's stage icons as `stage:status`, by pipeline id, from the page's HTML. */
function iconsByRow(page: string): Map<number, string[]> {
  const rows = new Map<number, string[]>();
  for (const m of page.matchAll(/<tr data-pipeline-id="(\d+)"[\s\S]*?<\/tr>/g)) {
    rows.set(Number(m[1]), [...m[0].matchAll(/data-stage="([^"]+)" data-status="([^"]+)"/g)].map((x) => `${x[1]}:${x[2]}`));
  }
  return rows;
}

for (const dialect of DIALECTS) {
  describe(`web pipelines list (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t?.close());

    it('a page of 20 pipelines shows every row its stages, a pipeline of 112 jobs too', async () => {
      const { project } = await makeCiProject(t, SMALL, { body: { visibility: 'public' } });
      await putFiles(t, project.id, { '.service-ci.yml': BIG }, { branch: 'big', startBranch: 'main' });
      const setStatus = (pipelineId: number, name: string, status: string) =>
        t.c.db.updateTable('ci_jobs').set({ status }).where('pipeline_id', '=', pipelineId).where('name', 'like', `${name}%`).execute();
      const expected = new Map<number, string[]>();
      // an older pipeline on the next page, then 19 small ones with their own outcomes
      await createPipelineOk(t, project.id);
      for (let i = 0; i < 19; i++) {
        const p = await createPipelineOk(t, project.id);
        await setStatus(p.id, 'compile', 'success');
        await setStatus(p.id, 'unit', i % 3 === 0 ? 'failed' : i % 3 === 1 ? 'running' : 'success');
        expected.set(p.id, ['build:success', `test:${i % 3 === 0 ? 'failed' : i % 3 === 1 ? 'running' : 'success'}`, 'deploy:created']);
      }
      // the newest: 112 jobs; its one failed unit job is among the oldest, with compile
      const big = await createPipelineOk(t, project.id, 'big');
      await setStatus(big.id, 'compile', 'success');
      await setStatus(big.id, 'unit', 'success');
      const firstUnit = await t.c.db.selectFrom('ci_jobs').select('id').where('pipeline_id', '=', big.id).where('name', 'like', 'unit%').orderBy('id').executeTakeFirstOrThrow();
      await t.c.db.updateTable('ci_jobs').set({ status: 'failed' }).where('id', '=', firstUnit.id).execute();
      expected.set(big.id, ['build:success', 'test:failed', 'deploy:created']);

      const res = await t.app.inject({ url: `/${project.path_with_namespace}/-/pipelines` });
      assert.equal(res.statusCode, 200);
      const rows = iconsByRow(res.body);
      assert.equal(rows.size, 20);
      assert.deepEqual(rows, expected);
      // the row also says who ran it
      assert.match(res.body, new RegExp(`data-pipeline-id="${big.id}"[\\s\\S]*?by Administrator`));
    });
  });
}
