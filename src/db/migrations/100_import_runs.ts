import { sql, type Kysely } from 'kysely';

// An import job can run twice at once (a lease lost while its worker was busy) or again after its
// import ended. Each run claims the import with a token of its own; the run that ends the import
// (the transaction that marks it finished or failed) must still hold the token, and sets ended_at,
// after which no run claims it again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_imports').addColumn('run_token', 'text').execute();
  await db.schema.alterTable('project_imports').addColumn('ended_at', 'text').execute();
  await sql`UPDATE project_imports SET ended_at = updated_at
    WHERE project_id IN (SELECT id FROM projects WHERE import_status IN ('finished', 'failed'))`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
