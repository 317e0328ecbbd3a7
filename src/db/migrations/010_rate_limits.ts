import type { Kysely } from 'kysely';

// Request counters for application rate limits (search, raw blobs, …), shared by every node:
// one row per limited key (e.g. `search_rate_limit:user:7`) and fixed window. A hit is one
// atomic upsert that adds 1 and returns the new count; windows that have ended are pruned.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pkey', ['key', 'window_start'])
    .execute();
  // Pruning deletes by window start alone.
  await db.schema.createIndex('rate_limits_window_start').on('rate_limits').column('window_start').execute();

  // Found by the projects benchmark (100,000 rows): the public-only list (anonymous callers,
  // `visibility=`) is ordered by creation; without this SQLite sorted every public row for one page.
  await db.schema.createIndex('projects_visibility_created_idx').on('projects').columns(['visibility_level', 'created_at', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
