// The HOOKS scenario's seed and figures: 10,000 events (ANVIL_BENCH_HOOK_EVENTS) delivered by the
// server's own queue workers to a receiver on loopback, while GET /projects/:id is measured:
//  1. the p99 of GET /projects/:id on a quiet server (the baseline);
//  2. 10 system hooks, then project updates through the API until 10,000 deliveries are recorded
//     (each update is one project_update event for each hook);
//  3. the p99 of the same GET while those deliveries run, and deliveries per second (first to
//     last arrival at the receiver).
// `npm run bench -- hooks` runs only this scenario.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type { BenchContext } from './run.js';
import { oncePerServer } from './server.js';

export const HOOK_EVENTS = Number(process.env.ANVIL_BENCH_HOOK_EVENTS ?? 10_000);
const HOOKS = 10;
const DURATION = Number(process.env.ANVIL_BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.ANVIL_BENCH_CONNECTIONS ?? 10);

export interface SeededHooks {
  projectId: number;
}

/** Seeds once per server, however many scenarios ask. */
export const seedHooks = oncePerServer(seed);

const say = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function p99Of(ctx: BenchContext, projectId: number): Promise<{ p99: number; rps: number }> {
  const r = await autocannon({ url: `${ctx.url}/api/v4/projects/${projectId}`, headers: { 'private-token': ctx.token }, connections: CONNECTIONS, duration: DURATION });
  return { p99: r.latency.p99, rps: r.requests.average };
}

async function seed(ctx: BenchContext): Promise<SeededHooks> {
  const arrivals: number[] = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(Date.now());
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    const project = await ctx.api('POST', '/api/v4/projects', { name: 'bench-hooks', visibility: 'private' });
    await p99Of(ctx, project.id); // warm-up
    const quiet = await p99Of(ctx, project.id);

    // System hooks may reach loopback by default (allow_local_requests_from_system_hooks).
    for (let i = 0; i < HOOKS; i++) await ctx.api('POST', '/api/v4/hooks', { url: `${rxUrl}/h${i}`, token: `bench-${i}` });
    const updates = Math.ceil(HOOK_EVENTS / HOOKS);
    const recordStart = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < updates) {
          const n = next++;
          await ctx.api('PUT', `/api/v4/projects/${project.id}`, { description: `update ${n}` });
        }
      }),
    );
    const recordS = (Date.now() - recordStart) / 1000;
    const deliveredWhenMeasuring = arrivals.length;
    const busy = await p99Of(ctx, project.id);
    const deliveredAfterMeasuring = arrivals.length;
    const total = updates * HOOKS;
    for (let i = 0; i < 6000 && arrivals.length < total; i++) await sleep(100);
    const span = (arrivals[arrivals.length - 1]! - arrivals[0]!) / 1000;
    say(
      `hooks: ${updates} project updates × ${HOOKS} system hooks recorded in ${recordS.toFixed(1)} s; ` +
        `${arrivals.length} of ${total} deliveries arrived in ${span.toFixed(1)} s = ${(arrivals.length / Math.max(span, 0.001)).toFixed(0)} deliveries/s`,
    );
    say(
      `hooks: GET /projects/:id p99 ${quiet.p99.toFixed(1)} ms quiet (${quiet.rps.toFixed(0)} req/s) vs ${busy.p99.toFixed(1)} ms during the burst ` +
        `(${busy.rps.toFixed(0)} req/s; ${deliveredAfterMeasuring - deliveredWhenMeasuring} deliveries arrived during that measurement` +
        `${deliveredAfterMeasuring >= total ? ', the burst ended before the measurement did' : ''})`,
    );
    return { projectId: project.id };
  } finally {
    await new Promise<void>((r) => {
      receiver.closeAllConnections();
      receiver.close(() => r());
    });
  }
}
