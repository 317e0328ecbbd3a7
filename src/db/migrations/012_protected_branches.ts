import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Protected branches (a name or a wildcard per project) and who may push, merge and unprotect:
// one row per entry, a role (access_level), a user or a group.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('protected_branches'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allow_force_push', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('code_owner_approval_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // One rule per name: concurrent creations of the same name insert one row.
    .addUniqueConstraint('protected_branches_uq', ['project_id', 'name'])
    .execute();

  await withId(db.schema.createTable('protected_branch_access_levels'), d)
    .addColumn('protected_branch_id', 'integer', (c) => c.notNull().references('protected_branches.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull()) // push | merge | unprotect
    .addColumn('access_level', 'integer')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('protected_branch_access_levels_pb_idx').on('protected_branch_access_levels').columns(['protected_branch_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
