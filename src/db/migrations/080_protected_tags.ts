import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Protected tags (a name or a wildcard per project) and who may create them: one row per entry,
// a role (access_level), a user or a group — the reference's protected_tags and
// protected_tag_create_access_levels.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('protected_tags'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // One rule per name: concurrent creations of the same name insert one row.
    .addUniqueConstraint('protected_tags_uq', ['project_id', 'name'])
    .execute();

  await withId(db.schema.createTable('protected_tag_create_access_levels'), d)
    .addColumn('protected_tag_id', 'integer', (c) => c.notNull().references('protected_tags.id').onDelete('cascade'))
    .addColumn('access_level', 'integer')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('protected_tag_create_access_levels_pt_idx').on('protected_tag_create_access_levels').columns(['protected_tag_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
