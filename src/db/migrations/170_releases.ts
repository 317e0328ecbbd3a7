import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Releases of a project (one per tag) and their asset links: the reference's releases and
// release_links. A release keeps the tag's name, not a reference to it: deleting the tag leaves
// the release (the reference keeps it too, without its commit).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('releases'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('sha', 'text')
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text', (c) => c.notNull())
    // One release per tag: two concurrent creations insert one row.
    .addUniqueConstraint('releases_project_tag_uq', ['project_id', 'tag'])
    .execute();
  // The list's two orders (released_at, created_at), newest first, with the id as tie-breaker.
  await db.schema.createIndex('releases_project_released_idx').on('releases').columns(['project_id', 'released_at', 'id']).execute();
  await db.schema.createIndex('releases_project_created_idx').on('releases').columns(['project_id', 'created_at', 'id']).execute();

  await withId(db.schema.createTable('release_links'), d)
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('filepath', 'text')
    .addColumn('link_type', 'text', (c) => c.notNull().defaultTo('other'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('release_links_name_uq', ['release_id', 'name'])
    .addUniqueConstraint('release_links_url_uq', ['release_id', 'url'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
