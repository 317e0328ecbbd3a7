import type { Kysely } from 'kysely';

// The pipeline's name from the CI file's `workflow:name` (variables expanded), null without one.
// Kept for the newer API fields and the web pages; the 15.1 API responses do not show it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ci_pipelines').addColumn('name', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
