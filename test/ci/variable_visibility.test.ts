// Who reads a variable's value (issue 37): schedule, pipeline and trigger variables per role —
// anonymous, a signed-in non-member, guest, reporter, developer, maintainer, owner, admin — on a
// public project whose jobs are public, as the reference's abilities allow:
// - a schedule (read_pipeline_schedule: reporters and above) carries `variables` only for
//   read_pipeline_schedule_variables: maintainers, owners, admins and the schedule's owner;
// - GET …/pipelines/:id/variables (read_pipeline_variable): maintainers and above, or the user
//   who triggered the pipeline; a trigger's pipeline (its variables and TRIGGER_PAYLOAD) is the
//   trigger owner's;
// - trigger tokens are listed to maintainers only, and in full only to their owner.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';

type U = { id: number; username: string; token: string };
type Role = 'anonymous' | 'non-member' | 'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'admin';
const ROLES: Role[] = ['anonymous', 'non-member', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'];
const SCHEDULE_KEYS = ['active', 'created_at', 'cron', 'cron_timezone', 'description', 'id', 'last_pipeline', 'next_run_at', 'owner', 'ref', 'updated_at'];

for (const dialect of DIALECTS) {
  describe(`variable visibility per role (${dialect})`, () => {
    let t: TestApp;
    const tokens = {} as Record<Role, string | null>;
    let dev: U;
    let maint: U;
    let p: { id: number };
    const base = () => `/api/v4/projects/${p.id}`;

    before(async () => {
      t = await buildTestApp(dialect);
      const owner = await t.createUser();
      const users = { 'non-member': await t.createUser(), guest: await t.createUser(), reporter: await t.createUser() };
      dev = await t.createUser();
      maint = await t.createUser();
      p = await makeCiProject(t, 'job:\n  script: "true"\n', { token: owner.token, body: { visibility: 'public', public_jobs: true } });
      await addMember(t, 'Project', p.id, users.guest.id, 10);
      await addMember(t, 'Project', p.id, users.reporter.id, 20);
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, maint.id, 40);
      // main is protected (maintainers push); the developer runs pipelines on a branch of their own
      const branch = await t.request('POST', `/api/v4/projects/${p.id}/repository/branches`, { body: { branch: 'work', ref: 'main' } });
      assert.equal(branch.status, 201, branch.text);
      Object.assign(tokens, {
        anonymous: null,
        'non-member': users['non-member'].token,
        guest: users.guest.token,
        reporter: users.reporter.token,
        developer: dev.token,
        maintainer: maint.token,
        owner: owner.token,
        admin: t.rootToken,
      });
    });
    after(async () => t.close());

    async function scheduleWith(token: string, key: string, value: string): Promise<number> {
      const s = await t.request('POST', `${base()}/pipeline_schedules`, { token, body: { description: key, ref: 'main', cron: '0 4 * * *', active: false } });
      assert.equal(s.status, 201, s.text);
      const v = await t.request('POST', `${base()}/pipeline_schedules/${s.body.id}/variables`, { token, body: { key, value } });
      assert.equal(v.status, 201, v.text);
      return s.body.id;
    }

    it("schedule variables: only maintainers, owners, admins and the schedule's owner see them", async () => {
      const devSchedule = await scheduleWith(dev.token, 'DEV_SECRET', 'dev-value-1');
      const maintSchedule = await scheduleWith(maint.token, 'MAINT_SECRET', 'maint-value-2');
      // [status, sees the developer's schedule's variables, sees the maintainer's]
      const expected: Record<Role, [number, boolean, boolean]> = {
        anonymous: [401, false, false],
        'non-member': [403, false, false],
        guest: [403, false, false],
        reporter: [200, false, false],
        developer: [200, true, false],
        maintainer: [200, true, true],
        owner: [200, true, true],
        admin: [200, true, true],
      };
      for (const role of ROLES) {
        const [status, seesDev, seesMaint] = expected[role];
        for (const [id, sees, value] of [[devSchedule, seesDev, 'dev-value-1'], [maintSchedule, seesMaint, 'maint-value-2']] as const) {
          const r = await t.get(`${base()}/pipeline_schedules/${id}`, tokens[role]);
          assert.equal(r.status, status, `${role} GET schedule ${id}: ${r.text}`);
          if (status !== 200) {
            assert.ok(!r.text.includes(value), role);
            continue;
          }
          assert.deepEqual(keysOf(r.body), sees ? [...SCHEDULE_KEYS, 'variables'].sort() : SCHEDULE_KEYS, `${role} schedule ${id}`);
          assert.equal(r.text.includes(value), sees, `${role} reads ${value}`);
          if (sees) assert.deepEqual(r.body.variables.map((v: any) => v.value), [value]);
        }
        // The list never carries variables.
        const list = await t.get(`${base()}/pipeline_schedules`, tokens[role]);
        assert.equal(list.status, status, `${role} list`);
        assert.ok(!list.text.includes('value-'), role);
      }
    });

    it('pipeline variables: maintainers, owners, admins and the user who ran the pipeline', async () => {
      const devPipeline = await createPipelineOk(t, p.id, 'work', { token: dev.token, variables: [{ key: 'RUN_SECRET', value: 'run-value-3' }] });
      const expected: Record<Role, number> = {
        anonymous: 403,
        'non-member': 403,
        guest: 403,
        reporter: 403,
        developer: 200,
        maintainer: 200,
        owner: 200,
        admin: 200,
      };
      for (const role of ROLES) {
        const r = await t.get(`${base()}/pipelines/${devPipeline.id}/variables`, tokens[role]);
        assert.equal(r.status, expected[role], `${role}: ${r.text}`);
        if (r.status === 200) assert.deepEqual(r.body, [{ variable_type: 'env_var', key: 'RUN_SECRET', value: 'run-value-3' }]);
        else assert.ok(!r.text.includes('run-value-3'));
        // the pipeline itself is public here, without its variables
        const one = await t.get(`${base()}/pipelines/${devPipeline.id}`, tokens[role]);
        assert.equal(one.status, 200, role);
        assert.ok(!one.text.includes('run-value-3'));
      }
      // Another developer's pipeline is not the developer's to read.
      const maintPipeline = await createPipelineOk(t, p.id, 'main', { token: maint.token, variables: [{ key: 'M', value: 'maint-run-4' }] });
      assert.equal((await t.get(`${base()}/pipelines/${maintPipeline.id}/variables`, dev.token)).status, 403);
      // Once their branch is protected against the developer, the pipeline they ran is no longer theirs to read.
      const prot = await t.request('POST', `${base()}/protected_branches`, { token: maint.token, body: { name: 'work', push_access_level: 40, merge_access_level: 40 } });
      assert.equal(prot.status, 201, prot.text);
      assert.equal((await t.get(`${base()}/pipelines/${devPipeline.id}/variables`, dev.token)).status, 403);
      assert.equal((await t.get(`${base()}/pipelines/${devPipeline.id}/variables`, maint.token)).status, 200);
      assert.equal((await t.request('DELETE', `${base()}/protected_branches/work`, { token: maint.token })).status, 204);
    });

    it("trigger variables: the trigger's pipeline variables (and TRIGGER_PAYLOAD) to maintainers and above; tokens to maintainers", async () => {
      const trigger = await t.request('POST', `${base()}/triggers`, { token: maint.token, body: { description: 'deploy' } });
      assert.equal(trigger.status, 201, trigger.text);
      const fired = await t.request('POST', `${base()}/trigger/pipeline`, {
        token: null,
        body: { token: trigger.body.token, ref: 'main', variables: { TRIGGER_SECRET: 'trigger-value-5' } },
      });
      assert.equal(fired.status, 201, fired.text);
      assert.ok(!fired.text.includes('trigger-value-5'));
      const expected: Record<Role, number> = {
        anonymous: 403,
        'non-member': 403,
        guest: 403,
        reporter: 403,
        developer: 403,
        maintainer: 200,
        owner: 200,
        admin: 200,
      };
      const triggersStatus: Record<Role, number> = {
        anonymous: 401,
        'non-member': 403,
        guest: 403,
        reporter: 403,
        developer: 403,
        maintainer: 200,
        owner: 200,
        admin: 200,
      };
      for (const role of ROLES) {
        const r = await t.get(`${base()}/pipelines/${fired.body.id}/variables`, tokens[role]);
        assert.equal(r.status, expected[role], `${role}: ${r.text}`);
        if (r.status === 200) {
          const byKey = Object.fromEntries(r.body.map((v: any) => [v.key, v.value]));
          assert.equal(byKey.TRIGGER_SECRET, 'trigger-value-5');
          assert.match(byKey.TRIGGER_PAYLOAD, /trigger-value-5/);
          assert.ok(!byKey.TRIGGER_PAYLOAD.includes(trigger.body.token), 'the payload leaves the token out');
        } else assert.ok(!r.text.includes('trigger-value-5'));
        const list = await t.get(`${base()}/triggers`, tokens[role]);
        assert.equal(list.status, triggersStatus[role], `${role} triggers: ${list.text}`);
        if (list.status === 200) assert.equal(list.body[0].token === trigger.body.token, role === 'maintainer', `${role} sees the token in full`);
      }
    });
  });
}
