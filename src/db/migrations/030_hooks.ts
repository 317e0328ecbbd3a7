import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Hooks that deliver: system hooks, the failure state of project hooks (the reference's
// auto-disabling), deliveries (one row per event and hook, written in the transaction of the
// change; a queue job carrying the row id sends it) and the delivery log (one row per attempt).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  const flag = (on: 0 | 1) => (c: any) => c.notNull().defaultTo(on);

  await withId(db.schema.createTable('system_hooks'), d)
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('token_encrypted', 'text')
    .addColumn('push_events', 'integer', flag(0))
    .addColumn('tag_push_events', 'integer', flag(0))
    .addColumn('merge_requests_events', 'integer', flag(0))
    .addColumn('repository_update_events', 'integer', flag(1))
    .addColumn('enable_ssl_verification', 'integer', flag(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('project_hooks').addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('project_hooks').addColumn('backoff_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('project_hooks').addColumn('disabled_until', 'text').execute();

  await withId(db.schema.createTable('hook_deliveries'), d)
    .addColumn('hook_type', 'text', (c) => c.notNull()) // 'system' | 'project'
    .addColumn('hook_id', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull()) // the reference's trigger name: push_hooks, system_hooks, …
    .addColumn('event_uuid', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull()) // JSON, without the token
    .addColumn('request_data', 'text', (c) => c.notNull()) // JSON body
    .addColumn('state', 'text', (c) => c.notNull()) // pending | delivered | failed
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hook_deliveries_updated_idx').on('hook_deliveries').columns(['updated_at']).execute();

  await withId(db.schema.createTable('hook_logs'), d)
    .addColumn('hook_type', 'text', (c) => c.notNull())
    .addColumn('hook_id', 'integer', (c) => c.notNull())
    .addColumn('delivery_id', 'integer')
    .addColumn('url', 'text', (c) => c.notNull()) // user info masked
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull()) // JSON, token redacted
    .addColumn('request_data', 'text', (c) => c.notNull())
    .addColumn('response_status', 'text', (c) => c.notNull()) // '200', or 'internal error'
    .addColumn('response_headers', 'text', (c) => c.notNull()) // JSON
    .addColumn('response_body', 'text', (c) => c.notNull()) // capped
    .addColumn('execution_duration', 'real', (c) => c.notNull()) // seconds
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hook_logs_hook_idx').on('hook_logs').columns(['hook_type', 'hook_id', 'id']).execute();
  await db.schema.createIndex('hook_logs_created_idx').on('hook_logs').columns(['created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
