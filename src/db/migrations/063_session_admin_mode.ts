import type { Kysely } from 'kysely';

// Admin mode of a web session: until when an administrator who re-entered their password acts as
// one while the `admin_mode` setting is on (null: not in admin mode).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('admin_mode_until', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
