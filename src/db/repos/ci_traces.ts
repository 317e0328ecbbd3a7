// Trace chunks: the log of a running job, appended in pieces (base64 text, `seq` increasing) so
// that every node can read it while the job runs. Folded into a `trace` artifact when it ends.
import type { Kysely, Selectable } from 'kysely';
import type { CiTraceChunksTable, DB } from '../schema.js';

export type TraceChunkRow = Selectable<CiTraceChunksTable>;

export async function insertTraceChunk(db: Kysely<DB>, jobId: number, seq: number, data: Buffer): Promise<void> {
  await db.insertInto('ci_trace_chunks').values({ job_id: jobId, seq, data: data.toString('base64') }).execute();
}

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
