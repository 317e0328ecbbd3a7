import type { Kysely } from 'kysely';

// A remote or object-store import names its archive by URL; the import job downloads it (as the
// reference's worker does), so the URL waits here, encrypted (a pre-signed URL is a credential),
// until the archive is in blob storage.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_imports').addColumn('source_url_encrypted', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
