import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Projects, their topics, and the old paths that still lead to them after a rename or transfer.
// Columns for later sub-resources (stars, forks, archive, avatar, delayed deletion, imports) are
// here from the start so those issues only add behaviour.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  const flag = (on: 0 | 1) => (c: any) => c.notNull().defaultTo(on);

  await withId(db.schema.createTable('projects'), d)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('full_path_lower', 'text', (c) => c.notNull().unique())
    .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('creator_id', 'integer')
    .addColumn('description', 'text')
    .addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('default_branch', 'text')
    .addColumn('initialize_with_readme', 'integer', flag(0))
    // Feature access levels as the reference stores them: enabled | private | disabled.
    .addColumn('issues_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('merge_requests_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('builds_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('wiki_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('snippets_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('container_registry_access_level', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('security_and_compliance_access_level', 'text', (c) => c.notNull().defaultTo('private'))
    .addColumn('resolve_outdated_diff_discussions', 'integer', flag(0))
    .addColumn('shared_runners_enabled', 'integer', flag(1))
    .addColumn('ci_default_git_depth', 'integer', (c) => c.notNull().defaultTo(20))
    .addColumn('ci_forward_deployment_enabled', 'integer', flag(1))
    .addColumn('ci_separated_caches', 'integer', flag(1))
    .addColumn('ci_config_path', 'text')
    .addColumn('public_jobs', 'integer', flag(1))
    .addColumn('only_allow_merge_if_pipeline_succeeds', 'integer', flag(0))
    .addColumn('allow_merge_on_skipped_pipeline', 'integer', flag(0))
    .addColumn('restrict_user_defined_variables', 'integer', flag(0))
    .addColumn('only_allow_merge_if_all_discussions_are_resolved', 'integer', flag(0))
    .addColumn('remove_source_branch_after_merge', 'integer', flag(1))
    .addColumn('request_access_enabled', 'integer', flag(1))
    .addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge'))
    .addColumn('squash_option', 'text', (c) => c.notNull().defaultTo('default_off'))
    .addColumn('autoclose_referenced_issues', 'integer', flag(1))
    .addColumn('suggestion_commit_message', 'text')
    .addColumn('merge_commit_template', 'text')
    .addColumn('squash_commit_template', 'text')
    .addColumn('runners_token', 'text')
    .addColumn('archived', 'integer', flag(0))
    .addColumn('star_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('forks_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('forked_from_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('avatar_path', 'text')
    .addColumn('marked_for_deletion_on', 'text')
    .addColumn('import_type', 'text')
    .addColumn('import_url', 'text')
    .addColumn('import_status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('import_error', 'text')
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The list's orderings and filters, each ending in id so pages are stable.
  await db.schema.createIndex('projects_visibility_idx').on('projects').columns(['visibility_level', 'id']).execute();
  await db.schema.createIndex('projects_namespace_idx').on('projects').columns(['namespace_id', 'id']).execute();
  await db.schema.createIndex('projects_created_idx').on('projects').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('projects_updated_idx').on('projects').columns(['updated_at', 'id']).execute();
  await db.schema.createIndex('projects_activity_idx').on('projects').columns(['last_activity_at', 'id']).execute();
  await db.schema.createIndex('projects_name_idx').on('projects').columns(['name', 'id']).execute();
  await db.schema.createIndex('projects_path_idx').on('projects').columns(['path', 'id']).execute();
  await db.schema.createIndex('projects_forked_from_idx').on('projects').column('forked_from_id').execute();

  await withId(db.schema.createTable('project_topics'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addUniqueConstraint('project_topics_uq', ['project_id', 'name_lower'])
    .execute();
  await db.schema.createIndex('project_topics_name_idx').on('project_topics').columns(['name_lower', 'project_id']).execute();

  await withId(db.schema.createTable('project_redirects'), d)
    .addColumn('old_full_path_lower', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_redirects_project_idx').on('project_redirects').column('project_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
