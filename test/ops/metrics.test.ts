import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { opsTestRoutes } from '../helpers/ops.js';
import { LATENCY_BUCKETS } from '../../src/http/metrics.js';

/** The value of one sample line, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const dialect of DIALECTS) {
  describe(`metrics (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, {}, { extraRoutes: opsTestRoutes });
    });
    after(async () => t.close());

    it('is Prometheus text, served without a token', async () => {
      const r = await t.get('/-/metrics', null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(r.text, /^# HELP http_requests_total /m);
      assert.match(r.text, /^# TYPE http_requests_total counter$/m);
      assert.match(r.text, /^# TYPE http_request_duration_seconds histogram$/m);
      assert.ok(r.text.endsWith('\n'));
      // every non-comment line is `name{labels} number`
      for (const line of r.text.split('\n').filter((l) => l && !l.startsWith('#'))) {
        assert.match(line, /^[a-z_:][a-z0-9_:]*(\{([a-z_]+="(?:[^"\\]|\\.)*",?)*\})? -?[0-9.e+-]+$/i, line);
      }
      assert.ok(sample(r.text, 'process_resident_memory_bytes')! > 1e6);
      assert.ok(sample(r.text, 'process_uptime_seconds')! > 0);
      // the V8 heap: in use, never more than reserved; and the memory outside it
      const used = sample(r.text, 'nodejs_heap_used_bytes')!;
      assert.ok(used > 1e6 && used <= sample(r.text, 'nodejs_heap_size_total_bytes')!);
      assert.ok(sample(r.text, 'nodejs_external_memory_bytes')! > 0);
      assert.match(r.text, /^# TYPE nodejs_heap_size_total_bytes gauge$/m);
      assert.match(r.text, /^anvil_build_info\{revision="anvil-[^"]+"\} 1$/m);
    });

    it('counts requests by method, route pattern and status, and times them', async () => {
      const before = (await t.get('/-/metrics', null)).text;
      const base = sample(before, 'http_requests_total{method="get",route="/api/v4/user",status="200"}') ?? 0;
      await t.get('/api/v4/user');
      await t.get('/api/v4/user');
      await t.get('/api/v4/user', null);
      await t.get('/api/v4/ops-test/123/items/456');
      await t.get('/api/v4/ops-test/9/items/abc');
      await t.request('POST', '/api/v4/ops-test/5/items', { body: { name: 'x' } });
      await t.get('/api/v4/no/such/thing/secret-path-999');

      const m = (await t.get('/-/metrics', null)).text;
      assert.equal(sample(m, 'http_requests_total{method="get",route="/api/v4/user",status="200"}'), base + 2);
      assert.equal(sample(m, 'http_requests_total{method="get",route="/api/v4/user",status="401"}'), 1);
      const pattern = '/api/v4/ops-test/:id/items/:item_id';
      assert.equal(sample(m, `http_requests_total{method="get",route="${pattern}",status="200"}`), 1);
      assert.equal(sample(m, `http_requests_total{method="get",route="${pattern}",status="400"}`), 1);
      assert.equal(sample(m, 'http_requests_total{method="post",route="/api/v4/ops-test/:id/items",status="201"}'), 1);
      assert.equal(sample(m, 'http_requests_total{method="get",route="(unmatched)",status="404"}'), 1);
      // never the raw URL: route labels are patterns (process figures elsewhere may hold any digits)
      const routes = [...m.matchAll(/route="([^"]*)"/g)].map((x) => x[1]);
      assert.ok(routes.includes(pattern));
      for (const raw of ['123', '456', 'abc', 'secret-path-999']) {
        assert.ok(!routes.some((r) => r.includes(raw)), `a route label contains ${raw}: ${routes.join(', ')}`);
      }

      // the histogram: cumulative buckets ending in +Inf = count
      const labels = `method="get",route="${pattern}"`;
      const counts = LATENCY_BUCKETS.map((le) => sample(m, `http_request_duration_seconds_bucket{${labels},le="${le}"}`)!);
      counts.forEach((n, i) => assert.ok(i === 0 || n >= counts[i - 1]));
      assert.equal(sample(m, `http_request_duration_seconds_bucket{${labels},le="+Inf"}`), 2);
      assert.equal(sample(m, `http_request_duration_seconds_count{${labels}}`), 2);
      const sum = sample(m, `http_request_duration_seconds_sum{${labels}}`)!;
      assert.ok(sum > 0 && sum < 10, `sum ${sum}`);
    });

    it('counts scrapes of itself and the probes under their own patterns', async () => {
      await t.get('/-/health', null);
      const m = (await t.get('/-/metrics', null)).text;
      assert.ok(sample(m, 'http_requests_total{method="get",route="/-/health",status="200"}')! >= 1);
      assert.ok(sample(m, 'http_requests_total{method="get",route="/-/metrics",status="200"}')! >= 1);
    });
  });
}
