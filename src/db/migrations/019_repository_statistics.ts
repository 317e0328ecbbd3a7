import type { Kysely } from 'kysely';

// What Anvil caches about a project's repository: commit count and size (project `statistics`)
// and the language breakdown of the default branch. Recomputed by the `repository_refresh` job
// after a push to the default branch; computed on first use when absent. One row per project,
// removed with it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_repository_statistics')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('commit_count', 'integer', (c) => c.notNull())
    .addColumn('repository_size', 'bigint', (c) => c.notNull())
    .addColumn('languages', 'text', (c) => c.notNull()) // JSON: [[name, share], …], largest first
    .addColumn('refreshed_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
