import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, OauthAccessTokensTable, PersonalAccessTokensTable } from '../schema.js';

export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type OauthTokenRow = Selectable<OauthAccessTokensTable>;

export const findPatByDigest = (db: Kysely<DB>, tokenDigest: string) =>
  db.selectFrom('personal_access_tokens').selectAll().where('token_digest', '=', tokenDigest).executeTakeFirst();

export const insertPat = (db: Kysely<DB>, row: Insertable<PersonalAccessTokensTable>) =>
  db.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow();

export const touchPat = (db: Kysely<DB>, id: number, at: string) =>
  db.updateTable('personal_access_tokens').set({ last_used_at: at }).where('id', '=', id).execute();

export const findOauthByDigest = (db: Kysely<DB>, tokenDigest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', tokenDigest).executeTakeFirst();

export const findSessionByDigest = (db: Kysely<DB>, sessionDigest: string) =>
  db.selectFrom('sessions').selectAll().where('session_digest', '=', sessionDigest).executeTakeFirst();
