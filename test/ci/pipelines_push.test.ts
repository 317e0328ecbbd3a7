// Pipelines made by pushes (git over HTTP, and the commits API which publishes its ref changes the
// same way) and by bridges: child pipelines (trigger:include) and downstream project pipelines
// (trigger:project), with and without strategy: depend. The runner is off: tests finish jobs
// through the state module as the runner would.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, clone, cloneUrl, commitFiles, gitOk, runGit, type GitTestApp } from '../helpers/git.js';
import { addMember } from '../helpers/projects.js';
import { CI_FILE, createPipelineOk, jobRows, listPipelines, makeCiProject, pipelineRow, pipelineRows, putFiles, runPushPipelineJobs } from '../helpers/ci.js';
import { finishJob, startJob } from '../../src/domain/ci/state.js';
import { PUSH_PIPELINE_JOB, runPushPipelines } from '../../src/domain/ci/push_pipelines.js';

const ZERO = '0'.repeat(40);

/** Runs every pending build of the pipeline to `outcome` (one round). */
async function runPending(t: GitTestApp, pipelineId: number, outcome: 'success' | 'failed' = 'success'): Promise<number> {
  const pending = (await jobRows(t, pipelineId)).filter((j) => j.status === 'pending' && j.type === 'build');
  for (const j of pending) {
    assert.ok(await startJob(t.c, j.id));
    await finishJob(t.c, j.id, { status: outcome, exitCode: outcome === 'success' ? 0 : 1 });
  }
  return pending.length;
}

for (const dialect of DIALECTS) {
  describe(`push and triggered pipelines (${dialect})`, () => {
    let t: GitTestApp;
    before(async () => {
      t = await buildGitTestApp(dialect);
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } });
      assert.equal(s.status, 200, s.text);
    });
    after(async () => t.close());

    it('a git push of a branch with a CI file makes a push pipeline; rules:changes sees the diff', async () => {
      const dev = await t.createUser();
      const p = await makeCiProject(t, { 'README.txt': 'no ci yet\n' });
      await addMember(t, 'Project', p.id, dev.id, 30);
      await runPushPipelineJobs(t);
      assert.deepEqual(await pipelineRows(t, p.id), [], 'no CI file, no pipeline');
      const c = await clone(t, cloneUrl(p.project.http_url_to_repo, dev.token));
      assert.equal(c.code, 0, c.stderr);
      const ci = 'always:\n  script: echo\ndocs:\n  script: echo\n  rules:\n    - changes: [docs/**/*]\n';
      const first = await commitFiles(t, c.dir, { [CI_FILE]: ci }, 'Add CI');
      let push = await runGit(t, ['push', 'origin', 'main'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      await runPushPipelineJobs(t);
      let list = await listPipelines(t, p.id);
      assert.equal(list.length, 1);
      const pl = (await t.get(`/api/v4/projects/${p.id}/pipelines/${list[0].id}`)).body;
      assert.equal(pl.source, 'push');
      assert.equal(pl.ref, 'main');
      assert.equal(pl.sha, first);
      assert.equal(pl.before_sha, p.sha);
      assert.equal(pl.tag, false);
      assert.equal(pl.user.username, dev.username);
      assert.equal(pl.status, 'pending');
      assert.deepEqual((await jobRows(t, pl.id)).map((j) => j.name), ['always']);

      const second = await commitFiles(t, c.dir, { 'docs/guide.md': '# guide\n' }, 'Docs');
      push = await runGit(t, ['push', 'origin', 'main'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      await runPushPipelineJobs(t);
      list = await listPipelines(t, p.id, 'source=push');
      assert.equal(list.length, 2);
      assert.equal(list[0].sha, second);
      assert.equal((await pipelineRow(t, list[0].id))!.before_sha, first);
      assert.deepEqual((await jobRows(t, list[0].id)).map((j) => j.name), ['always', 'docs']);

      // A new branch: no before, changes unknown (they match, as in the reference).
      await gitOk(t, ['checkout', '--quiet', '-b', 'topic'], { cwd: c.dir });
      const third = await commitFiles(t, c.dir, { 'x.txt': 'x\n' }, 'Topic');
      push = await runGit(t, ['push', 'origin', 'topic'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      await runPushPipelineJobs(t);
      const topic = await listPipelines(t, p.id, 'ref=topic');
      assert.equal(topic.length, 1);
      assert.equal(topic[0].sha, third);
      assert.equal((await pipelineRow(t, topic[0].id))!.before_sha, ZERO);
      assert.deepEqual((await jobRows(t, topic[0].id)).map((j) => j.name), ['always', 'docs']);

      // Deleting a branch makes no pipeline.
      push = await runGit(t, ['push', 'origin', '--delete', 'topic'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      await runPushPipelineJobs(t);
      assert.equal((await pipelineRows(t, p.id)).length, 3);

      // A push job that runs again (at-least-once delivery) creates nothing new.
      const jobs = await t.c.db.selectFrom('background_jobs').selectAll().where('kind', '=', PUSH_PIPELINE_JOB).execute();
      assert.ok(jobs.length >= 3);
      for (const j of jobs) await runPushPipelines(t.c, JSON.parse(j.payload), { id: j.id });
      assert.equal((await pipelineRows(t, p.id)).length, 3);
    });

    it('tag pushes, invalid files, [skip ci] and commits through the API', async () => {
      const p = await makeCiProject(t, 'job:\n  script: echo\n');
      await runPushPipelineJobs(t);
      // The commits API publishes its ref change like a push.
      let rows = await pipelineRows(t, p.id);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.source, 'push');
      assert.equal(rows[0]!.sha, p.sha);

      const c = await clone(t, cloneUrl(p.project.http_url_to_repo, t.rootToken, 'root'));
      assert.equal(c.code, 0, c.stderr);
      await gitOk(t, ['tag', '-a', 'v1.0', '-m', 'release'], { cwd: c.dir });
      const push = await runGit(t, ['push', 'origin', 'v1.0'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      await runPushPipelineJobs(t);
      const tags = await listPipelines(t, p.id, 'scope=tags');
      assert.equal(tags.length, 1);
      const tagPipe = (await t.get(`/api/v4/projects/${p.id}/pipelines/${tags[0].id}`)).body;
      assert.equal(tagPipe.tag, true);
      assert.equal(tagPipe.ref, 'v1.0');
      assert.equal(tagPipe.sha, p.sha, 'the tag object is peeled to its commit');

      // An invalid file: a failed pipeline with yaml_errors and no jobs.
      const bad = await putFiles(t, p.id, { [CI_FILE]: 'job:\n  script: [\n' });
      await runPushPipelineJobs(t);
      const failed = await listPipelines(t, p.id, 'yaml_errors=true');
      assert.equal(failed.length, 1);
      const fp = (await t.get(`/api/v4/projects/${p.id}/pipelines/${failed[0].id}`)).body;
      assert.equal(fp.sha, bad);
      assert.equal(fp.status, 'failed');
      assert.equal(typeof fp.yaml_errors, 'string');
      assert.ok(fp.yaml_errors.length > 0);
      assert.deepEqual(await jobRows(t, fp.id), []);

      // [skip ci]: a skipped pipeline.
      const skipped = await putFiles(t, p.id, { [CI_FILE]: 'job:\n  script: echo\n' }, { message: 'Quiet change [skip ci]' });
      await runPushPipelineJobs(t);
      rows = await pipelineRows(t, p.id);
      const sp = rows.find((r) => r.sha === skipped)!;
      assert.equal(sp.status, 'skipped');
      assert.deepEqual(await jobRows(t, sp.id), []);
    });

    it('a trigger:include bridge makes a child pipeline; strategy: depend mirrors it', async () => {
      const ci = [
        'stages: [build, deploy]',
        'build:',
        '  stage: build',
        '  script: echo',
        'child:',
        '  stage: deploy',
        '  variables:',
        '    FOR_CHILD: hello',
        '  trigger:',
        '    include: child.yml',
        'child-depend:',
        '  stage: deploy',
        '  trigger:',
        '    include: child.yml',
        '    strategy: depend',
        '',
      ].join('\n');
      const p = await makeCiProject(t, { [CI_FILE]: ci, 'child.yml': 'child-job:\n  script: echo\n' });
      const parent = await createPipelineOk(t, p.id);
      assert.equal(await runPending(t, parent.id), 1);
      const bridges = (await jobRows(t, parent.id)).filter((j) => j.type === 'bridge');
      assert.equal(bridges.length, 2);
      const plain = bridges.find((b) => b.name === 'child')!;
      const depend = bridges.find((b) => b.name === 'child-depend')!;
      assert.equal(plain.status, 'success');
      assert.equal(depend.status, 'running');
      assert.ok(plain.downstream_pipeline_id);
      assert.ok(depend.downstream_pipeline_id);
      const child = (await pipelineRow(t, plain.downstream_pipeline_id!))!;
      assert.equal(child.source, 'parent_pipeline');
      assert.equal(child.parent_pipeline_id, parent.id);
      assert.equal(child.parent_job_id, plain.id);
      assert.equal(child.sha, parent.sha);
      assert.equal(child.ref, 'main');
      assert.deepEqual((await jobRows(t, child.id)).map((j) => [j.name, j.status]), [['child-job', 'pending']]);
      // The bridge's variables are the child pipeline's variables.
      const vars = await t.get(`/api/v4/projects/${p.id}/pipelines/${child.id}/variables`);
      assert.equal(vars.status, 200);
      assert.ok(vars.body.some((v: any) => v.key === 'FOR_CHILD' && v.value === 'hello'), JSON.stringify(vars.body));
      // Child pipelines are not listed, but can be read.
      const listed = (await listPipelines(t, p.id)).map((x) => x.id);
      assert.deepEqual(listed, [parent.id]);
      const got = await t.get(`/api/v4/projects/${p.id}/pipelines/${child.id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.source, 'parent_pipeline');
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${parent.id}`)).body.status, 'running');

      // The dependent child succeeds: its bridge succeeds, and with it the parent.
      await runPending(t, depend.downstream_pipeline_id!);
      assert.equal((await pipelineRow(t, depend.downstream_pipeline_id!))!.status, 'success');
      const dependAfter = (await jobRows(t, parent.id)).find((j) => j.id === depend.id)!;
      assert.equal(dependAfter.status, 'success');
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${parent.id}`)).body.status, 'success');

      // Deleting the parent keeps its child pipelines (their parent link cleared).
      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/pipelines/${parent.id}`);
      assert.equal(del.status, 204);
      const kept = await pipelineRow(t, child.id);
      assert.ok(kept);
      assert.equal(kept!.parent_pipeline_id, null);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${child.id}`)).status, 200);
    });

    it('a dependent bridge fails with its child; an invalid child file fails the bridge', async () => {
      const ci = 'child:\n  trigger:\n    include: child.yml\n    strategy: depend\n';
      const p = await makeCiProject(t, { [CI_FILE]: ci, 'child.yml': 'child-job:\n  script: echo\n' });
      const parent = await createPipelineOk(t, p.id);
      const [bridge] = await jobRows(t, parent.id);
      assert.equal(bridge!.status, 'running');
      await runPending(t, bridge!.downstream_pipeline_id!, 'failed');
      const failed = (await jobRows(t, parent.id))[0]!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failure_reason, 'unknown_failure');
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${parent.id}`)).body.status, 'failed');

      const broken = await makeCiProject(t, { [CI_FILE]: 'child:\n  trigger:\n    include: child.yml\n', 'child.yml': 'child-job:\n  script: [\n' });
      const bp = await createPipelineOk(t, broken.id);
      const [bb] = await jobRows(t, bp.id);
      assert.equal(bb!.status, 'failed');
      assert.equal(bb!.failure_reason, 'downstream_pipeline_creation_failed');
      const childRow = (await pipelineRows(t, broken.id)).find((r) => r.source === 'parent_pipeline')!;
      assert.equal(childRow.status, 'failed');
      assert.ok(childRow.yaml_errors);
    });

    it('canceling a parent cancels its dependent bridge with the child: the parent ends canceled, not failed', async () => {
      const ci = 'stages: [test, deploy]\nchild:\n  stage: test\n  trigger:\n    include: child.yml\n    strategy: depend\nlater:\n  stage: deploy\n  script: echo\n';
      const p = await makeCiProject(t, { [CI_FILE]: ci, 'child.yml': 'child-job:\n  script: echo\n' });
      const parent = await createPipelineOk(t, p.id);
      const bridge = (await jobRows(t, parent.id)).find((j) => j.name === 'child')!;
      assert.equal(bridge.status, 'running');
      const r = await t.request('POST', `/api/v4/projects/${p.id}/pipelines/${parent.id}/cancel`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'canceled');
      assert.equal((await pipelineRow(t, bridge.downstream_pipeline_id!))!.status, 'canceled');
      // The reference's canceled bridge does not follow its canceled child to failed (drop! is
      // refused from canceled), so the later stage is canceled, not skipped.
      assert.deepEqual(
        (await jobRows(t, parent.id)).map((j) => [j.name, j.status, j.failure_reason]),
        [['child', 'canceled', null], ['later', 'canceled', null]],
      );
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${parent.id}`)).body.status, 'canceled');
    });

    it('child pipelines nest two levels deep at most; a project triggering its own ref is a loop', async () => {
      const nest = 'again:\n  trigger:\n    include: nest.yml\n';
      const p = await makeCiProject(t, { [CI_FILE]: nest, 'nest.yml': nest });
      const top = await createPipelineOk(t, p.id);
      const rows = await pipelineRows(t, p.id);
      assert.equal(rows.length, 3, 'the pipeline, its child and its grandchild');
      const grandchild = rows[2]!;
      assert.equal(grandchild.source, 'parent_pipeline');
      assert.equal(grandchild.parent_pipeline_id, rows[1]!.id);
      assert.equal(rows[1]!.parent_pipeline_id, top.id);
      const [refused] = await jobRows(t, grandchild.id);
      assert.equal(refused!.status, 'failed');
      assert.equal(refused!.failure_reason, 'reached_max_descendant_pipelines_depth');
      assert.equal(grandchild.status, 'failed');

      const self = await makeCiProject(t, 'job:\n  script: echo\n');
      await putFiles(t, self.id, { [CI_FILE]: `loop:\n  trigger:\n    project: ${self.project.path_with_namespace}\n` });
      const lp = await createPipelineOk(t, self.id);
      const [loop] = await jobRows(t, lp.id);
      assert.equal(loop!.status, 'failed');
      assert.equal(loop!.failure_reason, 'pipeline_loop_detected');
    });

    it('a trigger:project bridge makes a downstream pipeline, as the bridge user may', async () => {
      const user = await t.createUser();
      const downstream = await makeCiProject(t, 'down-job:\n  script: echo\n', { token: user.token });
      const up = await makeCiProject(t, `up:\n  trigger:\n    project: ${downstream.project.path_with_namespace}\n    strategy: depend\n`, { token: user.token });
      const parent = await createPipelineOk(t, up.id, 'main', { token: user.token });
      const [bridge] = await jobRows(t, parent.id);
      assert.equal(bridge!.status, 'running');
      const down = (await pipelineRow(t, bridge!.downstream_pipeline_id!))!;
      assert.equal(down.project_id, downstream.id);
      assert.equal(down.source, 'pipeline');
      assert.equal(down.ref, 'main');
      assert.equal(down.user_id, user.id);
      assert.equal(down.parent_pipeline_id, null);
      assert.equal(down.parent_job_id, bridge!.id);
      // Listed in its own project (it is not a child pipeline).
      assert.deepEqual((await listPipelines(t, downstream.id, 'source=pipeline')).map((x) => x.id), [down.id]);
      await runPending(t, down.id);
      assert.equal((await jobRows(t, parent.id))[0]!.status, 'success');
      assert.equal((await pipelineRow(t, parent.id))!.status, 'success');

      // A project the bridge user cannot see, or one without the rights to run pipelines.
      const other = await t.createUser();
      const hidden = await makeCiProject(t, 'x:\n  script: echo\n', { token: other.token });
      const missing = await makeCiProject(t, `up:\n  trigger:\n    project: ${hidden.project.path_with_namespace}\n`, { token: user.token });
      let pl = await createPipelineOk(t, missing.id, 'main', { token: user.token });
      let [b] = await jobRows(t, pl.id);
      assert.equal(b!.status, 'failed');
      assert.equal(b!.failure_reason, 'downstream_bridge_project_not_found');
      assert.equal((await pipelineRows(t, hidden.id)).filter((r) => r.source === 'pipeline').length, 0);

      await addMember(t, 'Project', hidden.id, user.id, 20);
      pl = await createPipelineOk(t, missing.id, 'main', { token: user.token });
      [b] = await jobRows(t, pl.id);
      assert.equal(b!.status, 'failed');
      assert.equal(b!.failure_reason, 'insufficient_bridge_permissions');

      const nowhere = await makeCiProject(t, 'up:\n  trigger:\n    project: no/such-project\n', { token: user.token });
      pl = await createPipelineOk(t, nowhere.id, 'main', { token: user.token });
      [b] = await jobRows(t, pl.id);
      assert.equal(b!.failure_reason, 'downstream_bridge_project_not_found');
      assert.equal((await pipelineRow(t, pl.id))!.status, 'failed');
    });
  });
}
