import type { Kysely } from 'kysely';

// Instance application settings: one row (id 1). `data` is a JSON object holding only the
// settings an administrator has set (defaults live in code); secret values in it are encrypted.
// `version` goes up on every write, so other nodes can tell cheaply that their cache is stale,
// and a write can refuse to overwrite a concurrent one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('application_settings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  const now = new Date().toISOString();
  await db.insertInto('application_settings').values({ id: 1, data: '{}', version: 1, created_at: now, updated_at: now }).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
