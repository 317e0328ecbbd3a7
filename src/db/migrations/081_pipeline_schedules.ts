import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Pipeline schedules (cron in a time zone, the next due time, an owner) with their variables
// (values encrypted), and the schedule that made a pipeline.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('ci_pipeline_schedules'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('cron_timezone', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipeline_schedules_project_idx').on('ci_pipeline_schedules').columns(['project_id', 'id']).execute();
  // The due schedules: active ones by next_run_at.
  await db.schema.createIndex('ci_pipeline_schedules_due_idx').on('ci_pipeline_schedules').columns(['active', 'next_run_at']).execute();

  await withId(db.schema.createTable('ci_pipeline_schedule_variables'), d)
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('encrypted_value', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ci_pipeline_schedule_variables_uq', ['pipeline_schedule_id', 'key'])
    .execute();

  await db.schema.alterTable('ci_pipelines').addColumn('pipeline_schedule_id', 'integer').execute();
  await db.schema.createIndex('ci_pipelines_schedule_idx').on('ci_pipelines').columns(['pipeline_schedule_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
