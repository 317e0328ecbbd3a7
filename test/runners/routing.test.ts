// Which registered runner gets which job, on each dialect: scope (instance runners and projects
// with shared runners off, a group runner registered with the group's token and the group's
// subgroups, project runners), `locked`, `paused`, `access_level`, `maximum_timeout`, and 409
// when another runner took the job. And the registration tokens of projects and groups: stored
// encrypted, shown to those who manage runners, reset, and sealed when stored plain before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { plannedJob } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';
import { commit, makeRepoProject } from '../helpers/repository_content.js';
import { jobsOf, makePipeline, type RepoProject } from '../ci/runner_fixtures.js';
import { RUNNER_INFO, TestRunnerClient } from '../helpers/runner_client.js';
import { findProjectById } from '../../src/db/repos/projects.js';
import { digest } from '../../src/domain/shared/secrets.js';
import { sealPlainRegistrationTokens } from '../../src/domain/runners/registration_tokens.js';

const REG_TOKEN = 'instance-registration-token-routing';

for (const dialect of DIALECTS) {
  describe(`runner routing (${dialect})`, () => {
    let t: GitTestApp;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN, ANVIL_RUNNER_LONG_POLL_SECONDS: '0' });
    });
    after(() => t.close());

    let seq = 0;
    /** A project (in `namespaceId` when given) with a commit on main. */
    async function project(body: Record<string, unknown> = {}): Promise<RepoProject> {
      const p = await makeRepoProject(t, body);
      const c = await commit(t, p.id, { actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
      return { project: (await findProjectById(t.c.db, p.id))!, sha: c.id };
    }
    async function group(path: string, parentId?: number): Promise<any> {
      const r = await t.request('POST', '/api/v4/groups', { body: { name: path, path, ...(parentId ? { parent_id: parentId } : {}) } });
      assert.equal(r.status, 201, r.text);
      return (await t.get(`/api/v4/groups/${r.body.id}`)).body;
    }
    /** One pending job with these tags in the project; its id. */
    async function pendingJob(rp: RepoProject, tags: string[], o: { ref?: string; timeout?: number } = {}): Promise<number> {
      seq += 1;
      const name = `job${seq}`;
      const p = await makePipeline(t, rp, [plannedJob(name, { tags, script: ['true'], ...(o.timeout ? { timeout: o.timeout } : {}) })], { userId: 1, ref: o.ref });
      return (await jobsOf(t, p.id))[name]!.id;
    }
    async function registered(token: string, o: Parameters<TestRunnerClient['register']>[1]): Promise<TestRunnerClient> {
      const r = new TestRunnerClient(t.url);
      const res = await r.register(token, o);
      assert.equal(res.status, 201, res.text);
      return r;
    }
    /** The job the runner gets now (201), or null (204). */
    async function take(r: TestRunnerClient): Promise<{ id: number; token: string } | null> {
      r.lastUpdate = '';
      const res = await r.requestJob();
      assert.ok(res.status === 201 || res.status === 204, `${res.status} ${res.text}`);
      return res.status === 201 ? res.body : null;
    }
    /** The runner ends the job it took: success. */
    async function finish(r: TestRunnerClient, job: { id: number; token: string } | null): Promise<void> {
      assert.ok(job);
      const res = await r.updateJob(job.id, job.token, { state: 'success' });
      assert.equal(res.status, 200, res.text);
    }

    it('scope: a group runner (registered with the group token) takes jobs of the group and its subgroups only; project and instance runners theirs', async () => {
      const top = await group(`top${dialect}`);
      const sub = await group('sub', top.id);
      const other = await group(`other${dialect}`);
      const inSub = await project({ namespace_id: sub.id });
      const inOther = await project({ namespace_id: other.id });
      const noShared = await project({ namespace_id: other.id });
      await t.c.db.updateTable('projects').set({ shared_runners_enabled: 0 }).where('id', '=', noShared.project.id).execute();

      assert.match(top.runners_token, /^GR1348941/);
      const groupRunner = await registered(top.runners_token, { tags: ['scope'], runUntagged: false });
      const row = await t.c.db.selectFrom('ci_runners').selectAll().where('id', '=', groupRunner.id!).executeTakeFirstOrThrow();
      assert.deepEqual([row.runner_type, row.group_id], ['group_type', top.id]);
      const details = await t.get(`/api/v4/runners/${groupRunner.id}`);
      assert.deepEqual(details.body.groups.map((g: any) => g.id), [top.id]);
      assert.deepEqual((await t.get(`/api/v4/groups/${sub.id}/runners`)).body.map((r: any) => r.id).filter((id: number) => id !== 1), [groupRunner.id]);

      const otherJob = await pendingJob(inOther, ['scope']);
      assert.equal(await take(groupRunner), null, 'a project outside the group');
      const subJob = await pendingJob(inSub, ['scope']);
      const gotsubJob = await take(groupRunner);
      assert.equal(gotsubJob?.id, subJob, 'a project of a subgroup');
      await finish(groupRunner, gotsubJob);

      const projectRunner = await registered((await t.get(`/api/v4/projects/${noShared.project.id}`)).body.runners_token, { tags: ['scope'], runUntagged: false });
      const instanceRunner = await registered(REG_TOKEN, { tags: ['scope'], runUntagged: false });
      const noSharedJob = await pendingJob(noShared, ['scope']);
      const gototherJob = await take(instanceRunner);
      assert.equal(gototherJob?.id, otherJob, 'the instance runner: the oldest job of a project with shared runners');
      await finish(instanceRunner, gototherJob);
      assert.equal(await take(instanceRunner), null, 'shared runners are off for that project');
      const gotnoSharedJob = await take(projectRunner);
      assert.equal(gotnoSharedJob?.id, noSharedJob);
      await finish(projectRunner, gotnoSharedJob);
      for (const r of [groupRunner, projectRunner, instanceRunner]) assert.equal((await r.unregister()).status, 204);
    });

    it('locked: a locked project runner cannot be enabled for another project; unlocked it can, and then takes its jobs', async () => {
      const a = await project();
      const b = await project();
      const maintainer = await t.createUser();
      await addMember(t, 'Project', a.project.id, maintainer.id, 40);
      await addMember(t, 'Project', b.project.id, maintainer.id, 40);
      const tokenOf = async (rp: RepoProject) => (await t.get(`/api/v4/projects/${rp.project.id}`, maintainer.token)).body.runners_token;
      const runner = await registered(await tokenOf(a), { tags: ['locked'], runUntagged: false, locked: true });
      const bJob = await pendingJob(b, ['locked']);
      assert.equal(await take(runner), null, 'not enabled for b');
      const refused = await t.request('POST', `/api/v4/projects/${b.project.id}/runners`, { token: maintainer.token, body: { runner_id: runner.id } });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { message: '403 Forbidden' });
      const put = await t.request('PUT', `/api/v4/runners/${runner.id}`, { token: maintainer.token, body: { locked: false } });
      assert.equal(put.status, 200);
      assert.equal(put.body.locked, false);
      const enabled = await t.request('POST', `/api/v4/projects/${b.project.id}/runners`, { token: maintainer.token, body: { runner_id: runner.id } });
      assert.equal(enabled.status, 201, enabled.text);
      assert.equal(enabled.body.id, runner.id);
      const gotbJob = await take(runner);
      assert.equal(gotbJob?.id, bJob);
      await finish(runner, gotbJob);
      assert.equal((await t.request('POST', `/api/v4/projects/${b.project.id}/runners`, { token: maintainer.token, body: { runner_id: runner.id } })).status, 400);
      await runner.unregister();
    });

    it('paused: a paused runner gets nothing (204) until it is resumed', async () => {
      const rp = await project();
      const runner = await registered(REG_TOKEN, { tags: ['paused'], runUntagged: false, paused: true });
      const id = await pendingJob(rp, ['paused']);
      assert.equal(await take(runner), null);
      const put = await t.request('PUT', `/api/v4/runners/${runner.id}`, { body: { paused: false } });
      assert.deepEqual([put.body.paused, put.body.active], [false, true]);
      const gotid = await take(runner);
      assert.equal(gotid?.id, id);
      await finish(runner, gotid);
      assert.equal((await t.request('PUT', `/api/v4/runners/${runner.id}`, { body: { active: false } })).body.paused, true);
      await pendingJob(rp, ['paused']);
      assert.equal(await take(runner), null, 'active: false pauses too');
      await runner.unregister();
    });

    it('access_level ref_protected: only jobs of protected refs; not_protected: any', async () => {
      const rp = await project();
      await commit(t, rp.project.id, { branch: 'feature', start_branch: 'main', actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }] });
      const protectedOnly = await registered(REG_TOKEN, { tags: ['prot'], runUntagged: false, accessLevel: 'ref_protected' });
      assert.equal((await t.get(`/api/v4/runners/${protectedOnly.id}`)).body.access_level, 'ref_protected');
      const featureJob = await pendingJob(rp, ['prot'], { ref: 'feature' });
      assert.equal(await take(protectedOnly), null, 'feature is not protected');
      const mainJob = await pendingJob(rp, ['prot'], { ref: 'main' });
      const gotmainJob = await take(protectedOnly);
      assert.equal(gotmainJob?.id, mainJob, 'main, the default branch, is protected');
      await finish(protectedOnly, gotmainJob);
      const any = await registered(REG_TOKEN, { tags: ['prot'], runUntagged: false, accessLevel: 'not_protected' });
      const gotfeatureJob = await take(any);
      assert.equal(gotfeatureJob?.id, featureJob);
      await finish(any, gotfeatureJob);
      const bad = await t.request('PUT', `/api/v4/runners/${any.id}`, { body: { access_level: 'everything' } });
      assert.equal(bad.status, 400);
      for (const r of [protectedOnly, any]) await r.unregister();
    });

    it('maximum_timeout caps the job timeout the runner is given (runner_info, steps, CI_JOB_TIMEOUT)', async () => {
      const rp = await project();
      const runner = await registered(REG_TOKEN, { tags: ['timeout'], runUntagged: false, maximumTimeout: 900 });
      const long = await pendingJob(rp, ['timeout'], { timeout: 7200 });
      runner.lastUpdate = '';
      const payload = await runner.nextJob(1);
      assert.equal(payload.id, long);
      assert.equal(payload.runner_info.timeout, 900);
      assert.deepEqual(payload.steps.map((s: any) => s.timeout), [900]);
      assert.equal(payload.variables.find((v: any) => v.key === 'CI_JOB_TIMEOUT').value, '900');
      await finish(runner, payload);
      const short = await pendingJob(rp, ['timeout'], { timeout: 700 });
      const second = await runner.nextJob(1);
      assert.equal(second.id, short);
      assert.equal(second.runner_info.timeout, 700, 'a shorter job keeps its own');
      await finish(runner, second);
      await runner.unregister();
    });

    it('409 when another runner took the job: of runners asking at once, one gets it, the others 409 (JSON) or 204', async () => {
      const rp = await project();
      const runners: TestRunnerClient[] = [];
      for (let i = 0; i < 6; i++) runners.push(await registered(REG_TOKEN, { tags: ['race'], runUntagged: false }));
      let conflicts = 0;
      for (let round = 0; round < (dialect === 'postgres' ? 10 : 2) && conflicts === 0; round++) {
        await pendingJob(rp, ['race']);
        const answers = await Promise.all(runners.map((r) => fetch(`${t.url}/api/v4/jobs/request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ token: r.token, system_id: r.systemId, info: RUNNER_INFO }),
        })));
        const statuses = answers.map((a) => a.status);
        assert.equal(statuses.filter((s) => s === 201).length, 1, String(statuses));
        assert.ok(statuses.every((s) => [201, 204, 409].includes(s)), String(statuses));
        for (const a of answers) {
          if (a.status === 409) {
            conflicts += 1;
            assert.equal(a.headers.get('content-type'), 'application/json');
            assert.deepEqual(await a.json(), { message: '409 Conflict' });
          } else await a.arrayBuffer();
        }
      }
      // On SQLite one process serves the requests one after another; PostgreSQL interleaves them.
      if (dialect === 'postgres') assert.ok(conflicts > 0, 'a runner that lost the race hears 409');
      for (const r of runners) await r.unregister();
    });
  });

  describe(`registration tokens (${dialect})`, () => {
    let t: GitTestApp;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_LONG_POLL_SECONDS: '0' });
    });
    after(() => t.close());

    it('stored encrypted and found by digest; shown to maintainers and owners only; a reset stops the old one', async () => {
      const p = await makeRepoProject(t);
      const shown = (await t.get(`/api/v4/projects/${p.id}`)).body.runners_token;
      assert.match(shown, /^GR1348941[\w-]{20}$/);
      const row = await t.c.db.selectFrom('projects').select(['runners_token', 'runners_token_digest']).where('id', '=', p.id).executeTakeFirstOrThrow();
      assert.match(row.runners_token!, /^v1:/, 'encrypted');
      assert.ok(!row.runners_token!.includes(shown.slice(9)), 'not stored plain');
      assert.equal(row.runners_token_digest, digest(shown));
      const developer = await t.createUser();
      await addMember(t, 'Project', p.id, developer.id, 30);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, developer.token)).body.runners_token, undefined);
      assert.equal((await t.get(`/api/v4/projects?owned=true`)).body.find((x: any) => x.id === p.id).runners_token, shown);

      const created = await t.request('POST', '/api/v4/groups', { body: { name: 'tok', path: `tok${dialect}` } });
      const g = await t.get(`/api/v4/groups/${created.body.id}`);
      const groupRow = await t.c.db.selectFrom('namespaces').select(['runners_token', 'runners_token_digest']).where('id', '=', g.body.id).executeTakeFirstOrThrow();
      assert.match(groupRow.runners_token!, /^v1:/);
      assert.equal(groupRow.runners_token_digest, digest(g.body.runners_token));
      assert.equal((await t.get(`/api/v4/groups/${g.body.id}`)).body.runners_token, g.body.runners_token);

      const reset = await t.request('POST', `/api/v4/projects/${p.id}/runners/reset_registration_token`);
      assert.equal(reset.status, 201);
      assert.notEqual(reset.body.token, shown);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`)).body.runners_token, reset.body.token);
      assert.equal((await new TestRunnerClient(t.url).register(shown)).status, 403, 'the old token no longer registers');
      const r = new TestRunnerClient(t.url);
      assert.equal((await r.register(reset.body.token)).status, 201);
      await r.unregister();
      const groupReset = await t.request('POST', `/api/v4/groups/${g.body.id}/runners/reset_registration_token`);
      assert.equal(groupReset.status, 201);
      assert.equal((await new TestRunnerClient(t.url).register(g.body.runners_token)).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/runners/reset_registration_token`, { token: developer.token })).status, 403);
    });

    it('a token stored plain by an earlier version is sealed at start and still registers', async () => {
      const p = await makeRepoProject(t);
      const plain = 'GR1348941plainlegacytoken000';
      await t.c.db.updateTable('projects').set({ runners_token: plain, runners_token_digest: digest(plain) }).where('id', '=', p.id).execute();
      assert.ok((await sealPlainRegistrationTokens(t.c)) >= 1);
      const row = await t.c.db.selectFrom('projects').select('runners_token').where('id', '=', p.id).executeTakeFirstOrThrow();
      assert.match(row.runners_token!, /^v1:/);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`)).body.runners_token, plain);
      assert.equal(await sealPlainRegistrationTokens(t.c), 0);
      const r = new TestRunnerClient(t.url);
      assert.equal((await r.register(plain)).status, 201);
      await r.unregister();
    });
  });
}
