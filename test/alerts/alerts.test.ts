import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';

type U = { id: number; username: string; token: string };

const INTEGRATION_KEYS = ['active', 'created_at', 'id', 'name', 'type', 'updated_at', 'url'];
const ALERT_KEYS = [
  'created_at', 'description', 'details', 'ended_at', 'environment_name', 'event_count', 'fingerprint', 'hosts', 'id', 'iid',
  'monitoring_tool', 'project_id', 'service', 'severity', 'started_at', 'status', 'title', 'updated_at',
];

const notifyPath = (url: string) => url.slice(EXTERNAL_URL.length);

for (const dialect of DIALECTS) {
  describe(`alert integrations and alerts (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let dev: U;
    let reporter: U;
    let stranger: U;
    let p: any;
    let integ: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
      p = await makeProject(t, owner.token, { name: 'ops', path: 'ops' });
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      const r = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: { name: 'Prod Monitor' } });
      assert.equal(r.status, 201, r.text);
      integ = r.body;
    });
    after(async () => t.close());

    const send = (payload: unknown, key: string | null = integ.token, url = integ.url, headers: Record<string, string> = {}) =>
      t.request('POST', notifyPath(url), {
        token: null,
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': 'application/json', ...(key !== null ? { authorization: `Bearer ${key}` } : {}), ...headers },
      });
    const alerts = (q = '', token = dev.token) => t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts${q}`, { token });

    it('setup: create shows the key once; list, update, reset, delete; maintainers only', async () => {
      assert.deepEqual(keysOf(integ), [...INTEGRATION_KEYS, 'token'].sort());
      assert.equal(integ.name, 'Prod Monitor');
      assert.equal(integ.active, true);
      assert.equal(integ.type, 'http');
      assert.match(integ.token, /^[0-9a-f]{32}$/);
      assert.match(integ.url, new RegExp(`^${EXTERNAL_URL}/${p.path_with_namespace}/-/alerts/notify/prod-monitor/[0-9a-f]{16}\\.json$`));

      const list = await t.request('GET', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token });
      assert.equal(list.status, 200);
      assert.deepEqual(keysOf(list.body[0]), INTEGRATION_KEYS);
      assert.equal(list.body[0].url, integ.url);
      // The key is stored as a digest only.
      const stored = await t.c.db.selectFrom('alert_integrations').selectAll().where('id', '=', integ.id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored).includes(integ.token));

      const other = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: { name: 'Spare', active: false } });
      assert.equal(other.body.active, false);
      const upd = await t.request('PUT', `/api/v4/projects/${p.id}/alert_integrations/${other.body.id}`, { token: owner.token, body: { name: 'Spare 2', active: true } });
      assert.equal(upd.status, 200);
      assert.deepEqual(keysOf(upd.body), INTEGRATION_KEYS);
      assert.equal(upd.body.name, 'Spare 2');
      assert.equal(upd.body.active, true);
      assert.match(upd.body.url, /\/notify\/spare-2\//);
      const reset = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations/${other.body.id}/reset_key`, { token: owner.token });
      assert.equal(reset.status, 200);
      assert.notEqual(reset.body.token, other.body.token);
      assert.equal((await send({ title: 'old key' }, other.body.token, other.body.url)).status, 401);
      assert.equal((await send({ title: 'new key' }, reset.body.token, other.body.url)).status, 200);
      const del = await t.request('DELETE', `/api/v4/projects/${p.id}/alert_integrations/${other.body.id}`, { token: owner.token });
      assert.equal(del.status, 204);
      assert.equal((await send({ title: 'gone' }, reset.body.token, other.body.url)).status, 403);

      const blank = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: { name: ' ' } });
      assert.equal(blank.status, 400);
      assert.deepEqual(blank.body, { message: { name: ["can't be blank"] } });
      const noName = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: {} });
      assert.deepEqual(noName.body, { message: '400 (Bad request) "name" not given' });
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/alert_integrations`, { token: dev.token })).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: dev.token, body: { name: 'x' } })).status, 403);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/alert_integrations`, { token: stranger.token })).status, 404);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/alert_integrations`, { token: null })).status, 401);
      const unknown = await t.request('PUT', `/api/v4/projects/${p.id}/alert_integrations/99999`, { token: owner.token, body: { name: 'x' } });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Integration Not Found' });
    });

    it('payload rules: defaults, severity, hosts, custom fields; answer [{iid, title}]', async () => {
      const before = Date.now();
      const r = await send({ description: 'disk', hosts: 'db1', severity: 'nonsense', fingerprint: 'fp-defaults', run: { id: 7, tags: ['a'] }, count: 3 });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.body.length, 1);
      assert.deepEqual(keysOf(r.body[0]), ['iid', 'title']);
      assert.equal(r.body[0].title, 'New: Alert');
      const a = await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${r.body[0].iid}`, { token: dev.token });
      assert.equal(a.status, 200);
      assert.deepEqual(keysOf(a.body), ALERT_KEYS);
      assert.equal(a.body.severity, 'critical');
      assert.deepEqual(a.body.hosts, ['db1']);
      assert.equal(a.body.status, 'triggered');
      assert.equal(a.body.event_count, 1);
      assert.equal(a.body.ended_at, null);
      assert.deepEqual(a.body.details, { run: { id: 7, tags: ['a'] }, count: 3 });
      assert.ok(Date.parse(a.body.started_at) >= before - 1000 && Date.parse(a.body.started_at) <= Date.now() + 1000);

      const full = await send({
        title: 'CPU high', description: 'd', start_time: '2026-01-02T03:04:05Z', service: 'api', monitoring_tool: 'probe',
        hosts: ['h1', 'h2'], severity: 'HiGh', fingerprint: ['a', 'b'], service_environment_name: 'production',
      });
      const b = (await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${full.body[0].iid}`, { token: dev.token })).body;
      assert.equal(b.title, 'CPU high');
      assert.equal(b.severity, 'high');
      assert.deepEqual(b.hosts, ['h1', 'h2']);
      assert.equal(b.started_at, '2026-01-02T03:04:05.000Z');
      assert.equal(b.service, 'api');
      assert.equal(b.monitoring_tool, 'probe');
      assert.equal(b.environment_name, 'production');
      assert.deepEqual(b.details, {});
      for (const sev of ['critical', 'high', 'medium', 'low', 'info', 'unknown']) {
        const s = await send({ title: `sev ${sev}`, severity: sev.toUpperCase(), fingerprint: `sev-${sev}` });
        const got = await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${s.body[0].iid}`, { token: dev.token });
        assert.equal(got.body.severity, sev);
      }
      const missing = await send({ title: 'no severity', fingerprint: 'nosev' });
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${missing.body[0].iid}`, { token: dev.token })).body.severity, 'critical');
    });

    it('grouping by fingerprint, end_time resolves, an identical payload after resolution opens a new alert', async () => {
      const first = await send({ title: 'Grouped', fingerprint: 'g-1', start_time: '2026-01-01T00:00:00Z' });
      const second = await send({ title: 'Grouped again', fingerprint: 'g-1' });
      assert.deepEqual(second.body, [{ iid: first.body[0].iid, title: 'Grouped' }]);
      let a = (await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${first.body[0].iid}`, { token: dev.token })).body;
      assert.equal(a.event_count, 2);

      // Without a fingerprint: the payload itself (without times and hosts) is the fingerprint.
      const x1 = await send({ title: 'Same', service: 's', hosts: ['a'], start_time: '2026-01-01T00:00:00Z' });
      const x2 = await send({ title: 'Same', service: 's', hosts: ['b'] });
      assert.equal(x2.body[0].iid, x1.body[0].iid);
      const y = await send({ title: 'Same', service: 'other' });
      assert.notEqual(y.body[0].iid, x1.body[0].iid);

      const resolved = await send({ title: 'Grouped', fingerprint: 'g-1', end_time: '2026-01-03T00:00:00Z' });
      assert.equal(resolved.body[0].iid, first.body[0].iid);
      a = (await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/${first.body[0].iid}`, { token: dev.token })).body;
      assert.equal(a.status, 'resolved');
      assert.equal(a.ended_at, '2026-01-03T00:00:00.000Z');

      const again = await send({ title: 'Grouped', fingerprint: 'g-1', start_time: '2026-01-01T00:00:00Z' });
      assert.notEqual(again.body[0].iid, first.body[0].iid);
      const x3 = await send({ title: 'Same', service: 's', hosts: ['a'], end_time: '2026-01-04T00:00:00Z' });
      assert.equal(x3.body[0].iid, x1.body[0].iid);
      const x4 = await send({ title: 'Same', service: 's', hosts: ['a'], start_time: '2026-01-01T00:00:00Z' });
      assert.notEqual(x4.body[0].iid, x1.body[0].iid);
    });

    it('refusals: bad key 401, inactive 403, not JSON 400, not an object 422, too large 413, unknown project 404; nothing stored', async () => {
      const count = async () => (await t.c.db.selectFrom('alerts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const n = Number(await count());
      assert.equal((await send({ title: 'x' }, 'wrong')).status, 401);
      assert.equal((await send({ title: 'x' }, null)).status, 401);
      const basicWrong = await send({ title: 'x' }, null, integ.url, { authorization: `Basic ${Buffer.from(':nope').toString('base64')}` });
      assert.equal(basicWrong.status, 401);
      const notJson = await send('{"title": ', integ.token);
      assert.equal(notJson.status, 400);
      const arr = await send([{ title: 'x' }]);
      assert.equal(arr.status, 422);
      assert.deepEqual(arr.body, { message: 'The payload must be a JSON object' });
      assert.equal((await send('"text"')).status, 422);
      const big = await send({ title: 'big', blob: 'x'.repeat(1024 * 1024 + 10) });
      assert.equal(big.status, 413);
      assert.deepEqual(big.body, { message: '413 Request Entity Too Large' });
      let deep: any = {};
      for (let i = 0; i < 120; i++) deep = { d: deep };
      assert.equal((await send({ title: 'deep', deep })).status, 413);
      assert.equal((await send({ title: 'x' }, integ.token, integ.url.replace(/\/ops\//, '/nope/'))).status, 404);
      assert.equal((await send({ title: 'x' }, integ.token, integ.url.replace(/[0-9a-f]{16}\.json$/, '0000000000000000.json'))).status, 403);

      const off = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: { name: 'Off', active: false } });
      const inactive = await send({ title: 'x' }, off.body.token, off.body.url);
      assert.equal(inactive.status, 403);
      assert.deepEqual(inactive.body, { message: '403 Forbidden' });
      assert.equal(Number(await count()), n);
    });

    it('HTTP Basic with an empty user and the key as password', async () => {
      const r = await send({ title: 'basic', fingerprint: 'basic' }, null, integ.url, { authorization: `Basic ${Buffer.from(`:${integ.token}`).toString('base64')}` });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body[0].title, 'basic');
    });

    it('alerts over REST: list with status and search, get by iid, status changes; roles', async () => {
      const a = await send({ title: 'Needle in haystack', fingerprint: 'rest-1', hosts: 'web-42' });
      const iid = a.body[0].iid;
      const list = await alerts();
      assert.equal(list.status, 200);
      assert.ok(list.body.length > 1);
      assert.ok(list.body.every((x: any, i: number) => i === 0 || x.id < list.body[i - 1].id));
      const found = await alerts('?search=needle');
      assert.deepEqual(found.body.map((x: any) => x.iid), [iid]);
      assert.deepEqual((await alerts('?search=WEB-42')).body.map((x: any) => x.iid), [iid]);

      const ack = await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: dev.token, body: { status: 'acknowledged' } });
      assert.equal(ack.status, 200);
      assert.equal(ack.body.status, 'acknowledged');
      assert.ok((await alerts('?status=acknowledged')).body.some((x: any) => x.iid === iid));
      assert.ok(!(await alerts('?status=triggered')).body.some((x: any) => x.iid === iid));
      const res = await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: dev.token, body: { status: 'resolved' } });
      assert.equal(res.body.status, 'resolved');
      assert.ok(res.body.ended_at);
      // A payload of the same fingerprint now opens a new alert; the old one cannot reopen beside it.
      const b = await send({ title: 'Needle again', fingerprint: 'rest-1' });
      assert.notEqual(b.body[0].iid, iid);
      const reopen = await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: dev.token, body: { status: 'triggered' } });
      assert.equal(reopen.status, 400);
      assert.deepEqual(Object.keys(reopen.body.message), ['status']);
      await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${b.body[0].iid}`, { token: dev.token, body: { status: 'resolved' } });
      const ign = await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: dev.token, body: { status: 'ignored' } });
      assert.equal(ign.body.status, 'ignored');
      assert.equal(ign.body.ended_at, null);

      const bad = await t.request('PUT', `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: dev.token, body: { status: 'closed' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'status does not have a valid value' });
      assert.equal((await alerts('?status=closed')).status, 400);
      const missing = await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts/99999`, { token: dev.token });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: '404 Alert Not Found' });
      assert.equal((await alerts('', reporter.token)).status, 403);
      assert.equal((await alerts('', stranger.token)).status, 404);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/alert_management_alerts`, { token: null })).status, 401);
    });

    it('test alerts: developers and above, through an integration', async () => {
      const url = `/api/v4/projects/${p.id}/alert_integrations/${integ.id}/test_alert`;
      const r = await t.request('POST', url, { token: dev.token, body: { title: 'Test alert from the settings', fingerprint: 'test' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body[0].title, 'Test alert from the settings');
      assert.equal((await t.request('POST', url, { token: reporter.token, body: {} })).status, 403);
      assert.equal((await t.request('POST', url, { token: stranger.token, body: {} })).status, 404);
      assert.equal((await t.request('POST', url, { token: null, body: {} })).status, 401);
      const off = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { token: owner.token, body: { name: 'Paused', active: false } });
      const paused = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations/${off.body.id}/test_alert`, { token: dev.token, body: { title: 't' } });
      assert.equal(paused.status, 403);
      const unknown = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations/99999/test_alert`, { token: dev.token, body: {} });
      assert.equal(unknown.status, 404);
    });

    it('1,000 payloads over 10 fingerprints from 20 concurrent senders: exactly 10 open alerts counting 1,000', async () => {
      const q = await makeProject(t, owner.token, { name: 'storm' });
      const i = (await t.request('POST', `/api/v4/projects/${q.id}/alert_integrations`, { token: owner.token, body: { name: 'storm' } })).body;
      let next = 0;
      const statuses: number[] = [];
      const sender = async () => {
        while (next < 1000) {
          const n = next++;
          const r = await send({ title: `storm ${n % 10}`, fingerprint: `storm-${n % 10}`, n }, i.token, i.url);
          statuses.push(r.status);
        }
      };
      await Promise.all(Array.from({ length: 20 }, sender));
      assert.equal(statuses.length, 1000);
      assert.ok(statuses.every((s) => s === 200), JSON.stringify(statuses.filter((s) => s !== 200)));
      const rows = await t.c.db.selectFrom('alerts').selectAll().where('project_id', '=', q.id).execute();
      assert.equal(rows.length, 10);
      assert.ok(rows.every((r) => r.status === 'triggered'));
      assert.equal(rows.reduce((s, r) => s + r.events, 0), 1000);
      assert.deepEqual(rows.map((r) => r.events), Array(10).fill(100));
      assert.deepEqual(rows.map((r) => r.iid).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  });
}
