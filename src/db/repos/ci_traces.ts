// Trace chunks: the log of a running job, appended in pieces (base64 text, `seq` increasing) so
// that every node can read it while the job runs. Folded into a `trace` artifact when it ends.
// Beside each piece, when it was stored and where it starts in the trace (ci_trace_times), kept
// after the fold.
import type { Kysely, Selectable } from 'kysely';
import type { CiTraceChunksTable, DB } from '../schema.js';

export type TraceChunkRow = Selectable<CiTraceChunksTable>;

/** Stores a piece of the log that starts at byte `offset` of the trace, stored at `at`. */
export async function insertTraceChunk(db: Kysely<DB>, jobId: number, seq: number, data: Buffer, offset: number, at: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('ci_trace_chunks').values({ job_id: jobId, seq, data: data.toString('base64') }).execute();
    await insertTraceTime(tx, jobId, offset, at);
  });
}

/** Notes when the piece of the log at `offset` was stored (a piece stored again keeps its first time). */
export async function insertTraceTime(db: Kysely<DB>, jobId: number, offset: number, at: string): Promise<void> {
  await db
    .insertInto('ci_trace_times')
    .values({ job_id: jobId, byte_offset: offset, created_at: at })
    .onConflict((oc) => oc.columns(['job_id', 'byte_offset']).doNothing())
    .execute();
}

/** When the pieces starting at or after `fromOffset` were stored, in order (the primary key serves it). */
export const traceTimesFrom = (db: Kysely<DB>, jobId: number, fromOffset: number): Promise<{ byte_offset: number; created_at: string }[]> =>
  db
    .selectFrom('ci_trace_times')
    .select(['byte_offset', 'created_at'])
    .where('job_id', '=', jobId)
    .where('byte_offset', '>=', fromOffset)
    .orderBy('byte_offset')
    .execute();

/** The highest seq stored for the job, or -1 when it has none. */
export async function lastTraceSeq(db: Kysely<DB>, jobId: number): Promise<number> {
  const r = await db
    .selectFrom('ci_trace_chunks')
    .select('seq')
    .where('job_id', '=', jobId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? r.seq : -1;
}

/** Up to `limit` chunks after `afterSeq`, in order (the primary key (job_id, seq) serves it). */
export const traceChunksAfter = (db: Kysely<DB>, jobId: number, afterSeq: number, limit: number): Promise<TraceChunkRow[]> =>
  db
    .selectFrom('ci_trace_chunks')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();

export async function deleteTraceChunks(db: Kysely<DB>, jobId: number): Promise<void> {
  await db.deleteFrom('ci_trace_chunks').where('job_id', '=', jobId).execute();
}

/** Forgets when the job's log was stored (its log is erased). */
export async function deleteTraceTimes(db: Kysely<DB>, jobId: number): Promise<void> {
  await db.deleteFrom('ci_trace_times').where('job_id', '=', jobId).execute();
}
