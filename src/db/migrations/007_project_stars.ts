import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Stars (one row per user and project; projects.star_count is kept in step with them), and who
// asked for a project's delayed deletion (the author of its destruction once the delay is over).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('project_stars'), d)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    // One star per user and project: concurrent stars of the same pair insert one row.
    .addUniqueConstraint('project_stars_uq', ['user_id', 'project_id'])
    .execute();
  // Starrers of a project, newest first.
  await db.schema.createIndex('project_stars_project_idx').on('project_stars').columns(['project_id', 'id']).execute();

  await db.schema.alterTable('projects').addColumn('deleting_user_id', 'integer').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
