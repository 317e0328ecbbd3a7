// The single application settings row (id 1).
import type { Kysely, Selectable } from 'kysely';
import type { ApplicationSettingsTable, DB } from '../schema.js';

export type SettingsRow = Selectable<ApplicationSettingsTable>;

const ROW_ID = 1;

export async function findSettingsRow(db: Kysely<DB>): Promise<SettingsRow | undefined> {
  return db.selectFrom('application_settings').selectAll().where('id', '=', ROW_ID).executeTakeFirst();
}

/** Only the version: the cheap check that tells a node whether its cached settings are stale. */
export async function findSettingsVersion(db: Kysely<DB>): Promise<number | null> {
  const r = await db.selectFrom('application_settings').select('version').where('id', '=', ROW_ID).executeTakeFirst();
  return r ? r.version : null;
}

/** Creates the row when it is missing (a database restored without it); a concurrent creator wins harmlessly. */
export async function ensureSettingsRow(db: Kysely<DB>, now: string): Promise<void> {
  await db
    .insertInto('application_settings')
    .values({ id: ROW_ID, data: '{}', version: 1, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/**
 * Writes the whole data object if the row is still at `expectedVersion`; false when another
 * writer got there first (the caller re-reads and re-validates).
 */
export async function writeSettingsRow(db: Kysely<DB>, expectedVersion: number, data: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('application_settings')
    .set({ data, version: expectedVersion + 1, updated_at: now })
    .where('id', '=', ROW_ID)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
