import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Project aliases: another name a project answers to in the API and over git; gone with the project.
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('project_aliases'), dialectOf(db))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_aliases_project_idx').on('project_aliases').columns(['project_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
