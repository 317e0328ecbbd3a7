import { type Kysely } from 'kysely';

// When each piece of a job's log was stored: the byte offset where the piece starts in the
// trace and the time. Kept after the pieces are folded into the trace blob, so the web log can
// show a time beside lines whose trace has none of its own.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ci_trace_times')
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('byte_offset', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ci_trace_times_pk', ['job_id', 'byte_offset'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
