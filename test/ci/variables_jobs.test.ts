// CI/CD variables reaching jobs of the built-in runner: the reference's precedence (CI file <
// instance < parent group < group < project < pipeline), protected variables only on protected
// refs, environment scopes, file variables as a path, masked values as [MASKED] in the log (also
// when a value arrives in two pieces), and the one list a runner gets (jobVariableList).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeCiProject } from '../helpers/ci.js';
import { makeGroup } from '../helpers/groups.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { jobVariableList } from '../../src/domain/ci/variables.js';
import { jobsOf, makePipeline, plannedJob, testRunner, traceText, waitForJob, type RepoProject } from './runner_fixtures.js';

const SECRET = 'Xy7-super/secret+value:42';

for (const dialect of DIALECTS) {
  describe(`CI/CD variables in jobs (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    let runner: CiRunner;
    let parent: { id: number };
    let child: { id: number };

    const add = async (url: string, body: Record<string, unknown>) => {
      const r = await t.request('POST', url, { body });
      assert.equal(r.status, 201, r.text);
    };

    before(async () => {
      t = await buildTestApp(dialect);
      parent = await makeGroup(t, {});
      child = await makeGroup(t, { parent_id: parent.id });
      const ci = await makeCiProject(t, 'job:\n  script: "true"\n', { body: { namespace_id: child.id } });
      rp = { project: (await findProjectById(t.c.db, ci.id))!, sha: ci.sha };
      const proj = `/api/v4/projects/${ci.id}/variables`;
      await add('/api/v4/admin/ci/variables', { key: 'LEVEL', value: 'instance' });
      await add('/api/v4/admin/ci/variables', { key: 'FROM_INSTANCE', value: 'i' });
      await add(`/api/v4/groups/${parent.id}/variables`, { key: 'LEVEL', value: 'parent' });
      await add(`/api/v4/groups/${parent.id}/variables`, { key: 'FROM_PARENT', value: 'pg' });
      await add(`/api/v4/groups/${child.id}/variables`, { key: 'LEVEL', value: 'group' });
      await add(`/api/v4/groups/${child.id}/variables`, { key: 'GROUP_ONLY', value: 'g' });
      await add(proj, { key: 'LEVEL', value: 'project' });
      await add(proj, { key: 'YAML_VS_PROJECT', value: 'project wins' });
      await add(proj, { key: 'EXPANDED', value: 'ref=$CI_COMMIT_REF_NAME' });
      await add(proj, { key: 'NOT_EXPANDED', value: 'ref=$CI_COMMIT_REF_NAME', raw: true });
      await add(proj, { key: 'PROTECTED_ONLY', value: 'p', protected: true });
      await add(proj, { key: 'DEPLOY_URL', value: 'everywhere' });
      await add(proj, { key: 'DEPLOY_URL', value: 'a review app', environment_scope: 'review/*' });
      await add(proj, { key: 'DEPLOY_URL', value: 'production!', environment_scope: 'production' });
      await add(proj, { key: 'CONFIG_FILE', value: 'line one\nline two\n', variable_type: 'file' });
      await add(proj, { key: 'SECRET', value: SECRET, masked: true });
      runner = testRunner(t);
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    const run = async (job: ReturnType<typeof plannedJob>, opts: Parameters<typeof makePipeline>[3] = {}) => {
      const p = await makePipeline(t, rp, [job], opts);
      const row = (await jobsOf(t, p.id))[job.name]!;
      const done = await waitForJob(t, row.id, ['success', 'failed']);
      const trace = (await traceText(t, row.id)) ?? '';
      assert.equal(done.status, 'success', trace);
      return { trace, pipeline: (await findPipeline(t.c.db, p.id))!, job: done };
    };

    it('precedence: CI file < instance < parent group < group < project < pipeline variables', async () => {
      const show = 'LEVEL FROM_INSTANCE FROM_PARENT GROUP_ONLY YAML_VS_PROJECT EXPANDED NOT_EXPANDED PIPE';
      const { trace } = await run(
        plannedJob('levels', {
          variables: { YAML_VS_PROJECT: 'yaml', LEVEL: 'yaml' },
          script: [`for v in ${show}; do echo "$v=[\${!v}]"; done`],
        }),
      );
      for (const line of [
        'LEVEL=[project]', 'FROM_INSTANCE=[i]', 'FROM_PARENT=[pg]', 'GROUP_ONLY=[g]', 'YAML_VS_PROJECT=[project wins]',
        'EXPANDED=[ref=main]', 'NOT_EXPANDED=[ref=$CI_COMMIT_REF_NAME]', 'PIPE=[]',
      ]) {
        assert.ok(trace.includes(line), `${line} in:\n${trace}`);
      }
      const { trace: t2 } = await run(plannedJob('pipe', { script: ['echo "LEVEL=[$LEVEL]"'] }), { variables: [{ key: 'LEVEL', value: 'pipeline', variable_type: 'env_var' }] });
      assert.ok(t2.includes('LEVEL=[pipeline]'), t2);
    });

    it('protected variables only on protected refs', async () => {
      const job = () => plannedJob('prot', { script: ['echo "PROTECTED_ONLY=[$PROTECTED_ONLY]"'] });
      // The default branch is protected when the project is made (default_branch_protection).
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/protected_branches/main`)).status, 200);
      assert.ok((await run(job())).trace.includes('PROTECTED_ONLY=[p]'));
      assert.ok((await run(job(), { ref: 'feature-x' })).trace.includes('PROTECTED_ONLY=[]'));
    });

    it('environment scopes: the exact name over a wildcard over *', async () => {
      const job = (env: string | null) =>
        plannedJob(`env-${env ?? 'none'}`, { environment: env ? { name: env, url: null, action: null } : null, script: ['echo "DEPLOY_URL=[$DEPLOY_URL]"'] });
      assert.ok((await run(job(null))).trace.includes('DEPLOY_URL=[everywhere]'));
      assert.ok((await run(job('production'))).trace.includes('DEPLOY_URL=[production!]'));
      assert.ok((await run(job('review/feature-1'))).trace.includes('DEPLOY_URL=[a review app]'));
      assert.ok((await run(job('staging'))).trace.includes('DEPLOY_URL=[everywhere]'));
    });

    it('a file variable is a path to a file holding the value', async () => {
      const { trace } = await run(plannedJob('file', { script: ['test -f "$CONFIG_FILE"', 'echo "path=[$CONFIG_FILE]"', 'cat "$CONFIG_FILE"'] }));
      assert.ok(trace.includes('line one\nline two\n') || trace.includes('line one\r\nline two'), trace);
      assert.ok(!trace.includes('path=[line one'), trace);
    });

    it('masked values are [MASKED] in the log, also when printed in two pieces', async () => {
      const { trace, job, pipeline } = await run(
        plannedJob('mask', {
          script: [
            'echo "whole: $SECRET"',
            'printf "split: %s" "${SECRET:0:9}"; sleep 0.4; printf "%s end\\n" "${SECRET:9}"',
            'echo "token: $CI_JOB_TOKEN"',
            'echo "${#SECRET} chars"',
          ],
        }),
      );
      assert.ok(!trace.includes(SECRET), trace);
      assert.ok(!trace.includes(SECRET.slice(9)), trace);
      assert.ok(trace.includes('whole: [MASKED]'), trace);
      assert.ok(trace.includes('split: [MASKED] end'), trace);
      assert.ok(trace.includes('token: [MASKED]'), trace);
      assert.ok(trace.includes(`${SECRET.length} chars`), trace);
      // The stored log too, and the list a runner gets says what to mask.
      const chunks = await t.c.db.selectFrom('ci_trace_chunks').selectAll().where('job_id', '=', job.id).execute();
      assert.ok(!JSON.stringify(chunks).includes(SECRET));
      const list = await jobVariableList(t.c, rp.project, pipeline, job, 'anvcbt-example');
      const secret = list.find((v) => v.key === 'SECRET')!;
      assert.deepEqual(secret, { key: 'SECRET', value: SECRET, public: false, file: false, masked: true, raw: false });
      assert.deepEqual(list.find((v) => v.key === 'CI_JOB_TOKEN'), { key: 'CI_JOB_TOKEN', value: 'anvcbt-example', public: false, file: false, masked: true, raw: true });
      assert.equal(list.find((v) => v.key === 'CONFIG_FILE')!.file, true);
      assert.equal(list.find((v) => v.key === 'CI_PROJECT_ID')!.public, true);
    });
  });
}
