import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Badges: a link and an image URL owned by a project or by a group (exactly one of the two).
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('badges'), dialectOf(db))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('link_url', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('badges_project_idx').on('badges').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('badges_group_idx').on('badges').columns(['group_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
