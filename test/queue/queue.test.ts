import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { openSecondDb, spawnWorker, testQueue, waitFor } from '../helpers/queue.js';
import { countJobsByState, findBackgroundJob } from '../../src/db/repos/background_jobs.js';
import type { DB } from '../../src/db/schema.js';
import type { Queue } from '../../src/queue/queue.js';

for (const dialect of DIALECTS) {
  describe(`queue (${dialect})`, () => {
    let t: TestApp;
    let db: Kysely<DB>;
    const started: Queue[] = [];
    const extraDbs: Kysely<DB>[] = [];
    const queue = (opts: Parameters<typeof testQueue>[1] = {}, on: Kysely<DB> = db) => {
      const q = testQueue(on, opts);
      started.push(q);
      return q;
    };
    const job = async (id: number) => (await findBackgroundJob(db, id))!;

    before(async () => {
      t = await buildTestApp(dialect);
      db = t.c.db;
    });
    afterEach(async () => {
      await Promise.all(started.splice(0).map((q) => q.stop()));
      // each test starts from an empty queue, so one test's jobs never reach another's workers
      await db.deleteFrom('background_jobs').execute();
    });
    after(async () => {
      for (const d of extraDbs) await d.destroy();
      await t.close();
    });

    it('runs an enqueued job once, with its payload, and marks it done', async () => {
      const q = queue();
      const seen: Array<{ payload: unknown; attempts: number; maxAttempts: number; kind: string }> = [];
      q.register('test.echo', async (payload: unknown, j) => {
        seen.push({ payload, attempts: j.attempts, maxAttempts: j.maxAttempts, kind: j.kind });
      });
      q.start();
      const id = await q.enqueue('test.echo', { projectId: 7 }, { maxAttempts: 3 });
      await waitFor('job done', async () => (await job(id)).state === 'done');
      assert.deepEqual(seen, [{ payload: { projectId: 7 }, attempts: 1, maxAttempts: 3, kind: 'test.echo' }]);
      const row = await job(id);
      assert.equal(row.attempts, 1);
      assert.equal(row.locked_by, null);
      assert.equal(row.locked_until, null);
      assert.equal(row.last_error, null);
    });

    it('a local enqueue wakes an idle worker at once instead of waiting for the next poll', async () => {
      const q = queue({ pollMs: 60_000, workers: 1 });
      let ran = 0;
      q.register('test.wake', async () => {
        ran += 1;
      });
      q.start();
      await sleep(100); // the worker has polled once and is asleep for a minute
      const t0 = Date.now();
      const id = await q.enqueue('test.wake', {});
      await waitFor('job done', async () => (await job(id)).state === 'done', 3000);
      assert.equal(ran, 1);
      assert.ok(Date.now() - t0 < 3000);
    });

    it('does not run a job before its run_at', async () => {
      const q = queue();
      let ranAt = 0;
      q.register('test.later', async () => {
        ranAt = Date.now();
      });
      q.start();
      const runAt = new Date(Date.now() + 800);
      const id = await q.enqueue('test.later', {}, { runAt });
      await sleep(400);
      const early = await job(id);
      assert.equal(early.state, 'queued');
      assert.equal(early.attempts, 0);
      assert.equal(ranAt, 0);
      await waitFor('job done', async () => (await job(id)).state === 'done');
      assert.ok(ranAt >= runAt.getTime(), `ran ${runAt.getTime() - ranAt} ms early`);
    });

    it('retries a failing job with growing backoff, then marks it dead after max attempts', async () => {
      const q = queue({ backoffBaseMs: 150 });
      const calls: number[] = [];
      q.register('test.fail', async () => {
        calls.push(Date.now());
        throw new Error(`boom ${calls.length}`);
      });
      q.start();
      const id = await q.enqueue('test.fail', {}, { maxAttempts: 3 });
      await waitFor('first failure recorded', async () => (await job(id)).last_error);
      const retry = await job(id);
      assert.equal(retry.state, 'queued');
      assert.equal(retry.attempts, 1);
      assert.equal(retry.last_error, 'Error: boom 1');
      assert.ok(Date.parse(retry.run_at) >= calls[0] + 150);

      await waitFor('job dead', async () => (await job(id)).state === 'dead');
      const dead = await job(id);
      assert.equal(calls.length, 3);
      assert.equal(dead.attempts, 3);
      assert.equal(dead.last_error, 'Error: boom 3');
      assert.ok(calls[1] - calls[0] >= 150, `first retry after ${calls[1] - calls[0]} ms`);
      assert.ok(calls[2] - calls[1] >= 300, `second retry after ${calls[2] - calls[1]} ms`);
      await sleep(200);
      assert.equal(calls.length, 3, 'a dead job is not run again');
    });

    it('a job that fails once and then succeeds ends done after two attempts', async () => {
      const q = queue();
      let calls = 0;
      q.register('test.flaky', async () => {
        calls += 1;
        if (calls === 1) throw new Error('transient');
      });
      q.start();
      const id = await q.enqueue('test.flaky', {});
      await waitFor('job done', async () => (await job(id)).state === 'done');
      const row = await job(id);
      assert.equal(row.attempts, 2);
      assert.equal(calls, 2);
    });

    it('a job of a kind nobody handles is dead with a clear error', async () => {
      const q = queue();
      q.start();
      const id = await q.enqueue('test.nobody', { x: 1 });
      await waitFor('job dead', async () => (await job(id)).state === 'dead');
      const row = await job(id);
      assert.equal(row.last_error, 'no handler is registered for job kind "test.nobody"');
      assert.equal(row.attempts, 1);
    });

    it('refuses a bulky payload and a bad maxAttempts', async () => {
      const q = queue();
      await assert.rejects(q.enqueue('test.big', { data: 'x'.repeat(9000) }), /pass ids, not data/);
      await assert.rejects(q.enqueue('test.x', {}, { maxAttempts: 0 }), /maxAttempts/);
      assert.throws(() => { q.register('a', async () => {}); q.register('a', async () => {}); }, /already registered/);
    });

    it('enqueue inside a transaction: the job exists only if the transaction commits', async () => {
      const q = queue();
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await q.enqueue('test.trx', { n: 1 }, { trx });
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.deepEqual(await countJobsByState(db), {});
      const id = await db.transaction().execute((trx) => q.enqueue('test.trx', { n: 2 }, { trx }));
      assert.equal((await job(id)).state, 'queued');
    });

    it('two nodes with several workers each run 200 jobs exactly once', async () => {
      const db2 = await openSecondDb(t.c.config);
      extraDbs.push(db2);
      const a = queue({ workers: 4, name: 'node-a' });
      const b = queue({ workers: 4, name: 'node-b' }, db2);
      const runs = new Map<number, number>();
      const byNode = { a: 0, b: 0 };
      for (const [q, node] of [[a, 'a'], [b, 'b']] as const) {
        q.register('test.count', async (p: { n: number }) => {
          runs.set(p.n, (runs.get(p.n) ?? 0) + 1);
          byNode[node] += 1;
          await sleep(Math.random() * 4);
        });
      }
      for (let n = 0; n < 200; n++) await a.enqueue('test.count', { n });
      a.start();
      b.start();
      await waitFor('200 jobs done', async () => (await countJobsByState(db)).done === 200, 30_000);
      assert.deepEqual(await countJobsByState(db), { done: 200 });
      assert.equal(runs.size, 200, 'no job lost');
      assert.deepEqual([...runs.values()].filter((c) => c !== 1), [], 'no job run twice');
      assert.ok(byNode.a > 0 && byNode.b > 0, `both nodes worked: ${JSON.stringify(byNode)}`);
      const rows = await db.selectFrom('background_jobs').select(['attempts']).execute();
      assert.ok(rows.every((r) => r.attempts === 1));
    });

    it('a job whose worker process is killed mid-job is run again by another worker after the lease expires', async () => {
      const leaseMs = 1000;
      const w = spawnWorker(t.c.config, { WORKER_MODE: 'crash', WORKER_LEASE_MS: String(leaseMs) });
      try {
        await w.line(/^ready$/);
        const id = await queue().enqueue('test.block', { pipelineId: 42 });
        const m = await w.line(/^started (\d+) (\S+)$/);
        assert.equal(Number(m[1]), id);
        const leased = await job(id);
        assert.equal(leased.state, 'running');
        assert.equal(leased.attempts, 1);
        assert.match(leased.locked_by!, new RegExp(`^${m[2]}:\\d+$`));

        w.child.kill('SIGKILL');
        assert.equal((await w.exited).signal, 'SIGKILL');
        const { locked_until: deadline } = await job(id);

        const q = queue({ leaseMs, workers: 2 });
        let ranAt = 0;
        let payload: unknown;
        q.register('test.block', async (p: unknown) => {
          ranAt = Date.now();
          payload = p;
        });
        q.start();
        await waitFor('job done by the second worker', async () => (await job(id)).state === 'done', 15_000);
        const row = await job(id);
        assert.equal(row.attempts, 2);
        assert.deepEqual(payload, { pipelineId: 42 });
        assert.ok(ranAt >= Date.parse(deadline!), 'not taken over before the lease expired');
        assert.match(row.last_error!, new RegExp(`^the lease of ${m[2]}:\\d+ expired`));
      } finally {
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      }
    });

    it('an expired lease requeues the job, or kills it when its attempts are used up', async () => {
      const q = queue();
      const past = new Date(Date.now() - 1000).toISOString();
      const retry = await q.enqueue('test.reap', {}, { maxAttempts: 3 });
      const poison = await q.enqueue('test.reap', {}, { maxAttempts: 1 });
      const alive = await q.enqueue('test.reap', {});
      await db.updateTable('background_jobs').set({ state: 'running', attempts: 1, locked_by: 'gone:1:1', locked_until: past })
        .where('id', 'in', [retry, poison]).execute();
      const future = new Date(Date.now() + 60_000).toISOString();
      await db.updateTable('background_jobs').set({ state: 'running', attempts: 1, locked_by: 'busy:1:1', locked_until: future })
        .where('id', '=', alive).execute();
      await q.maintain();
      const r = await job(retry);
      assert.equal(r.state, 'queued');
      assert.equal(r.locked_by, null);
      assert.ok(Date.parse(r.run_at) <= Date.now());
      assert.equal(r.last_error, 'the lease of gone:1:1 expired while the job was running (worker lost)');
      assert.equal((await job(poison)).state, 'dead');
      const a = await job(alive);
      assert.equal(a.state, 'running');
      assert.equal(a.locked_by, 'busy:1:1');
    });

    it('a worker that lost its lease cannot overwrite the new owner, and its handler is told', async () => {
      const q = queue({ leaseMs: 300, workers: 1 });
      let release!: () => void;
      let aborted = false;
      q.register('test.slow', async (_p, j) => {
        j.signal.addEventListener('abort', () => { aborted = true; });
        await new Promise<void>((r) => { release = r; });
      });
      q.start();
      const id = await q.enqueue('test.slow', {});
      await waitFor('job running', async () => (await job(id)).state === 'running');
      // another node took the job over (as after an expired lease)
      await db.updateTable('background_jobs').set({ locked_by: 'other:1:1', attempts: 2 }).where('id', '=', id).execute();
      await waitFor('handler aborted', () => aborted, 3000);
      release();
      await sleep(100);
      const row = await job(id);
      assert.equal(row.state, 'running');
      assert.equal(row.locked_by, 'other:1:1');
    });

    it('a handler that holds the event loop past its lease keeps its job: it runs once, never beside a second run', async () => {
      const q = queue({ leaseMs: 300, workers: 2 });
      let runs = 0;
      let running = 0;
      let overlapped = false;
      q.register('test.hog', async () => {
        runs += 1;
        running += 1;
        if (running > 1) overlapped = true;
        try {
          // a long synchronous step (parsing a huge record): no timer of this process fires meanwhile
          const until = Date.now() + 1200;
          while (Date.now() < until) { /* busy */ }
          // then the handler goes on working asynchronously while the overdue timers fire
          await sleep(700);
        } finally {
          running -= 1;
        }
      });
      q.start();
      const id = await q.enqueue('test.hog', {});
      await waitFor('job done', async () => (await job(id)).state === 'done', 10_000);
      await sleep(500);
      assert.equal(overlapped, false);
      assert.equal(runs, 1);
      assert.equal((await job(id)).attempts, 1);
    });

    it('stop() waits for a running handler to finish', async () => {
      const q = queue();
      let finished = false;
      q.register('test.stop', async () => {
        await sleep(300);
        finished = true;
      });
      q.start();
      const id = await q.enqueue('test.stop', {});
      await waitFor('job running', async () => (await job(id)).state === 'running');
      const first = q.stop();
      await q.stop(); // a second caller waits for the same stop
      assert.equal(finished, true);
      await first;
      assert.equal((await job(id)).state, 'done');
    });

    it('stop() gives up on a stuck handler after its timeout and aborts it; the job stays leased for a retry', async () => {
      const q = queue({ stopTimeoutMs: 200 });
      let signal: AbortSignal | undefined;
      q.register('test.stuck', async (_p, j) => {
        signal = j.signal;
        await new Promise(() => {});
      });
      q.start();
      const id = await q.enqueue('test.stuck', {});
      await waitFor('handler started', () => signal);
      const t0 = Date.now();
      await q.stop();
      assert.ok(Date.now() - t0 < 2000);
      assert.equal(signal!.aborted, true);
      assert.equal((await job(id)).state, 'running');
    });

    it('cleanup prunes old done jobs and very old dead ones, keeping recent and unfinished ones', async () => {
      const q = queue({ doneRetentionMs: 3600_000, deadRetentionMs: 7 * 24 * 3600_000 });
      const ago = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
      const make = async (state: string, hoursAgo: number) => {
        const id = await q.enqueue('test.old', {});
        await db.updateTable('background_jobs').set({ state, updated_at: ago(hoursAgo) }).where('id', '=', id).execute();
        return id;
      };
      const oldDone = await make('done', 2);
      const newDone = await make('done', 0.5);
      const oldDead = await make('dead', 24 * 8);
      const newDead = await make('dead', 24 * 6);
      const oldQueued = await make('queued', 24 * 30);
      assert.deepEqual(await q.cleanup(), { done: 1, dead: 1 });
      assert.equal(await findBackgroundJob(db, oldDone), undefined);
      assert.equal(await findBackgroundJob(db, oldDead), undefined);
      for (const id of [newDone, newDead, oldQueued]) assert.ok(await findBackgroundJob(db, id));
    });

    it('closing a container with running workers lets the process exit on its own', async () => {
      const w = spawnWorker(t.c.config, { WORKER_MODE: 'exit', ANVIL_QUEUE_WORKERS: '2' });
      try {
        await w.line(/^closed ran=1$/);
        const giveUp = new AbortController();
        const exit = await Promise.race([w.exited, sleep(5000, null, { signal: giveUp.signal }).catch(() => null)]);
        giveUp.abort();
        assert.deepEqual(exit, { code: 0, signal: null }, 'the process kept running after closeContainer');
      } finally {
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      }
    });
  });
}
