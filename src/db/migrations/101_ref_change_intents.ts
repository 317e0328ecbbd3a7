import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Ref changes are written down before the refs move (the intent), and published from there once:
// by the process that moved them, or, when it died in between, by a queued job that compares the
// intent with the refs as they are. Finished intents are kept a while (a later intent on the same
// ref shows that an earlier one happened) and then pruned.
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('ref_change_intents'), dialectOf(db))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('job_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ref_change_intents_project_idx').on('ref_change_intents').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ref_change_intents_state_idx').on('ref_change_intents').columns(['state', 'updated_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
