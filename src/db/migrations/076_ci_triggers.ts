import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Pipeline trigger tokens of a project: the token's SHA-256 to find it, the token itself
// encrypted (its owner sees it in full), the user it runs pipelines as, when it was last used.
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('ci_triggers'), dialectOf(db))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('description', 'text')
    .addColumn('token_digest', 'text', (c) => c.notNull())
    .addColumn('encrypted_token', 'text', (c) => c.notNull())
    .addColumn('last_used', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_triggers_token_idx').on('ci_triggers').column('token_digest').unique().execute();
  await db.schema.createIndex('ci_triggers_project_idx').on('ci_triggers').columns(['project_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
