import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// SSH keys: a user's keys and deploy keys in one table (the reference's `keys`, `type` telling
// them apart), so that one fingerprint names one key instance-wide; and which projects a deploy
// key is enabled for, with or without write access (the reference's deploy_keys_projects).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('keys'), d)
    // the key's owner; for a deploy key, the user who added it
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull()) // 'Key' | 'DeployKey'
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull()) // MD5, hex pairs
    .addColumn('fingerprint_sha256', 'text', (c) => c.notNull()) // base64 without padding or prefix
    .addColumn('usage_type', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('last_used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('keys_fingerprint_sha256_uq', ['fingerprint_sha256'])
    .execute();
  await db.schema.createIndex('keys_user_idx').on('keys').columns(['user_id', 'type', 'id']).execute();
  await db.schema.createIndex('keys_type_idx').on('keys').columns(['type', 'id']).execute();
  await db.schema.createIndex('keys_fingerprint_idx').on('keys').column('fingerprint').execute();

  await withId(db.schema.createTable('deploy_keys_projects'), d)
    .addColumn('deploy_key_id', 'integer', (c) => c.notNull().references('keys.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('can_push', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('deploy_keys_projects_uq', ['deploy_key_id', 'project_id'])
    .execute();
  await db.schema.createIndex('deploy_keys_projects_project_idx').on('deploy_keys_projects').columns(['project_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
