import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Labels and milestones of projects and groups (exactly one owner each), the links that put a
// label on an issue or a merge request (target type + id, one table for both), a project's label
// priorities, and subscriptions (to labels, issues and merge requests: the subscribable's type + id).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('labels'), d)
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // One title per owner (the other owner column is null, and nulls never collide).
    .addUniqueConstraint('labels_project_title_uq', ['project_id', 'title'])
    .addUniqueConstraint('labels_group_title_uq', ['group_id', 'title'])
    .execute();

  await withId(db.schema.createTable('label_priorities'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addUniqueConstraint('label_priorities_uq', ['project_id', 'label_id'])
    .execute();

  await withId(db.schema.createTable('label_links'), d)
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('target_type', 'text', (c) => c.notNull()) // Issue | MergeRequest
    .addColumn('target_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('label_links_uq', ['target_type', 'target_id', 'label_id'])
    .execute();
  await db.schema.createIndex('label_links_label_idx').on('label_links').columns(['label_id', 'target_type', 'target_id']).execute();

  await withId(db.schema.createTable('subscriptions'), d)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('subscribable_type', 'text', (c) => c.notNull()) // Label | Issue | MergeRequest
    .addColumn('subscribable_id', 'integer', (c) => c.notNull())
    // A label subscription may be for one project (a group label seen from a project); 0: none.
    .addColumn('project_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('subscribed', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('subscriptions_uq', ['subscribable_type', 'subscribable_id', 'user_id', 'project_id'])
    .execute();

  await withId(db.schema.createTable('milestones'), d)
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active')) // active | closed
    .addColumn('due_date', 'text')
    .addColumn('start_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('milestones_project_iid_uq', ['project_id', 'iid'])
    .addUniqueConstraint('milestones_group_iid_uq', ['group_id', 'iid'])
    .addUniqueConstraint('milestones_project_title_uq', ['project_id', 'title'])
    .addUniqueConstraint('milestones_group_title_uq', ['group_id', 'title'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
