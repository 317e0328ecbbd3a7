import { type Kysely } from 'kysely';
import { createHash } from 'node:crypto';

// Registration tokens (`runners_token` of projects and groups) are secrets: from here on they are
// found by their SHA-256 digest and kept encrypted with the instance key (the server seals the
// values still stored plain when it starts: a migration has no key).
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['projects', 'namespaces']) {
    await db.schema.alterTable(table).addColumn('runners_token_digest', 'text').execute();
    for (let afterId = 0; ; ) {
      const rows: { id: number; runners_token: string }[] = await db
        .selectFrom(table)
        .select(['id', 'runners_token'])
        .where('runners_token', 'is not', null)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(500)
        .execute();
      for (const r of rows) {
        const digest = createHash('sha256').update(r.runners_token).digest('hex');
        await db.updateTable(table).set({ runners_token_digest: digest }).where('id', '=', r.id).execute();
      }
      if (rows.length < 500) break;
      afterId = rows[rows.length - 1]!.id;
    }
  }
  await db.schema.dropIndex('projects_runners_token_idx').execute();
  await db.schema.dropIndex('namespaces_runners_token_idx').execute();
  await db.schema.createIndex('projects_runners_token_digest_idx').on('projects').column('runners_token_digest').execute();
  await db.schema.createIndex('namespaces_runners_token_digest_idx').on('namespaces').column('runners_token_digest').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
