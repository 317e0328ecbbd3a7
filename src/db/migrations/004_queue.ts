import type { Kysely } from 'kysely';

// Pruning finished jobs looks them up by (state, updated_at); without this index every
// cleanup would scan all done jobs.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('background_jobs_state_updated_idx').on('background_jobs').columns(['state', 'updated_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
