import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  const text = (c: any) => c.notNull().defaultTo('');

  await withId(db.schema.createTable('users'), d)
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_lower', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('password_digest', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot_kind', 'text')
    .addColumn('bio', 'text', text)
    .addColumn('location', 'text', text)
    .addColumn('public_email', 'text', text)
    .addColumn('skype', 'text', text)
    .addColumn('linkedin', 'text', text)
    .addColumn('twitter', 'text', text)
    .addColumn('website_url', 'text', text)
    .addColumn('organization', 'text', text)
    .addColumn('job_title', 'text', text)
    .addColumn('pronouns', 'text')
    .addColumn('note', 'text')
    .addColumn('projects_limit', 'integer', (c) => c.notNull().defaultTo(100000))
    .addColumn('can_create_group', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('private_profile', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('theme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('color_scheme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('commit_email', 'text')
    .addColumn('avatar_path', 'text')
    .addColumn('namespace_id', 'integer')
    .addColumn('created_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_sign_in_at', 'text')
    .addColumn('current_sign_in_at', 'text')
    .addColumn('last_activity_on', 'text')
    .execute();
  await db.schema.createIndex('users_state_idx').on('users').columns(['state', 'id']).execute();

  await withId(db.schema.createTable('namespaces'), d)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('full_path_lower', 'text', (c) => c.notNull().unique())
    .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text', text)
    .addColumn('avatar_path', 'text')
    .addColumn('request_access_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('project_creation_level', 'text', (c) => c.notNull().defaultTo('developer'))
    .addColumn('subgroup_creation_level', 'text', (c) => c.notNull().defaultTo('maintainer'))
    .addColumn('share_with_group_lock', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('require_two_factor_authentication', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('two_factor_grace_period', 'integer', (c) => c.notNull().defaultTo(48))
    .addColumn('lfs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('emails_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mentions_disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_devops_enabled', 'integer')
    .addColumn('default_branch_protection', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('namespaces_parent_idx').on('namespaces').columns(['parent_id', 'id']).execute();
  await db.schema.createIndex('namespaces_kind_idx').on('namespaces').columns(['kind', 'id']).execute();
  await db.schema.createIndex('namespaces_owner_idx').on('namespaces').column('owner_id').execute();

  await withId(db.schema.createTable('members'), d)
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('members_source_user_uq', ['source_type', 'source_id', 'user_id'])
    .execute();
  await db.schema.createIndex('members_user_idx').on('members').columns(['user_id', 'source_type']).execute();

  await withId(db.schema.createTable('personal_access_tokens'), d)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('impersonation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text')
    .addColumn('last_used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pats_user_idx').on('personal_access_tokens').columns(['user_id', 'id']).execute();

  await withId(db.schema.createTable('oauth_access_tokens'), d)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('refresh_digest', 'text', (c) => c.unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_in', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await withId(db.schema.createTable('sessions'), d)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_digest', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('background_jobs'), d)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('background_jobs_due_idx').on('background_jobs').columns(['state', 'run_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
