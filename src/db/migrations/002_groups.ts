import type { Kysely } from 'kysely';

// Group settings that 001 did not carry: the group runner registration token (shown to the
// group's owners, as the reference's GroupDetail does) and the root-group sharing lock.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('namespaces').addColumn('runners_token', 'text').execute();
  await db.schema
    .alterTable('namespaces')
    .addColumn('prevent_sharing_groups_outside_hierarchy', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Group lists order by name (keyset pages on (name, id)); members lists by source then id.
  await db.schema.createIndex('namespaces_kind_name_idx').on('namespaces').columns(['kind', 'name', 'id']).execute();
  await db.schema.createIndex('members_source_idx').on('members').columns(['source_type', 'source_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
