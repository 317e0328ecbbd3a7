// SQL of the durable job queue (src/queue/). A job moves queued → running → done | dead;
// a failed attempt goes back to queued with a later run_at.
//
// Every write that settles a leased job is fenced by (locked_by, attempts): a worker whose
// lease expired and whose job was leased again cannot overwrite the new owner's outcome.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { BackgroundJobsTable, DB } from '../schema.js';
import { dialectOf } from '../dialect.js';

export type BackgroundJobRow = Selectable<BackgroundJobsTable>;

export interface Lease {
  id: number;
  lockedBy: string;
  attempts: number;
}

export const insertBackgroundJob = async (db: Kysely<DB>, row: Insertable<BackgroundJobsTable>): Promise<number> =>
  (await db.insertInto('background_jobs').values(row).returning('id').executeTakeFirstOrThrow()).id;

export const findBackgroundJob = (db: Kysely<DB>, id: number) =>
  db.selectFrom('background_jobs').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * Leases the oldest due queued job in one statement, or returns undefined.
 * SQLite takes its write lock when the UPDATE starts, so the statement is atomic across
 * processes; PostgreSQL needs FOR UPDATE SKIP LOCKED so that concurrent nodes each lock a
 * different row instead of queueing behind (or both updating) the same one.
 */
export async function leaseNextJob(
  db: Kysely<DB>,
  at: { now: string; lockedBy: string; lockedUntil: string },
): Promise<BackgroundJobRow | undefined> {
  const pg = dialectOf(db) === 'postgres';
  const next = db
    .selectFrom('background_jobs')
    .select('id')
    .where('state', '=', 'queued')
    .where('run_at', '<=', at.now)
    .orderBy('run_at')
    .limit(1)
    .$if(pg, (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('background_jobs')
    .set((eb) => ({
      state: 'running',
      locked_by: at.lockedBy,
      locked_until: at.lockedUntil,
      attempts: eb('attempts', '+', 1),
      updated_at: at.now,
    }))
    .where('id', '=', next)
    .where('state', '=', 'queued')
    .returningAll()
    .executeTakeFirst();
}

/** Updates the job only while this lease still owns it; false when the lease was lost. */
async function updateLeased(db: Kysely<DB>, lease: Lease, set: Updateable<BackgroundJobsTable>): Promise<boolean> {
  const r = await db
    .updateTable('background_jobs')
    .set(set)
    .where('id', '=', lease.id)
    .where('state', '=', 'running')
    .where('locked_by', '=', lease.lockedBy)
    .where('attempts', '=', lease.attempts)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Extends the lease of a running handler. */
export const renewLease = (db: Kysely<DB>, lease: Lease, lockedUntil: string, now: string) =>
  updateLeased(db, lease, { locked_until: lockedUntil, updated_at: now });

export const markDone = (db: Kysely<DB>, lease: Lease, now: string) =>
  updateLeased(db, lease, { state: 'done', locked_by: null, locked_until: null, updated_at: now });

/** Puts the job back in the queue, to run again at runAt. */
export const markRetry = (db: Kysely<DB>, lease: Lease, runAt: string, error: string, now: string) =>
  updateLeased(db, lease, { state: 'queued', run_at: runAt, locked_by: null, locked_until: null, last_error: error, updated_at: now });

export const markDead = (db: Kysely<DB>, lease: Lease, error: string, now: string) =>
  updateLeased(db, lease, { state: 'dead', locked_by: null, locked_until: null, last_error: error, updated_at: now });

/**
 * Jobs whose worker stopped renewing the lease (the process crashed or hung) go back to the
 * queue, due now; one that has used up its attempts this way is dead, so a job that kills
 * its worker every time cannot loop forever. Safe to run from every node at once: the
 * WHERE is re-checked on the locked row.
 */
export async function requeueExpiredLeases(db: Kysely<DB>, now: string): Promise<number> {
  const r = await db
    .updateTable('background_jobs')
    .set((eb) => ({
      state: eb.case().when('attempts', '>=', eb.ref('max_attempts')).then('dead').else('queued').end(),
      last_error: sql<string>`'the lease of ' || locked_by || ' expired while the job was running (worker lost)'`,
      run_at: now,
      locked_by: null,
      locked_until: null,
      updated_at: now,
    }))
    .where('state', '=', 'running')
    .where('locked_until', '<=', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Deletes up to `batch` jobs in this state last touched before `before`; returns how many. */
export async function pruneJobs(db: Kysely<DB>, state: 'done' | 'dead', before: string, batch = 1000): Promise<number> {
  const ids = db
    .selectFrom('background_jobs')
    .select('id')
    .where('state', '=', state)
    .where('updated_at', '<', before)
    .limit(batch);
  const r = await db.deleteFrom('background_jobs').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deletes a job still waiting to run; false when it is running, finished or gone. */
export async function deleteQueuedJob(db: Kysely<DB>, id: number): Promise<boolean> {
  const r = await db.deleteFrom('background_jobs').where('id', '=', id).where('state', '=', 'queued').executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** Jobs per state, for metrics and tests. */
export async function countJobsByState(db: Kysely<DB>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('background_jobs')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** True when a job of this kind (other than `exceptId`) is waiting or running: periodic jobs schedule one at a time. */
export async function pendingJobExists(db: Kysely<DB>, kind: string, exceptId: number | null = null): Promise<boolean> {
  let q = db.selectFrom('background_jobs').select('id').where('kind', '=', kind).where('state', 'in', ['queued', 'running']);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Jobs that are due or running now (future scheduled runs do not count). */
export async function countDueJobs(db: Kysely<DB>, now: string): Promise<number> {
  const r = await db
    .selectFrom('background_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['queued', 'running'])
    .where('run_at', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Deletes the queued jobs of one kind (test mode: a seed's pushes start no pipelines unless asked). */
export async function dropQueuedJobs(db: Kysely<DB>, kind: string): Promise<number> {
  const r = await db.deleteFrom('background_jobs').where('kind', '=', kind).where('state', '=', 'queued').executeTakeFirst();
  return Number(r.numDeletedRows);
}
