// SSH keys (users' and deploy keys) and the projects a deploy key is enabled for.
import type { Insertable, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, DeployKeysProjectsTable, KeysTable } from '../schema.js';

export type KeyRow = Selectable<KeysTable>;
export type DeployKeysProjectRow = Selectable<DeployKeysProjectsTable>;
export type KeyKind = KeysTable['type'];

export const findKeyById = (db: Kysely<DB>, id: number, type?: KeyKind): Promise<KeyRow | undefined> => {
  let q = db.selectFrom('keys').selectAll().where('id', '=', id);
  if (type) q = q.where('type', '=', type);
  return q.executeTakeFirst();
};

export const findKeyBySha256 = (db: Kysely<DB>, sha256: string): Promise<KeyRow | undefined> =>
  db.selectFrom('keys').selectAll().where('fingerprint_sha256', '=', sha256).executeTakeFirst();

export const findKeyByMd5 = (db: Kysely<DB>, md5: string): Promise<KeyRow | undefined> =>
  db.selectFrom('keys').selectAll().where('fingerprint', '=', md5).orderBy('id').executeTakeFirst();

/** A page of a user's own keys, oldest first. */
export const pageUserKeys = (db: Kysely<DB>, userId: number, page: PageRequest): Promise<PageResult<KeyRow>> =>
  runPage(db, db.selectFrom('keys').selectAll().where('user_id', '=', userId).where('type', '=', 'Key').orderBy('id'), page);

/** A user's keys that may sign in (not expired at `now`, usable for authentication), oldest first, at most `limit`. */
export const authKeysOfUser = (db: Kysely<DB>, userId: number, now: string, limit: number): Promise<KeyRow[]> =>
  db
    .selectFrom('keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('type', '=', 'Key')
    .where('usage_type', '!=', 'signing')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id')
    .limit(limit)
    .execute();

/** Inserts a key; undefined when its fingerprint is taken. */
export const insertKey = (db: Kysely<DB>, row: Insertable<KeysTable>): Promise<KeyRow | undefined> =>
  db
    .insertInto('keys')
    .values(row)
    .onConflict((oc) => oc.column('fingerprint_sha256').doNothing())
    .returningAll()
    .executeTakeFirst();

export async function deleteKey(db: Kysely<DB>, id: number): Promise<void> {
  await db.deleteFrom('keys').where('id', '=', id).execute();
}

export async function updateKeyTitle(db: Kysely<DB>, id: number, title: string, at: string): Promise<void> {
  await db.updateTable('keys').set({ title, updated_at: at }).where('id', '=', id).execute();
}

/** Marks a key used; at most once a minute per key (the reference's throttled last_used_at). */
export async function touchKey(db: Kysely<DB>, id: number, at: string, since: string): Promise<void> {
  await db
    .updateTable('keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', since)]))
    .execute();
}

// ---- deploy keys

export type DeployKeyLink = DeployKeyRow & { can_push: number; link_id: number };
type DeployKeyRow = KeyRow;

const linkedKeys = (db: Kysely<DB>, projectId: number) =>
  db
    .selectFrom('deploy_keys_projects as l')
    .innerJoin('keys as k', 'k.id', 'l.deploy_key_id')
    .selectAll('k')
    .select(['l.can_push as can_push', 'l.id as link_id'])
    .where('l.project_id', '=', projectId);

/** A page of a project's deploy keys, in the order they were enabled. */
export const pageProjectDeployKeys = (db: Kysely<DB>, projectId: number, page: PageRequest): Promise<PageResult<DeployKeyLink>> =>
  // pages by the link's id: the order keys were enabled in
  runPage(db, linkedKeys(db, projectId).orderBy('l.id') as unknown as SelectQueryBuilder<DB, 'keys', DeployKeyLink>, page, { idColumn: 'l.id' });

export const findProjectDeployKey = (db: Kysely<DB>, projectId: number, keyId: number): Promise<DeployKeyLink | undefined> =>
  linkedKeys(db, projectId).where('k.id', '=', keyId).executeTakeFirst() as Promise<DeployKeyLink | undefined>;

export const findDeployKeyLink = (db: Kysely<DB>, projectId: number, keyId: number): Promise<DeployKeysProjectRow | undefined> =>
  db.selectFrom('deploy_keys_projects').selectAll().where('project_id', '=', projectId).where('deploy_key_id', '=', keyId).executeTakeFirst();

/** A page of every deploy key of the instance, oldest first. */
export const pageDeployKeys = (db: Kysely<DB>, page: PageRequest): Promise<PageResult<KeyRow>> =>
  runPage(db, db.selectFrom('keys').selectAll().where('type', '=', 'DeployKey').orderBy('id'), page);

/** The projects each of these deploy keys may push to. */
export const writableProjectsOf = (db: Kysely<DB>, keyIds: number[]): Promise<{ deploy_key_id: number; project_id: number }[]> =>
  keyIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('deploy_keys_projects')
        .select(['deploy_key_id', 'project_id'])
        .where('deploy_key_id', 'in', keyIds)
        .where('can_push', '=', 1)
        .orderBy('id')
        .execute();

/** Enables a deploy key for a project (once; an existing link is kept as it is). */
export async function linkDeployKey(db: Kysely<DB>, row: Insertable<DeployKeysProjectsTable>): Promise<void> {
  await db
    .insertInto('deploy_keys_projects')
    .values(row)
    .onConflict((oc) => oc.columns(['deploy_key_id', 'project_id']).doNothing())
    .execute();
}

export async function setDeployKeyCanPush(db: Kysely<DB>, linkId: number, canPush: boolean, at: string): Promise<void> {
  await db.updateTable('deploy_keys_projects').set({ can_push: canPush ? 1 : 0, updated_at: at }).where('id', '=', linkId).execute();
}

export async function unlinkDeployKey(db: Kysely<DB>, linkId: number): Promise<void> {
  await db.deleteFrom('deploy_keys_projects').where('id', '=', linkId).execute();
}

/** True when the deploy key is enabled for no project any more. */
export const deployKeyUnused = async (db: Kysely<DB>, keyId: number): Promise<boolean> =>
  !(await db.selectFrom('deploy_keys_projects').select('id').where('deploy_key_id', '=', keyId).limit(1).executeTakeFirst());

/** True when the deploy key is enabled for a project the user may administer, given as ids. */
export const deployKeyLinkedToAny = async (db: Kysely<DB>, keyId: number, projectIds: number[]): Promise<boolean> =>
  projectIds.length > 0 &&
  !!(await db.selectFrom('deploy_keys_projects').select('id').where('deploy_key_id', '=', keyId).where('project_id', 'in', projectIds).limit(1).executeTakeFirst());

/** The projects a deploy key is enabled for, at most `limit`, oldest link first. */
export const projectsOfDeployKey = (db: Kysely<DB>, keyId: number, limit: number): Promise<number[]> =>
  db
    .selectFrom('deploy_keys_projects')
    .select('project_id')
    .where('deploy_key_id', '=', keyId)
    .orderBy('id')
    .limit(limit)
    .execute()
    .then((rows) => rows.map((r) => r.project_id));
