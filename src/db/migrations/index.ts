// Every migration, in order. Add a file and a line here; never edit one that has shipped.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './001_platform.js';

const MIGRATIONS: Record<string, Migration> = {
  '001_platform': m001,
};

class CodeMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/** Brings the schema up to date; safe to run from several processes at once (Kysely locks). */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new CodeMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
