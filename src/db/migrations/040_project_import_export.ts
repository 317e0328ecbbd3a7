import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Project export and import (the reference's archive format).
// - project_exports: one row per project: the current export run (queued / started / failed /
//   finished) and the last finished archive in blob storage, kept while a new one is made
//   (the status `regeneration_in_progress`), removed after its expiry.
// - project_imports: what an import of a project works from (the archive's blob, the importing
//   user, override_params, the project it replaces with `overwrite`); the status itself is the
//   project's import_status / import_error.
// - import_failures: records that could not be saved (`failed_relations`), per correlation id.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('project_exports'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().unique().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('run', 'integer', (c) => c.notNull().defaultTo(1)) // which request the job serves: a newer request supersedes a running one
    .addColumn('status', 'text', (c) => c.notNull()) // queued | started | finished | failed
    .addColumn('description', 'text') // the request's override
    .addColumn('with_members', 'integer', (c) => c.notNull().defaultTo(0)) // the requester was an owner: members are exported
    .addColumn('upload_url_encrypted', 'text') // upload[url] (may carry a pre-signed secret)
    .addColumn('upload_method', 'text')
    .addColumn('archive_key', 'text') // the last finished archive's blob
    .addColumn('archive_filename', 'text')
    .addColumn('archive_size', 'bigint')
    .addColumn('finished_at', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_exports_finished_idx').on('project_exports').columns(['finished_at']).execute();

  await withId(db.schema.createTable('project_imports'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().unique().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('archive_key', 'text') // removed once the import ends
    .addColumn('override_params', 'text', (c) => c.notNull()) // JSON object
    .addColumn('replaces_project_id', 'integer') // overwrite: the project this one takes the place of
    .addColumn('original_path', 'text') // overwrite: the path and name it takes when done
    .addColumn('original_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('import_failures'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .addColumn('relation_key', 'text')
    .addColumn('relation_index', 'integer')
    .addColumn('exception_class', 'text', (c) => c.notNull())
    .addColumn('exception_message', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('retry_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('import_failures_project_idx').on('import_failures').columns(['project_id', 'correlation_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
