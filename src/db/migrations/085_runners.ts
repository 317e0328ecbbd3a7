import { sql, type Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Runners: the built-in runner (row 1) and the runners that register over the runner API, each
// of one scope (instance, group and its subgroups, or the projects it is assigned to), with its
// routing settings (tags, run_untagged, paused, locked, access_level, maximum_timeout) and its
// managers (the machines that run under one runner token, by system_id). Runner tokens are
// stored as SHA-256 digests only.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('ci_runners'), d)
    .addColumn('runner_type', 'text', (c) => c.notNull()) // instance_type | group_type | project_type
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('token_digest', 'text')
    .addColumn('token_expires_at', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_untagged', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]')) // JSON array
    .addColumn('access_level', 'text', (c) => c.notNull().defaultTo('not_protected'))
    .addColumn('maximum_timeout', 'integer')
    .addColumn('maintenance_note', 'text')
    .addColumn('registration_type', 'text', (c) => c.notNull()) // registration_token | authenticated_user | built_in
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('contacted_at', 'text')
    .addColumn('name', 'text')
    .addColumn('version', 'text')
    .addColumn('revision', 'text')
    .addColumn('platform', 'text')
    .addColumn('architecture', 'text')
    .addColumn('ip_address', 'text')
    .execute();
  await db.schema.createIndex('ci_runners_token_uq').on('ci_runners').column('token_digest').unique().execute();
  await db.schema.createIndex('ci_runners_type_idx').on('ci_runners').columns(['runner_type', 'id']).execute();
  await db.schema.createIndex('ci_runners_group_idx').on('ci_runners').columns(['group_id', 'id']).execute();
  // Row 1 is the built-in runner (jobs it ran say runner_id 1); registered runners count from 2.
  const now = new Date().toISOString();
  await db
    .insertInto('ci_runners')
    .values({ id: 1, runner_type: 'instance_type', description: 'Anvil built-in runner', name: 'anvil-runner', registration_type: 'built_in', created_at: now, updated_at: now })
    .execute();
  if (d === 'postgres') await sql`SELECT setval(pg_get_serial_sequence('ci_runners', 'id'), 1)`.execute(db);

  await withId(db.schema.createTable('ci_runner_projects'), d)
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ci_runner_projects_uq', ['runner_id', 'project_id'])
    .execute();
  await db.schema.createIndex('ci_runner_projects_project_idx').on('ci_runner_projects').columns(['project_id', 'runner_id']).execute();

  await withId(db.schema.createTable('ci_runner_managers'), d)
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('contacted_at', 'text')
    .addColumn('version', 'text')
    .addColumn('revision', 'text')
    .addColumn('platform', 'text')
    .addColumn('architecture', 'text')
    .addColumn('ip_address', 'text')
    .addUniqueConstraint('ci_runner_managers_uq', ['runner_id', 'system_id'])
    .execute();

  // Registration tokens are looked up by value.
  await db.schema.createIndex('projects_runners_token_idx').on('projects').column('runners_token').execute();
  await db.schema.createIndex('namespaces_runners_token_idx').on('namespaces').column('runners_token').execute();
  // Bytes of a registered runner's trace received so far (its pieces arrive at offsets).
  await db.schema.alterTable('ci_jobs').addColumn('trace_bytes', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Running jobs of registered runners, found by the stuck-job sweep.
  await db.schema.createIndex('ci_jobs_runner_status_idx').on('ci_jobs').columns(['runner_id', 'status', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
