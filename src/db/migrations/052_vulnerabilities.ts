import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Security findings of a project's default branch (from the reports its pipelines publish),
// their scanners and identifiers, and the vulnerabilities users create from findings.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('vulnerability_scanners'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('vendor', 'text')
    .addUniqueConstraint('vulnerability_scanners_uq', ['project_id', 'external_id'])
    .execute();

  await withId(db.schema.createTable('vulnerability_identifiers'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('external_type', 'text')
    .addColumn('external_id', 'text')
    .addColumn('name', 'text')
    .addColumn('url', 'text')
    .addUniqueConstraint('vulnerability_identifiers_uq', ['project_id', 'fingerprint'])
    .execute();

  await withId(db.schema.createTable('vulnerability_findings'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('uuid', 'text', (c) => c.notNull())
    .addColumn('report_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('confidence', 'text', (c) => c.notNull())
    .addColumn('scanner_id', 'integer', (c) => c.notNull().references('vulnerability_scanners.id'))
    .addColumn('primary_identifier_id', 'integer', (c) => c.notNull().references('vulnerability_identifiers.id'))
    .addColumn('identifier_ids', 'text', (c) => c.notNull()) // JSON array, in the report's order
    .addColumn('vulnerability_id', 'integer')
    .addColumn('location_fingerprint', 'text', (c) => c.notNull())
    .addColumn('project_fingerprint', 'text', (c) => c.notNull())
    .addColumn('metadata_version', 'text', (c) => c.notNull())
    .addColumn('raw_metadata', 'text', (c) => c.notNull())
    .addColumn('latest_pipeline_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('vulnerability_findings_uuid_uq', ['project_id', 'uuid'])
    .execute();

  await withId(db.schema.createTable('vulnerabilities'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('finding_id', 'integer', (c) => c.notNull().unique().references('vulnerability_findings.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('confidence', 'text', (c) => c.notNull())
    .addColumn('report_type', 'text', (c) => c.notNull())
    .addColumn('resolved_on_default_branch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dismissed_at', 'text')
    .addColumn('dismissed_by_id', 'integer')
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by_id', 'integer')
    .addColumn('confirmed_at', 'text')
    .addColumn('confirmed_by_id', 'integer')
    .addColumn('updated_by_id', 'integer')
    .addColumn('last_edited_at', 'text')
    .addColumn('last_edited_by_id', 'integer')
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('vulnerabilities_project_idx').on('vulnerabilities').columns(['project_id', 'id']).execute();

  // The newest default-branch pipeline whose reports were read, per project.
  await db.schema
    .createTable('vulnerability_ingestions')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull())
    .addColumn('ingested_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
