import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// CI/CD variables of a project, a group or the instance (owner_type; owner_id is the project's
// or group's id, 0 for the instance), their values encrypted. One key per owner and environment
// scope (the instance has only '*').
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('ci_variables'), dialectOf(db))
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('encrypted_value', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull())
    .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('masked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('raw', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('environment_scope', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ci_variables_owner_key_idx')
    .on('ci_variables')
    .columns(['owner_type', 'owner_id', 'key', 'environment_scope'])
    .unique()
    .execute();
  await db.schema.createIndex('ci_variables_owner_idx').on('ci_variables').columns(['owner_type', 'owner_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
