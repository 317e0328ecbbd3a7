// Pipeline schedules: the API as clients drive it (shapes, errors, abilities), the cron's next
// times, and the runs: on time on one node, exactly once per due time on two nodes sharing the
// database, and nothing for an owner who lost access.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOtherNode, DIALECTS, keysOf, type TestApp, buildTestApp } from '../helpers/build.js';
import { makeCiProject, SIMPLE_CI } from '../helpers/ci.js';
import { addMember } from '../helpers/projects.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { claimDueSchedules, nextRunAt, PIPELINE_SCHEDULE_RUN_JOB, startScheduleTicker } from '../../src/domain/ci/pipeline_schedules.js';
import { nextCronTime, parseCron } from '../../src/domain/ci/cron.js';
import { pipelineVariables } from '../../src/domain/ci/variables.js';
import { enableTestClock, now, resetClock, setClock } from '../../src/shared/clock.js';
import type { Container } from '../../src/domain/context.js';
import type { Queue } from '../../src/queue/queue.js';

const SCHEDULE_KEYS = ['active', 'created_at', 'cron', 'cron_timezone', 'description', 'id', 'next_run_at', 'owner', 'ref', 'updated_at'];
const DETAIL_KEYS = [...SCHEDULE_KEYS, 'last_pipeline', 'variables'].sort();

describe('cron next times', () => {
  const next = (cron: string, tz: string, from: string) => nextCronTime(parseCron(cron)!, tz, new Date(from))?.toISOString();
  it('reads fields, lists, ranges, steps and names in a time zone', () => {
    assert.equal(next('* * * * *', 'UTC', '2026-01-01T10:00:30Z'), '2026-01-01T10:01:00.000Z');
    assert.equal(next('* * * * *', 'UTC', '2026-01-01T10:01:00Z'), '2026-01-01T10:02:00.000Z');
    assert.equal(next('0 1 * * *', 'Asia/Tokyo', '2026-01-01T10:00:30Z'), '2026-01-01T16:00:00.000Z');
    assert.equal(next('3-59/10 * * * *', 'UTC', '2026-11-27T09:00:00Z'), '2026-11-27T09:03:00.000Z');
    assert.equal(next('0 9 * * mon-fri', 'Europe/Berlin', '2026-11-27T09:00:00Z'), '2026-11-30T08:00:00.000Z');
    assert.equal(next('0 0 29 feb *', 'UTC', '2026-01-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
    // both day fields restricted: either matches (the 6th is a Friday)
    assert.equal(next('0 0 1,15 * 5', 'UTC', '2026-11-02T00:00:00Z'), '2026-11-06T00:00:00.000Z');
    assert.equal(next('0 12 * * 7', 'UTC', '2026-11-27T00:00:00Z'), '2026-11-29T12:00:00.000Z');
    // a wall time the zone skips (DST starts 2026-03-08 in New York) is skipped
    assert.equal(next('30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z'), '2026-03-09T06:30:00.000Z');
    for (const bad of ['* * * *', '60 * * * *', '* 24 * * *', '*/0 * * * *', '5-1 * * * *', 'x * * * *', '* * * * * *']) assert.equal(parseCron(bad), null, bad);
  });
});

for (const dialect of DIALECTS) {
  describe(`pipeline schedules (${dialect})`, () => {
    let t: TestApp;
    let dev: { id: number; username: string; token: string };
    let maint: { id: number; username: string; token: string };
    let reporter: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    const queues: Queue[] = [];
    before(async () => {
      t = await buildTestApp(dialect);
      dev = await t.createUser();
      maint = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
    });
    afterEach(async () => {
      resetClock();
      // a test's schedules do not fire in the next one
      await t.c.db.updateTable('ci_pipeline_schedules').set({ active: 0 }).execute();
      await Promise.all(queues.splice(0).map((q) => q.stop()));
    });
    after(async () => t.close());

    async function project() {
      const p = await makeCiProject(t, SIMPLE_CI);
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, maint.id, 40);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      return p;
    }
    function runJobs(c: Container): void {
      const queue = testQueue(c.db);
      registerBackgroundJobs({ ...c, queue }, [PIPELINE_SCHEDULE_RUN_JOB]);
      queue.start();
      queues.push(queue);
    }
    const schedulePipelines = async (projectId: number, id: number) =>
      (await t.get(`/api/v4/projects/${projectId}/pipeline_schedules/${id}/pipelines`)).body as any[];

    it('creates, lists, gets, updates, takes over and deletes schedules with the reference shapes', async () => {
      const p = await project();
      const base = `/api/v4/projects/${p.id}/pipeline_schedules`;
      const made = await t.request('POST', base, { token: dev.token, body: { description: 'Nightly', ref: 'main', cron: '0 1 * * *', cron_timezone: 'Asia/Tokyo' } });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(keysOf(made.body), DETAIL_KEYS);
      assert.equal(made.body.description, 'Nightly');
      assert.equal(made.body.cron_timezone, 'Asia/Tokyo');
      assert.equal(made.body.active, true);
      assert.equal(made.body.owner.username, dev.username);
      assert.deepEqual(keysOf(made.body.owner), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
      assert.equal(made.body.last_pipeline, null);
      assert.deepEqual(made.body.variables, []);
      // 01:00 in Tokyo is 16:00 UTC
      assert.match(made.body.next_run_at, /T16:00:00\.000Z$/);
      assert.ok(Date.parse(made.body.next_run_at) > now() && Date.parse(made.body.next_run_at) <= now() + 86_400_000);

      const off = await t.request('POST', base, { token: maint.token, body: { description: 'Off', ref: 'main', cron: '*/5 * * * *', active: false } });
      assert.equal(off.status, 201);
      assert.equal(off.body.cron_timezone, 'UTC');
      const list = await t.get(base, reporter.token);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((s: any) => s.description), ['Nightly', 'Off']);
      assert.deepEqual(keysOf(list.body[0]), SCHEDULE_KEYS);
      assert.deepEqual((await t.get(`${base}?scope=active`, reporter.token)).body.map((s: any) => s.id), [made.body.id]);
      assert.deepEqual((await t.get(`${base}?scope=inactive`, reporter.token)).body.map((s: any) => s.id), [off.body.id]);
      assert.equal((await t.get(`${base}?scope=nope`, reporter.token)).status, 400);
      // a reporter reads the schedule without its variables (read_pipeline_schedule_variables)
      const one = await t.get(`${base}/${made.body.id}`, reporter.token);
      const { variables: _hidden, ...visible } = made.body;
      assert.deepEqual(one.body, visible);
      assert.deepEqual((await t.get(`${base}/${made.body.id}`, dev.token)).body, made.body);

      // validation, as the model words it
      const bad = await t.request('POST', base, { token: dev.token, body: { description: ' ', ref: 'main', cron: '61 * * * *', cron_timezone: 'Mars/Base' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { message: { cron: [' is invalid syntax'], cron_timezone: [' is invalid syntax'], description: ["can't be blank"] } });
      const missing = await t.request('POST', base, { token: dev.token, body: { ref: 'main', cron: '* * * * *' } });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { message: '400 (Bad request) "description" not given' });

      // abilities: reporters read only; strangers see nothing; no token is 401
      assert.equal((await t.request('POST', base, { token: reporter.token, body: { description: 'x', ref: 'main', cron: '* * * * *' } })).status, 403);
      assert.equal((await t.get(base, stranger.token)).status, 404);
      assert.equal((await t.get(base, null)).status, 401);
      assert.equal((await t.get(`${base}/999999`, dev.token)).status, 404);
      assert.deepEqual((await t.get(`${base}/999999`, dev.token)).body, { message: '404 Pipeline Schedule Not Found' });

      // updates: the owner; another developer may not; next_run_at follows the new cron
      assert.equal((await t.request('PUT', `${base}/${made.body.id}`, { token: maint.token, body: { description: 'x' } })).status, 403);
      const upd = await t.request('PUT', `${base}/${made.body.id}`, { token: dev.token, body: { cron: '30 * * * *', cron_timezone: 'UTC', active: false } });
      assert.equal(upd.status, 200, upd.text);
      assert.equal(upd.body.active, false);
      assert.match(upd.body.next_run_at, /:30:00\.000Z$/);
      assert.equal((await t.request('PUT', `${base}/${made.body.id}`, { token: dev.token, body: { cron: 'nope' } })).status, 400);

      // take_ownership: maintainers (201), 200 when already the owner; developers who do not own it: 403
      assert.equal((await t.request('POST', `${base}/${off.body.id}/take_ownership`, { token: dev.token })).status, 403);
      const taken = await t.request('POST', `${base}/${made.body.id}/take_ownership`, { token: maint.token });
      assert.equal(taken.status, 201);
      assert.equal(taken.body.owner.username, maint.username);
      assert.equal((await t.request('POST', `${base}/${made.body.id}/take_ownership`, { token: maint.token })).status, 200);

      // delete: the owner or a maintainer
      assert.equal((await t.request('DELETE', `${base}/${made.body.id}`, { token: dev.token })).status, 403);
      assert.equal((await t.request('DELETE', `${base}/${made.body.id}`, { token: maint.token })).status, 204);
      assert.equal((await t.get(`${base}/${made.body.id}`, maint.token)).status, 404);
    });

    it('keeps schedule variables (encrypted) and hands them to the pipeline; play runs now as the caller', async () => {
      const p = await project();
      const base = `/api/v4/projects/${p.id}/pipeline_schedules`;
      const s = (await t.request('POST', base, { token: dev.token, body: { description: 'Vars', ref: 'main', cron: '0 0 1 1 *' } })).body;
      const v = await t.request('POST', `${base}/${s.id}/variables`, { token: dev.token, body: { key: 'DEPLOY_TO', value: 'staging-secret' } });
      assert.equal(v.status, 201, v.text);
      assert.deepEqual(v.body, { variable_type: 'env_var', key: 'DEPLOY_TO', value: 'staging-secret' });
      const dup = await t.request('POST', `${base}/${s.id}/variables`, { token: dev.token, body: { key: 'DEPLOY_TO', value: 'x' } });
      assert.equal(dup.status, 400);
      assert.deepEqual(dup.body, { message: { key: ['(DEPLOY_TO) has already been taken'] } });
      const badKey = await t.request('POST', `${base}/${s.id}/variables`, { token: dev.token, body: { key: 'no-dash', value: 'x' } });
      assert.deepEqual(badKey.body, { message: { key: ["can contain only letters, digits and '_'."] } });
      assert.equal((await t.request('POST', `${base}/${s.id}/variables`, { token: dev.token, body: { key: 'K', value: 'x', variable_type: 'bogus' } })).status, 400);
      assert.equal((await t.request('POST', `${base}/${s.id}/variables`, { token: reporter.token, body: { key: 'K', value: 'x' } })).status, 403);
      await t.request('POST', `${base}/${s.id}/variables`, { token: dev.token, body: { key: 'GONE', value: 'x' } });
      const put = await t.request('PUT', `${base}/${s.id}/variables/DEPLOY_TO`, { token: dev.token, body: { value: 'production' } });
      assert.deepEqual(put.body, { variable_type: 'env_var', key: 'DEPLOY_TO', value: 'production' });
      assert.equal((await t.request('PUT', `${base}/${s.id}/variables/NOPE`, { token: dev.token, body: { value: 'x' } })).status, 404);
      const del = await t.request('DELETE', `${base}/${s.id}/variables/GONE`, { token: dev.token });
      assert.equal(del.status, 202);
      assert.deepEqual(del.body, { variable_type: 'env_var', key: 'GONE', value: 'x' });
      const stored = await t.c.db.selectFrom('ci_pipeline_schedule_variables').selectAll().execute();
      assert.ok(stored.length > 0 && stored.every((r) => !r.encrypted_value.includes('production')));
      assert.deepEqual((await t.get(`${base}/${s.id}`, dev.token)).body.variables, [{ variable_type: 'env_var', key: 'DEPLOY_TO', value: 'production' }]);

      assert.equal((await t.request('POST', `${base}/${s.id}/play`, { token: reporter.token })).status, 403);
      const before = (await t.get(`${base}/${s.id}`)).body.next_run_at;
      const play = await t.request('POST', `${base}/${s.id}/play`, { token: maint.token });
      assert.equal(play.status, 201);
      assert.deepEqual(play.body, { message: '201 Created' });
      runJobs(t.c);
      const [pl] = await waitFor('the played pipeline', async () => {
        const list = await schedulePipelines(p.id, s.id);
        return list.length ? list : null;
      });
      assert.equal(pl.source, 'schedule');
      assert.equal(pl.ref, 'main');
      const full = (await t.get(`/api/v4/projects/${p.id}/pipelines/${pl.id}`)).body;
      assert.equal(full.user.username, maint.username);
      assert.deepEqual(await pipelineVariables(t.c, pl.id), [{ key: 'DEPLOY_TO', value: 'production', variable_type: 'env_var' }]);
      const after = (await t.get(`${base}/${s.id}`)).body;
      assert.equal(after.next_run_at, before);
      assert.equal(after.last_pipeline.id, pl.id);
      assert.deepEqual(keysOf(after.last_pipeline), ['created_at', 'id', 'iid', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url']);
      assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines?source=schedule`)).body[0].id, pl.id);
    });

    it('fires within its minute on one node, as the owner, and moves to the next time', async () => {
      const p = await project();
      const s = (await t.request('POST', `/api/v4/projects/${p.id}/pipeline_schedules`, { token: maint.token, body: { description: 'Every minute', ref: 'main', cron: '* * * * *' } })).body;
      const due = Date.parse(s.next_run_at);
      assert.equal(due % 60_000, 0);
      assert.ok(due > now() && due <= now() + 60_000);
      enableTestClock();
      setClock(due - 1500);
      runJobs(t.c);
      const ticker = startScheduleTicker(t.c);
      try {
        const [pl] = await waitFor('the scheduled pipeline', async () => {
          const list = await schedulePipelines(p.id, s.id);
          return list.length ? list : null;
        }, 20_000);
        const created = Date.parse(pl.created_at);
        assert.ok(created >= due && created < due + 60_000, `${pl.created_at} within the minute of ${s.next_run_at}`);
        assert.equal(pl.source, 'schedule');
        assert.equal((await t.get(`/api/v4/projects/${p.id}/pipelines/${pl.id}`)).body.user.username, maint.username);
        assert.equal((await t.get(`/api/v4/projects/${p.id}/pipeline_schedules/${s.id}`)).body.next_run_at, new Date(due + 60_000).toISOString());
      } finally {
        ticker.stop();
      }
    });

    it('runs each due time exactly once when two nodes claim at the same moment', async () => {
      const p = await project();
      const other = await buildOtherNode(t);
      try {
        const ids: number[] = [];
        for (let i = 0; i < 4; i++) {
          const r = await t.request('POST', `/api/v4/projects/${p.id}/pipeline_schedules`, { token: maint.token, body: { description: `s${i}`, ref: 'main', cron: '* * * * *' } });
          ids.push(r.body.id);
        }
        const due = Date.parse((await t.get(`/api/v4/projects/${p.id}/pipeline_schedules/${ids[0]}`)).body.next_run_at);
        enableTestClock();
        setClock(due + 1000);
        // both nodes claim the same due times at once, several times over
        const claims = await Promise.all([1, 2, 3].flatMap(() => [claimDueSchedules(t.c), claimDueSchedules(other.c)]));
        assert.equal(claims.reduce((a, b) => a + b, 0), ids.length, 'each due schedule claimed once');
        // the runs go to one node's workers (two SQLite connections writing pipelines at once wait on each other)
        runJobs(t.c);
        for (const id of ids) {
          await waitFor(`schedule ${id}'s pipeline`, async () => (await schedulePipelines(p.id, id)).length === 1, 20_000);
        }
        await new Promise((r) => setTimeout(r, 500));
        for (const id of ids) assert.equal((await schedulePipelines(p.id, id)).length, 1);
        // the next minute: both nodes' tickers fire; again one run each
        setClock(due + 60_000 - 1000);
        const tickers = [startScheduleTicker(t.c), startScheduleTicker(other.c)];
        try {
          for (const id of ids) await waitFor(`schedule ${id}'s second pipeline`, async () => (await schedulePipelines(p.id, id)).length === 2, 20_000);
          await new Promise((r) => setTimeout(r, 500));
          for (const id of ids) assert.equal((await schedulePipelines(p.id, id)).length, 2);
        } finally {
          tickers.forEach((k) => k.stop());
        }
      } finally {
        await other.close();
      }
    });

    it('an owner who lost access gets no pipeline; the schedule moves on', async () => {
      const p = await project();
      // main is protected (maintainers): a maintainer's schedule runs there until the maintainer leaves
      const s = (await t.request('POST', `/api/v4/projects/${p.id}/pipeline_schedules`, { token: maint.token, body: { description: 'Orphan', ref: 'main', cron: '* * * * *' } })).body;
      assert.equal((await t.request('DELETE', `/api/v4/projects/${p.id}/members/${maint.id}`)).status, 204);
      enableTestClock();
      setClock(Date.parse(s.next_run_at) + 1000);
      assert.ok((await claimDueSchedules(t.c)) >= 1);
      runJobs(t.c);
      await waitFor('the run job to finish', async () => {
        const open = await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', PIPELINE_SCHEDULE_RUN_JOB).where('state', 'in', ['queued', 'running']).execute();
        return open.length === 0;
      });
      assert.equal((await schedulePipelines(p.id, s.id)).length, 0);
      const after = (await t.get(`/api/v4/projects/${p.id}/pipeline_schedules/${s.id}`)).body;
      assert.equal(after.next_run_at, nextRunAt(t.c, '* * * * *', 'UTC'));
      assert.ok(Date.parse(after.next_run_at) > Date.parse(s.next_run_at));
    });
  });
}
