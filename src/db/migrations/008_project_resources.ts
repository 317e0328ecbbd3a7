import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Project sub-resources: links sharing a project with a group, and project hooks (delivery comes
// later). Uploads and avatars live in blob storage under keys made from the project id.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  const flag = (on: 0 | 1) => (c: any) => c.notNull().defaultTo(on);

  await withId(db.schema.createTable('project_group_links'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('group_access', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text') // YYYY-MM-DD; the link counts for nothing from that day on
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('project_group_links_uq', ['project_id', 'group_id'])
    .execute();
  // "Projects shared with these groups" for the project list's membership filter.
  await db.schema.createIndex('project_group_links_group_idx').on('project_group_links').columns(['group_id', 'project_id']).execute();

  await withId(db.schema.createTable('project_hooks'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('token_encrypted', 'text')
    .addColumn('push_events', 'integer', flag(1))
    .addColumn('push_events_branch_filter', 'text')
    .addColumn('tag_push_events', 'integer', flag(0))
    .addColumn('merge_requests_events', 'integer', flag(0))
    .addColumn('repository_update_events', 'integer', flag(0))
    .addColumn('issues_events', 'integer', flag(0))
    .addColumn('confidential_issues_events', 'integer', flag(0))
    .addColumn('note_events', 'integer', flag(0))
    .addColumn('confidential_note_events', 'integer', flag(0))
    .addColumn('pipeline_events', 'integer', flag(0))
    .addColumn('wiki_page_events', 'integer', flag(0))
    .addColumn('deployment_events', 'integer', flag(0))
    .addColumn('job_events', 'integer', flag(0))
    .addColumn('releases_events', 'integer', flag(0))
    .addColumn('enable_ssl_verification', 'integer', flag(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_hooks_project_idx').on('project_hooks').columns(['project_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
