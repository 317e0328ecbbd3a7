import type { Kysely } from 'kysely';

// The project job lists filter on type (builds, not bridges) and count up to 10,001 rows: with
// `type` in the index the count reads the index alone (with 1,000,000 jobs it read 10,001 table
// rows per request). These replace the (project_id, id) and (project_id, status, id) indexes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('ci_jobs_project_type_idx').on('ci_jobs').columns(['project_id', 'type', 'id']).execute();
  await db.schema.createIndex('ci_jobs_project_type_status_idx').on('ci_jobs').columns(['project_id', 'type', 'status', 'id']).execute();
  await db.schema.dropIndex('ci_jobs_project_idx').execute();
  await db.schema.dropIndex('ci_jobs_project_status_idx').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
