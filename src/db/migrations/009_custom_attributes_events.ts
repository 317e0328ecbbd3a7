import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Custom attributes of users, groups and projects (one table for the three kinds), and activity
// events with the payload of push events.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);

  // `kind` is user | group | project; `subject_id` the id in users, namespaces or projects. The
  // subjects' ids are never reused, so an attribute left behind by a deleted subject matches nothing.
  await withId(db.schema.createTable('custom_attributes'), d)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('custom_attributes_subject_key_uq', ['kind', 'subject_id', 'key'])
    .execute();
  // The list filter `custom_attributes[key]=value` looks subjects up by key and value.
  await db.schema.createIndex('custom_attributes_key_value_idx').on('custom_attributes').columns(['kind', 'key', 'value', 'subject_id']).execute();

  // An event belongs to a project (null once it names a project that is gone) and its author;
  // both cascade, as the reference's foreign keys do.
  await withId(db.schema.createTable('events'), d)
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'integer')
    .addColumn('target_iid', 'integer')
    .addColumn('target_title', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The three lists (by author, by project) and the three-year cutoff and pruning.
  await db.schema.createIndex('events_author_idx').on('events').columns(['author_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('events_project_idx').on('events').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('events_created_idx').on('events').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('push_event_payloads')
    .addColumn('event_id', 'integer', (c) => c.primaryKey().references('events.id').onDelete('cascade'))
    .addColumn('commit_count', 'integer', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull()) // created | removed | pushed
    .addColumn('ref_type', 'text', (c) => c.notNull()) // branch | tag
    .addColumn('commit_from', 'text')
    .addColumn('commit_to', 'text')
    .addColumn('ref', 'text')
    .addColumn('commit_title', 'text')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
