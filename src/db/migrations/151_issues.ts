import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Issues (iid per project), their assignees, links between issues, and time logged on them.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('issues'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened')) // opened | closed
    .addColumn('issue_type', 'text', (c) => c.notNull().defaultTo('issue')) // issue | incident | test_case
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('discussion_locked', 'integer') // null: never set
    .addColumn('due_date', 'text')
    .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('weight', 'integer')
    .addColumn('time_estimate', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('relative_position', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('closed_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('moved_to_id', 'integer')
    .addColumn('duplicated_to_id', 'integer')
    .addColumn('updated_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_edited_at', 'text')
    .addColumn('last_edited_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('issues_project_iid_uq', ['project_id', 'iid'])
    .execute();
  await db.schema.createIndex('issues_project_state_idx').on('issues').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('issues_project_created_idx').on('issues').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('issues_project_updated_idx').on('issues').columns(['project_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('issues_author_idx').on('issues').columns(['author_id', 'id']).execute();
  await db.schema.createIndex('issues_milestone_idx').on('issues').columns(['milestone_id', 'state']).execute();

  await db.schema
    .createTable('issue_assignees')
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_assignees_pk', ['issue_id', 'user_id'])
    .execute();
  await db.schema.createIndex('issue_assignees_user_idx').on('issue_assignees').columns(['user_id', 'issue_id']).execute();

  await withId(db.schema.createTable('issue_links'), d)
    .addColumn('source_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('target_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('link_type', 'text', (c) => c.notNull().defaultTo('relates_to')) // relates_to | blocks
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('issue_links_uq', ['source_id', 'target_id'])
    .execute();
  await db.schema.createIndex('issue_links_target_idx').on('issue_links').columns(['target_id']).execute();

  // Time spent on an issue or a merge request (target type + id).
  await withId(db.schema.createTable('timelogs'), d)
    .addColumn('target_type', 'text', (c) => c.notNull()) // Issue | MergeRequest
    .addColumn('target_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('time_spent', 'integer', (c) => c.notNull())
    .addColumn('spent_at', 'text', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('timelogs_target_idx').on('timelogs').columns(['target_type', 'target_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
