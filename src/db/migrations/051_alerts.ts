import { sql, type Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Alert integrations (HTTP endpoints) and the alerts they receive. Only one alert per
// fingerprint may be open (not resolved) in a project: concurrent payloads of one fingerprint
// group into one alert, never two.
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('alert_integrations'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('endpoint_identifier', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull()) // SHA-256 of the key
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alert_integrations_endpoint_uq', ['project_id', 'endpoint_identifier'])
    .execute();

  await withId(db.schema.createTable('alerts'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'integer', (c) => c.references('alert_integrations.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('service', 'text')
    .addColumn('monitoring_tool', 'text')
    .addColumn('environment_name', 'text')
    .addColumn('hosts', 'text', (c) => c.notNull()) // JSON array of strings
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // triggered | acknowledged | resolved | ignored
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('payload', 'text', (c) => c.notNull()) // the first payload, JSON
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alerts_iid_uq', ['project_id', 'iid'])
    .execute();
  await db.schema
    .createIndex('alerts_open_fingerprint_uq')
    .unique()
    .on('alerts')
    .columns(['project_id', 'fingerprint'])
    .where(sql.ref('status'), '!=', 'resolved')
    .execute();
  await db.schema.createIndex('alerts_status_idx').on('alerts').columns(['project_id', 'status', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
