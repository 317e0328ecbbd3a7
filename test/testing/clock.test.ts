// The one clock: the system clock unless test mode enabled the test clock; then set and advanced,
// and everything time-based in the domain follows it (token expiry, runner status, delayed queue
// work, timers).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { adminCreateToken, dayFromToday } from '../helpers/tokens.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { advanceClock, clockTimer, enableTestClock, now, resetClock, setClock } from '../../src/shared/clock.js';
import { nowIso, today } from '../../src/shared/time.js';

const HOUR = 3600_000;
const REG_TOKEN = 'clock-registration-token-0001';

describe('the clock', () => {
  afterEach(() => resetClock());

  it('is the system clock and cannot move unless the test clock is enabled', () => {
    const before = Date.now();
    const t = now();
    assert.ok(t >= before && t <= Date.now());
    assert.throws(() => advanceClock(HOUR), /only move in test mode/);
    assert.throws(() => setClock(0), /only move in test mode/);
    assert.ok(Math.abs(now() - Date.now()) < 50);
  });

  it('is set and advanced; time goes on from there; today() and nowIso() follow', () => {
    enableTestClock();
    setClock(Date.parse('2030-01-01T00:00:00Z'));
    assert.equal(today(), '2030-01-01');
    assert.match(nowIso(), /^2030-01-01T00:00:00\.\d{3}Z$/);
    advanceClock(25 * HOUR);
    assert.equal(today(), '2030-01-02');
    assert.match(nowIso(), /^2030-01-02T01:00:00\.\d{3}Z$/);
    resetClock();
    assert.equal(today(), new Date().toISOString().slice(0, 10));
  });

  it('a clock timer fires when the clock is advanced past it, and not when cleared', async () => {
    enableTestClock();
    let fired = 0;
    let clearedFired = 0;
    clockTimer(now() + 10 * HOUR, () => (fired += 1));
    const cleared = clockTimer(now() + 10 * HOUR, () => (clearedFired += 1));
    cleared.clear();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(fired, 0);
    advanceClock(11 * HOUR);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(fired, 1);
    assert.equal(clearedFired, 0);
  });
});

for (const dialect of DIALECTS) {
  describe(`the clock drives the domain (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN });
    });
    after(async () => t.close());
    afterEach(() => resetClock());

    it('a token expiring tomorrow stops working when the clock is advanced 25h', async () => {
      enableTestClock();
      const u = await t.createUser();
      const pat = await adminCreateToken(t, u.id, { expires_at: dayFromToday(1) });
      assert.equal((await t.get('/api/v4/user', pat.token)).status, 200);
      advanceClock(25 * HOUR);
      const r = await t.get('/api/v4/user', pat.token);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { message: '401 Unauthorized' });
    });

    it('a runner that made contact is online, offline 2 hours later and stale after a week, by the clock', async () => {
      enableTestClock();
      const reg = await t.request('POST', '/api/v4/runners', { token: null, body: { token: REG_TOKEN, description: 'clocked' } });
      assert.equal(reg.status, 201);
      assert.equal((await t.request('POST', '/api/v4/runners/verify', { token: null, body: { token: reg.body.token } })).status, 200);
      const status = async () => (await t.get(`/api/v4/runners/${reg.body.id}`)).body.status;
      assert.equal(await status(), 'online');
      advanceClock(2 * HOUR + 60_000);
      assert.equal(await status(), 'offline');
      advanceClock(7 * 24 * HOUR);
      assert.equal(await status(), 'stale');
    });

    it('queued work delayed by an hour runs once the clock is advanced past it', async () => {
      enableTestClock();
      const q = testQueue(t.c.db, { pollMs: 60_000 });
      const ran: number[] = [];
      q.register('clock_test', async (p: { n: number }) => {
        ran.push(p.n);
      });
      q.start();
      try {
        await q.enqueue('clock_test', { n: 1 }, { runAt: new Date(now() + HOUR) });
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(ran, []);
        advanceClock(HOUR + 1000);
        await waitFor('the delayed job', () => ran.length === 1, 5000);
        assert.deepEqual(ran, [1]);
      } finally {
        await q.stop();
      }
    });
  });
}
