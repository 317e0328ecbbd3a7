// Test mode's request journal (GET /-/test/requests), fault and latency rules for requests
// (/-/test/faults) and for the delivery inbox's answers to hooks (/-/test/inbox/faults), and the
// clock's freeze, unfreeze, real time and its return to the seeded time at a reset. Over real
// HTTP: a dropped or reset connection is only seen on a socket.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { resetClock } from '../../src/shared/clock.js';
import { JOURNAL_KEEP, JOURNAL_BODY_CHARS } from '../../src/testing/journal.js';

const ALICE = 'alice-journal-token-00000001';
const SEED = {
  users: [{ username: 'alice', tokens: [{ name: 'ci', token: ALICE, scopes: ['api'] }] }],
  projects: [{ path: 'alice/demo', files: { 'README.md': '# demo' }, hooks: [{ url: 'http://inbox.test/demo', push_events: true, token: 'hook-s3cret' }] }],
};

for (const dialect of DIALECTS) {
  describe(`the journal, faults and the clock (${dialect})`, () => {
    let t: TestApp;
    let base: string;
    const http = (method: string, p: string, opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
      fetch(`${base}${p}`, {
        method,
        headers: {
          ...(opts.token === null ? {} : { 'private-token': opts.token ?? t.rootToken }),
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    const json = async (method: string, p: string, body?: unknown) => {
      const r = await http(method, p, { body });
      return { status: r.status, body: r.status === 204 ? null : await r.json() };
    };

    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_TEST_MODE: 'true', ANVIL_TEST_CLOCK: 'true' });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const r = await t.request('POST', '/-/test/seed', { body: { seed: SEED } });
      assert.equal(r.status, 204, r.text);
    });
    after(async () => t.close());
    // A reset puts the clock back where the seed left it (the last test seeds a frozen one).
    afterEach(async () => void (await http('POST', '/-/test/reset')));

    it('the journal lists the requests made, with their user, status and bodies, secrets masked; filters and counts', async () => {
      await http('POST', '/-/test/reset');
      assert.equal((await http('GET', '/api/v4/projects/alice%2Fdemo?private_token=' + ALICE, { token: null })).status, 200);
      assert.equal((await http('GET', '/api/v4/projects/alice%2Fnope', { token: ALICE })).status, 404);
      const created = await http('POST', '/api/v4/user/personal_access_tokens', { token: ALICE, body: { name: 'mine', scopes: ['read_api'] } });
      assert.equal(created.status, 201);
      const secret = (await created.json()).token as string;
      assert.equal((await http('PUT', '/api/v4/projects/alice%2Fdemo/variables/NOPE', { token: ALICE, body: { value: 'var-s3cret-value' } })).status, 404);
      assert.equal((await http('GET', '/api/v4/user', { token: 'not-a-token' })).status, 401);

      const all = await json('GET', '/-/test/requests');
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.map((e: any) => [e.method, e.path, e.status, e.user]),
        [
          ['GET', '/api/v4/projects/alice%2Fdemo', 200, 'alice'],
          ['GET', '/api/v4/projects/alice%2Fnope', 404, 'alice'],
          ['POST', '/api/v4/user/personal_access_tokens', 201, 'alice'],
          ['PUT', '/api/v4/projects/alice%2Fdemo/variables/NOPE', 404, 'alice'],
          ['GET', '/api/v4/user', 401, null],
        ],
      );
      const [first, , post, put] = all.body;
      assert.deepEqual(Object.keys(first), ['id', 'created_at', 'method', 'url', 'path', 'status', 'user', 'duration_ms', 'fault_id', 'request', 'response']);
      assert.equal(first.url, '/api/v4/projects/alice%2Fdemo?private_token=[REDACTED]');
      assert.equal(JSON.parse(first.response.body).path_with_namespace, 'alice/demo');
      assert.equal(post.request.headers['private-token'], '[REDACTED]');
      assert.deepEqual(JSON.parse(post.request.body), { name: 'mine', scopes: ['read_api'] });
      assert.equal(JSON.parse(post.response.body).token, '[REDACTED]');
      assert.equal(JSON.parse(put.request.body).value, '[REDACTED]');
      const everything = JSON.stringify(all.body);
      for (const s of [ALICE, secret, 'var-s3cret-value', 'not-a-token', t.rootToken]) assert.ok(!everything.includes(s), s);

      const q = async (query: string) => (await json('GET', `/-/test/requests?${query}`)).body.map((e: any) => e.path);
      assert.deepEqual(await q('method=post'), ['/api/v4/user/personal_access_tokens']);
      assert.deepEqual(await q('path=/api/v4/projects/*'), ['/api/v4/projects/alice%2Fdemo', '/api/v4/projects/alice%2Fnope']);
      assert.deepEqual(await q('path=/api/v4/projects/**'), ['/api/v4/projects/alice%2Fdemo', '/api/v4/projects/alice%2Fnope', '/api/v4/projects/alice%2Fdemo/variables/NOPE']);
      assert.deepEqual(await q('status=4xx&user=alice'), ['/api/v4/projects/alice%2Fnope', '/api/v4/projects/alice%2Fdemo/variables/NOPE']);
      assert.deepEqual(await q('status=401'), ['/api/v4/user']);
      assert.deepEqual(await q(`since=${post.id}`), ['/api/v4/projects/alice%2Fdemo/variables/NOPE', '/api/v4/user']);
      assert.deepEqual((await json('GET', '/-/test/requests/count?path=/api/v4/projects/**&method=GET')).body, { count: 2 });
      assert.equal((await json('GET', '/-/test/requests?status=2')).status, 400);

      // A reset forgets them; the test endpoints themselves are never in it.
      await http('POST', '/-/test/reset');
      assert.deepEqual((await json('GET', '/-/test/requests')).body, []);
    });

    it('the journal is bounded: the newest entries, bodies cut to size', async () => {
      const big = 'x'.repeat(JOURNAL_BODY_CHARS + 10);
      await http('POST', '/api/v4/user/personal_access_tokens', { token: ALICE, body: { name: big, scopes: ['api'] } });
      const [e] = (await json('GET', '/-/test/requests')).body;
      assert.equal(e.request.body.length, JOURNAL_BODY_CHARS);
      assert.equal(e.request.body_truncated, true);
      for (let i = 0; i < JOURNAL_KEEP + 5; i++) await t.request('GET', '/api/v4/version');
      const count = (await json('GET', '/-/test/requests/count')).body.count;
      assert.equal(count, JOURNAL_KEEP);
    });

    it('a fault answers a status with headers, for `times` requests, then the request is served again; GET lists, DELETE clears', async () => {
      const rule = await json('POST', '/-/test/faults', { method: 'GET', path: '/api/v4/projects', status: 429, headers: { 'Retry-After': '7' }, times: 1 });
      assert.equal(rule.status, 201);
      assert.deepEqual(rule.body, {
        id: rule.body.id, method: 'GET', path: '/api/v4/projects', user: null, status: 429, headers: { 'Retry-After': '7' },
        body: null, drop: false, reset: false, delay: null, times: 1, hits: 0,
      });
      const limited = await http('GET', '/api/v4/projects', { token: ALICE });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '7');
      assert.equal((await http('GET', '/api/v4/projects', { token: ALICE })).status, 200);
      assert.deepEqual((await json('GET', '/-/test/faults')).body, []);
      const journal = (await json('GET', '/-/test/requests?path=/api/v4/projects')).body;
      assert.deepEqual(journal.map((e: any) => [e.status, e.fault_id]), [[429, rule.body.id], [200, null]]);

      // By user, with a JSON body, for ever until cleared.
      await json('POST', '/-/test/faults', { path: '/api/v4/projects/**', user: 'alice', status: 503, body: { message: 'down' } });
      const down = await http('GET', '/api/v4/projects/alice%2Fdemo', { token: ALICE });
      assert.equal(down.status, 503);
      assert.deepEqual(await down.json(), { message: 'down' });
      assert.equal((await http('GET', '/api/v4/projects/alice%2Fdemo')).status, 200, 'root is not alice');
      assert.equal((await http('GET', '/api/v4/projects/alice%2Fdemo', { token: ALICE })).status, 503);
      const [listed] = (await json('GET', '/-/test/faults')).body;
      assert.equal(listed.hits, 2);
      assert.equal(listed.times, null);
      assert.equal((await http('DELETE', '/-/test/faults')).status, 204);
      assert.equal((await http('GET', '/api/v4/projects/alice%2Fdemo', { token: ALICE })).status, 200);

      // One rule removed by id; a reset clears the rest.
      const a = await json('POST', '/-/test/faults', { path: '/api/v4/version', status: 500 });
      assert.equal((await http('DELETE', `/-/test/faults/${a.body.id}`)).status, 204);
      assert.equal((await http('DELETE', `/-/test/faults/${a.body.id}`)).status, 404);
      await json('POST', '/-/test/faults', { path: '/api/v4/version', status: 500 });
      await http('POST', '/-/test/reset');
      assert.deepEqual((await json('GET', '/-/test/faults')).body, []);
      assert.equal((await http('GET', '/api/v4/version')).status, 200);
    });

    it('a fault drops or resets the connection, or delays the answer (fixed or random)', async () => {
      await json('POST', '/-/test/faults', { path: '/api/v4/version', drop: true, times: 1 });
      await assert.rejects(http('GET', '/api/v4/version'), /fetch failed/);
      await json('POST', '/-/test/faults', { path: '/api/v4/version', reset: true, times: 1 });
      await assert.rejects(http('GET', '/api/v4/version'), (err: any) => /ECONNRESET|other side closed|fetch failed/.test(String(err.cause?.code ?? err.cause?.message ?? err)));
      assert.deepEqual((await json('GET', '/-/test/requests?status=none')).body.map((e: any) => e.path), ['/api/v4/version', '/api/v4/version']);

      await json('POST', '/-/test/faults', { path: '/api/v4/version', delay: 400, times: 1 });
      let t0 = Date.now();
      assert.equal((await http('GET', '/api/v4/version')).status, 200);
      assert.ok(Date.now() - t0 >= 390, `${Date.now() - t0} ms`);
      await json('POST', '/-/test/faults', { path: '/api/v4/version', delay: { min: 200, max: 300 }, status: 502, times: 1 });
      t0 = Date.now();
      assert.equal((await http('GET', '/api/v4/version')).status, 502);
      assert.ok(Date.now() - t0 >= 190);
      t0 = Date.now();
      assert.equal((await http('GET', '/api/v4/version')).status, 200);
      assert.ok(Date.now() - t0 < 190);
    });

    it('bad fault rules are 400 with a message; the endpoints need an administrator', async () => {
      const bad = async (body: unknown, message: string) => {
        const r = await json('POST', '/-/test/faults', body);
        assert.deepEqual([r.status, r.body], [400, { message: `400 Bad request - ${message}` }]);
      };
      await bad({ path: '/x' }, 'one of status, drop, reset, delay is needed');
      await bad({ status: 99 }, 'status must be a whole number from 100 to 599');
      await bad({ status: 500, drop: true }, 'status, drop and reset are mutually exclusive');
      await bad({ delay: -1 }, 'delay must be milliseconds (0 to 120000) or {"min", "max"}');
      await bad({ delay: { min: 5, max: 1 } }, 'delay must be milliseconds (0 to 120000) or {"min", "max"}');
      await bad({ status: 500, times: 0 }, 'times must be a whole number of 1 or more');
      await bad({ drop: true, headers: { a: 'b' } }, 'headers and body go with a status');
      const asAlice = await http('POST', '/-/test/faults', { token: ALICE, body: { status: 500 } });
      assert.equal(asAlice.status, 403);
      assert.equal((await http('GET', '/-/test/requests', { token: null })).status, 401);
      assert.equal((await http('GET', '/-/test/inbox/faults', { token: ALICE })).status, 403);
    });

    it("the inbox's answers to hooks: a status, a dropped connection, a delay past the sender's timeout; the hook's deliveries show them", async () => {
      const hook = (await json('GET', '/api/v4/projects/alice%2Fdemo/hooks')).body[0];
      const rule = await json('POST', '/-/test/inbox/faults', { url: 'http://inbox.test/**', status: 500, body: 'broken', times: 1 });
      assert.equal(rule.status, 201);
      assert.equal(rule.body.url, 'http://inbox.test/**');
      assert.equal('user' in rule.body, false);
      await json('POST', '/-/test/inbox/faults', { url: 'http://inbox.test/demo', drop: true, times: 1 });
      await json('POST', '/-/test/inbox/faults', { method: 'POST', url: 'http://inbox.test/*', delay: 60_000, times: 1 });
      const since = (await json('GET', '/-/test/deliveries')).body.at(-1)?.id ?? 0;
      // The test-hook endpoint answers 422 with the receiver's failure, as the reference does.
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await json('POST', `/api/v4/projects/alice%2Fdemo/hooks/${hook.id}/test/push_events`)).status);
      assert.deepEqual(statuses, [422, 422, 422, 201]);
      const got = (await json('GET', `/-/test/deliveries?since=${since}`)).body;
      assert.deepEqual(
        got.map((d: any) => [d.response?.status ?? null, d.error]),
        [[500, null], [null, 'socket hang up'], [null, 'execution expired'], [200, null]],
      );
      assert.equal(got[0].response.body, 'broken');
      assert.deepEqual((await json('GET', '/-/test/inbox/faults')).body, []);
      await json('POST', '/-/test/inbox/faults', { url: 'http://inbox.test/**', status: 500 });
      assert.equal((await http('DELETE', '/-/test/inbox/faults')).status, 204);
      assert.deepEqual((await json('GET', '/-/test/inbox/faults')).body, []);
    });

    it('the clock freezes, unfreezes from where it stood, goes back to real time; a reset returns it to where the seed left it', async () => {
      const clock = (body: unknown) => json('POST', '/-/test/clock', body);
      const frozen = await clock({ set: '2030-01-01T00:00:00Z', freeze: true });
      assert.deepEqual(frozen.body, { now: '2030-01-01T00:00:00.000Z', movable: true, frozen: true });
      await new Promise((r) => setTimeout(r, 30));
      assert.equal((await json('GET', '/-/test/clock')).body.now, '2030-01-01T00:00:00.000Z');
      assert.equal((await clock({ advance: '25h' })).body.now, '2030-01-02T01:00:00.000Z');
      const going = await clock({ freeze: false });
      assert.equal(going.body.frozen, false);
      await new Promise((r) => setTimeout(r, 30));
      const later = Date.parse((await json('GET', '/-/test/clock')).body.now);
      assert.ok(later > Date.parse('2030-01-02T01:00:00.020Z') && later < Date.parse('2030-01-02T01:01:00Z'));
      const real = await clock({ real: true });
      assert.ok(Math.abs(Date.parse(real.body.now) - Date.now()) < 1000);
      assert.deepEqual([real.body.movable, real.body.frozen], [true, false]);

      // Where the seed left it (frozen at an instant) is where a reset brings it back.
      await clock({ set: '2031-06-01T12:00:00Z', freeze: true });
      assert.equal((await t.request('POST', '/-/test/seed', { body: { seed: {} } })).status, 204);
      await clock({ real: true });
      await http('POST', '/-/test/reset');
      assert.deepEqual((await json('GET', '/-/test/clock')).body, { now: '2031-06-01T12:00:00.000Z', movable: true, frozen: true });
    });

    it('the clock has one error shape', async () => {
      const bad = async (body: unknown, message: string) => {
        const r = await json('POST', '/-/test/clock', body);
        assert.deepEqual([r.status, r.body], [400, { message: `400 Bad request - ${message}` }]);
      };
      await bad({}, 'one of advance, set, freeze, real is needed');
      await bad({ advance: '1h', set: '2030-01-01' }, 'advance, set are mutually exclusive');
      await bad({ advance: 'soon' }, 'advance is invalid (a duration such as 90s, 25h, 2d)');
      await bad({ set: 'tomorrow' }, 'set is invalid (an ISO 8601 time such as 2030-01-01T00:00:00Z)');
      await bad({ freeze: 'yes' }, 'freeze must be true or false');
      await bad({ real: false }, 'real must be true, and alone');
      await bad({ real: true, freeze: true }, 'real must be true, and alone');
      await bad({ when: 'now' }, 'one of advance, set, freeze, real is needed');
    });
  });
}

describe('the clock without the test clock', () => {
  let t: TestApp;
  before(async () => {
    resetClock();
    t = await buildTestApp('sqlite', { ANVIL_TEST_MODE: 'true' });
  });
  after(async () => t.close());

  it('moving it is 403 with a message, in the same shape', async () => {
    for (const body of [{ freeze: true }, { advance: '1h' }, { real: true }]) {
      const r = await t.request('POST', '/-/test/clock', { body });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden - the clock moves only with the test clock (ANVIL_TEST_CLOCK=1 or --clock)' }]);
    }
    assert.deepEqual(Object.keys((await t.get('/-/test/clock')).body), ['now', 'movable', 'frozen']);
  });
});
