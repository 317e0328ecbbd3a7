import type { Kysely } from 'kysely';

// What an external commit status carries beside its job row (the reference's GenericCommitStatus
// columns target_url and description): the status itself is a ci_jobs row of type `generic` in
// stage `external`, so the pipeline's composite status counts it like any job.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ci_commit_statuses')
    .addColumn('job_id', 'integer', (c) => c.primaryKey().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('target_url', 'text')
    .addColumn('description', 'text')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
