import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Merge requests: the request itself (iid per target project), its assignees and reviewers, and
// its diff versions (one per head or base the request has had; the commits stay reachable through
// keep-around refs, so an old version's diff can be read after a force push).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('merge_requests'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('source_project_id', 'integer', (c) => c.notNull())
    .addColumn('source_branch', 'text', (c) => c.notNull())
    .addColumn('target_branch', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('milestone_id', 'integer')
    .addColumn('merge_status', 'text', (c) => c.notNull().defaultTo('unchecked'))
    .addColumn('merge_error', 'text')
    .addColumn('merge_commit_sha', 'text')
    .addColumn('squash_commit_sha', 'text')
    .addColumn('squash', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('force_remove_source_branch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('should_remove_source_branch', 'integer')
    .addColumn('discussion_locked', 'integer')
    .addColumn('allow_collaboration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merge_when_pipeline_succeeds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merge_params', 'text')
    .addColumn('merge_user_id', 'integer')
    .addColumn('merged_by_id', 'integer')
    .addColumn('merged_at', 'text')
    .addColumn('closed_by_id', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('head_pipeline_id', 'integer')
    .addColumn('latest_diff_id', 'integer')
    .addColumn('time_estimate', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_time_spent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_requests_project_iid_idx').on('merge_requests').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('merge_requests_project_state_idx').on('merge_requests').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('merge_requests_source_idx').on('merge_requests').columns(['source_project_id', 'source_branch', 'state']).execute();
  await db.schema.createIndex('merge_requests_target_idx').on('merge_requests').columns(['project_id', 'target_branch', 'state']).execute();
  await db.schema.createIndex('merge_requests_author_idx').on('merge_requests').columns(['author_id', 'id']).execute();
  await db.schema.createIndex('merge_requests_head_pipeline_idx').on('merge_requests').columns(['head_pipeline_id']).execute();

  for (const table of ['merge_request_assignees', 'merge_request_reviewers']) {
    let t = withId(db.schema.createTable(table), d)
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull());
    if (table === 'merge_request_reviewers') t = t.addColumn('state', 'text', (c) => c.notNull().defaultTo('unreviewed'));
    await t.execute();
    await db.schema.createIndex(`${table}_mr_user_idx`).on(table).columns(['merge_request_id', 'user_id']).unique().execute();
    await db.schema.createIndex(`${table}_user_idx`).on(table).columns(['user_id', 'merge_request_id']).execute();
  }

  await withId(db.schema.createTable('merge_request_diffs'), d)
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('base_commit_sha', 'text')
    .addColumn('head_commit_sha', 'text', (c) => c.notNull())
    .addColumn('start_commit_sha', 'text')
    .addColumn('real_size', 'text')
    .addColumn('commits_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_request_diffs_mr_idx').on('merge_request_diffs').columns(['merge_request_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
