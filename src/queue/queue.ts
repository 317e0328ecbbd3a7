// The durable background-work queue: jobs live in the `background_jobs` table, so they survive
// restarts and are shared by every node on the same database.
//
// Delivery is at-least-once: a worker LEASES a job (state running, locked_until in the near
// future, renewed while the handler runs). If the worker dies, the lease runs out and another
// worker runs the job again. Hence handlers must be idempotent, and payloads carry ids only
// (the handler reads the current state from the database).
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.js';
import {
  deleteQueuedJob, insertBackgroundJob, leaseNextJob, markDead, markDone, markRetry, pruneJobs, renewLease, requeueExpiredLeases,
  type BackgroundJobRow, type Lease,
} from '../db/repos/background_jobs.js';
import { Sleepers } from '../shared/sleepers.js';
import { now as clockNow, nowDate, onClockChange } from '../shared/clock.js';

export interface JobInfo {
  id: number;
  kind: string;
  /** 1 on the first run; counts runs cut short by a crash too. */
  attempts: number;
  maxAttempts: number;
  /** Aborted when this worker lost the lease or the queue stopped without waiting any longer. */
  signal: AbortSignal;
}

export type JobHandler<P = any> = (payload: P, job: JobInfo) => Promise<void>;

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date | string;
  /** Attempts before the job is dead (default 5). */
  maxAttempts?: number;
  /** Enqueue inside the caller's transaction, so the job exists only if the transaction commits. */
  trx?: Kysely<DB>;
}

export interface QueueOptions {
  /** Workers in this process; 0 runs none (the queue can still enqueue). */
  workers: number;
  /** How long a lease lasts without renewal; a crashed worker's job is retried after this. */
  leaseMs?: number;
  /** Sleep between polls when there is nothing to do (a local enqueue wakes a worker at once). */
  pollMs?: number;
  /** Retry delay after the n-th failed attempt is base × 2^(n-1) (+ up to 10% jitter), capped. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** stop() waits this long for running handlers before giving up on them. */
  stopTimeoutMs?: number;
  /** Finished jobs are deleted after these ages. */
  doneRetentionMs?: number;
  deadRetentionMs?: number;
  /** How often a started queue prunes old jobs. */
  cleanupIntervalMs?: number;
  /** Worker ids are `<name>:<n>`; default hostname:pid. */
  name?: string;
}

const MAX_PAYLOAD_BYTES = 8 * 1024;
const MAX_ERROR_CHARS = 4000;
const HOUR = 3600_000;

// Worker numbers are unique within the process, so two queues in one process (tests) never
// share a worker id.
let workerSeq = 0;

const iso = (ms: number) => new Date(ms).toISOString();

export class Queue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly opts: Required<QueueOptions>;
  private readonly sleepers = new Sleepers();
  private readonly inflight = new Set<{ abort: AbortController; renew: NodeJS.Timeout; renewNow: () => Promise<void> }>();
  private loops: Promise<void>[] = [];
  private maintenance: NodeJS.Timeout | null = null;
  private unwatchClock: (() => void) | null = null;
  private maintaining: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  private lastCleanup = 0;
  private state: 'idle' | 'started' | 'stopping' | 'stopped' = 'idle';

  constructor(
    private readonly db: Kysely<DB>,
    private readonly log: Logger,
    opts: QueueOptions,
  ) {
    this.opts = {
      leaseMs: 60_000,
      pollMs: 1000,
      backoffBaseMs: 10_000,
      backoffCapMs: HOUR,
      stopTimeoutMs: 20_000, // under the ~30 s an orchestrator waits after SIGTERM
      doneRetentionMs: 24 * HOUR,
      deadRetentionMs: 30 * 24 * HOUR,
      cleanupIntervalMs: 10 * 60_000,
      name: `${os.hostname()}:${process.pid}`,
      ...opts,
    };
  }

  /** One handler per kind; it must be idempotent (a job can run more than once). */
  register<P = any>(kind: string, handler: JobHandler<P>): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`);
    this.handlers.set(kind, handler as JobHandler);
  }

  /** Stores a job and returns its id. The payload is JSON with ids only, never data. */
  async enqueue(kind: string, payload: object, opts: EnqueueOptions = {}): Promise<number> {
    const json = JSON.stringify(payload);
    if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) {
      throw new Error(`job payload of "${kind}" is over ${MAX_PAYLOAD_BYTES} bytes: pass ids, not data`);
    }
    const maxAttempts = opts.maxAttempts ?? 5;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error('maxAttempts must be a whole number ≥ 1');
    const now = nowDate().toISOString();
    const runAt = opts.runAt === undefined ? now : new Date(opts.runAt).toISOString();
    const id = await insertBackgroundJob(opts.trx ?? this.db, {
      kind, payload: json, state: 'queued', attempts: 0, max_attempts: maxAttempts,
      run_at: runAt, created_at: now, updated_at: now,
    });
    // Inside a transaction the row is not visible yet; the next poll picks it up.
    if (!opts.trx && runAt <= now) this.sleepers.wakeOne();
    return id;
  }

  /** Wakes the idle workers: jobs enqueued in a transaction that just committed run now, not at the next poll. */
  wake(): void {
    this.sleepers.wakeAll();
  }

  /** Deletes a job that has not started yet (in the caller's transaction, if given); false when it is running or gone. */
  async cancelQueued(id: number, trx?: Kysely<DB>): Promise<boolean> {
    return deleteQueuedJob(trx ?? this.db, id);
  }

  /** Starts the workers and the periodic maintenance. Does nothing with 0 workers. */
  start(): void {
    if (this.state !== 'idle') throw new Error(`queue already ${this.state}`);
    this.state = 'started';
    if (this.opts.workers <= 0) return;
    for (let i = 0; i < this.opts.workers; i++) {
      workerSeq += 1;
      this.loops.push(this.work(`${this.opts.name}:${workerSeq}`));
    }
    // Lost leases are noticed within half a lease of expiring.
    const every = Math.min(Math.max(Math.floor(this.opts.leaseMs / 2), 50), this.opts.cleanupIntervalMs);
    const tick = () => {
      this.maintaining ??= this.maintain().finally(() => { this.maintaining = null; });
    };
    this.maintenance = setInterval(tick, every);
    // A job whose time came because a test moved the clock runs now, not at the next poll.
    this.unwatchClock = onClockChange(() => this.sleepers.wakeAll());
    tick();
  }

  /**
   * Stops taking jobs and waits (up to stopTimeoutMs, or `waitMs`) for running handlers. A handler still
   * running after that is abandoned: its lease runs out and another worker runs the job again.
   */
  stop(waitMs = this.opts.stopTimeoutMs): Promise<void> {
    if (this.state === 'idle') this.state = 'stopped';
    // a second caller (main.ts, then closeContainer) waits for the same stop
    this.stopped ??= this.state === 'started' ? this.shutdown(waitMs) : Promise.resolve();
    return this.stopped;
  }

  private async shutdown(waitMs: number): Promise<void> {
    this.state = 'stopping';
    if (this.maintenance) clearInterval(this.maintenance);
    this.unwatchClock?.();
    this.sleepers.close();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all([...this.loops, this.maintaining]).then(() => true),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), waitMs); }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.log.warn({ running: this.inflight.size }, 'queue stopped with jobs still running; they will be retried when their lease expires');
      for (const j of this.inflight) {
        clearInterval(j.renew);
        j.abort.abort(new Error('the queue stopped'));
      }
    }
    this.state = 'stopped';
  }

  /** Requeues jobs of crashed workers and prunes old finished jobs. */
  async maintain(now = clockNow()): Promise<void> {
    try {
      // This process's own running jobs are alive: their leases are renewed first, so that after
      // a stall of the event loop (a long synchronous step) the renewal that was due and this
      // check never race, and a job still running here is never handed to another worker.
      await Promise.all([...this.inflight].map((j) => j.renewNow()));
      // Leases are between live processes: they run on the system clock.
      const requeued = await requeueExpiredLeases(this.db, iso(Date.now()));
      if (requeued) this.log.warn({ requeued }, 'requeued jobs whose worker lost its lease');
      if (now - this.lastCleanup >= this.opts.cleanupIntervalMs) {
        this.lastCleanup = now;
        await this.cleanup(now);
      }
    } catch (err) {
      if (this.state === 'started') this.log.error({ err }, 'queue maintenance failed');
    }
  }

  /** Deletes done jobs older than doneRetentionMs and dead ones older than deadRetentionMs. */
  async cleanup(now = clockNow()): Promise<{ done: number; dead: number }> {
    const prune = async (state: 'done' | 'dead', before: string) => {
      let total = 0;
      for (;;) {
        const n = await pruneJobs(this.db, state, before);
        total += n;
        if (n < 1000) return total;
      }
    };
    return {
      done: await prune('done', iso(now - this.opts.doneRetentionMs)),
      dead: await prune('dead', iso(now - this.opts.deadRetentionMs)),
    };
  }

  /** Delay before the next attempt after `attempts` failed ones. */
  backoffMs(attempts: number): number {
    const base = Math.min(this.opts.backoffCapMs, this.opts.backoffBaseMs * 2 ** Math.min(attempts - 1, 30));
    return Math.min(this.opts.backoffCapMs, Math.round(base * (1 + Math.random() * 0.1)));
  }

  private async work(workerId: string): Promise<void> {
    while (this.state === 'started') {
      let job: BackgroundJobRow | undefined;
      try {
        job = await leaseNextJob(this.db, { now: iso(clockNow()), lockedBy: workerId, lockedUntil: iso(Date.now() + this.opts.leaseMs) });
      } catch (err) {
        if (this.state === 'started') this.log.error({ err, worker: workerId }, 'leasing a job failed');
      }
      if (job) await this.run(job, workerId);
      else await this.sleepers.sleep(this.opts.pollMs);
    }
  }

  private async run(job: BackgroundJobRow, workerId: string): Promise<void> {
    const lease: Lease = { id: job.id, lockedBy: workerId, attempts: job.attempts };
    const log = this.log.child({ job: job.id, kind: job.kind, attempt: job.attempts, worker: workerId });
    const handler = this.handlers.get(job.kind);
    if (!handler) {
      const error = `no handler is registered for job kind "${job.kind}"`;
      log.error(error);
      await this.settle(log, () => markDead(this.db, lease, error, iso(clockNow())));
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      await this.settle(log, () => markDead(this.db, lease, 'the payload is not valid JSON', iso(clockNow())));
      return;
    }

    const abort = new AbortController();
    let renewal: Promise<void> | null = null;
    // One renewal at a time; a second caller (the timer, maintain) waits for the one under way.
    const renewNow = (): Promise<void> =>
      (renewal ??= (async () => {
        if (abort.signal.aborted) return;
        try {
          if (!(await renewLease(this.db, lease, iso(Date.now() + this.opts.leaseMs), iso(clockNow())))) {
            log.warn('lost the lease of a running job; another worker may run it again');
            clearInterval(renew);
            abort.abort(new Error('lease lost'));
          }
        } catch (err) {
          log.warn({ err }, 'renewing a lease failed; trying again');
        }
      })().finally(() => {
        renewal = null;
      }));
    const renew = setInterval(() => void renewNow(), Math.max(Math.floor(this.opts.leaseMs / 3), 10));
    const entry = { abort, renew, renewNow };
    this.inflight.add(entry);

    let failure: unknown = null;
    const started = Date.now();
    try {
      await handler(payload, { id: job.id, kind: job.kind, attempts: job.attempts, maxAttempts: job.max_attempts, signal: abort.signal });
    } catch (err) {
      failure = err ?? new Error('the handler failed');
    } finally {
      clearInterval(renew);
      this.inflight.delete(entry);
    }

    const now = clockNow();
    if (failure === null) {
      log.debug({ ms: Date.now() - started }, 'job done');
      await this.settle(log, () => markDone(this.db, lease, iso(now)));
      return;
    }
    const error = errorText(failure);
    if (job.attempts >= job.max_attempts) {
      log.error({ err: failure }, 'job failed for the last time; it is dead');
      await this.settle(log, () => markDead(this.db, lease, error, iso(now)));
    } else {
      const delay = this.backoffMs(job.attempts);
      log.warn({ err: failure, retryInMs: delay }, 'job failed; retrying later');
      await this.settle(log, () => markRetry(this.db, lease, iso(now + delay), error, iso(now)));
    }
  }

  /** Records a job's outcome; if that fails the lease expires and the job runs again. */
  private async settle(log: Logger, write: () => Promise<boolean>): Promise<void> {
    try {
      if (!(await write())) log.warn('the lease expired before the job finished; another worker owns it now');
    } catch (err) {
      log.error({ err }, 'recording the outcome of a job failed; it will run again after its lease expires');
    }
  }

}

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
