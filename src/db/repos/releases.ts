// Releases of a project and their asset links.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { runPage } from '../paginate.js';
import { inTransaction } from '../transaction.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, ReleaseLinksTable, ReleasesTable } from '../schema.js';

export type ReleaseRow = Selectable<ReleasesTable>;
export type ReleaseLinkRow = Selectable<ReleaseLinksTable>;
export type NewReleaseLink = Omit<Insertable<ReleaseLinksTable>, 'release_id'>;

export const findReleaseByTag = (db: Kysely<DB>, projectId: number, tag: string): Promise<ReleaseRow | undefined> =>
  db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag', '=', tag).executeTakeFirst();

export const findReleaseById = (db: Kysely<DB>, id: number): Promise<ReleaseRow | undefined> =>
  db.selectFrom('releases').selectAll().where('id', '=', id).executeTakeFirst();

/** The releases of these tags (the tags API shows each tag's release). */
export const releasesOfTags = (db: Kysely<DB>, projectId: number, tags: string[]): Promise<ReleaseRow[]> =>
  tags.length === 0
    ? Promise.resolve([])
    : db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag', 'in', tags).execute();

export interface ReleaseOrder {
  orderBy: 'released_at' | 'created_at';
  sort: 'asc' | 'desc';
  updatedBefore?: string;
  updatedAfter?: string;
}

/** A page of a project's releases by released_at or created_at (the id breaks ties), on their index. */
export function pageReleases(db: Kysely<DB>, projectId: number, o: ReleaseOrder, page: PageRequest): Promise<PageResult<ReleaseRow>> {
  let q = db.selectFrom('releases').selectAll().where('project_id', '=', projectId);
  if (o.updatedBefore) q = q.where('updated_at', '<', o.updatedBefore);
  if (o.updatedAfter) q = q.where('updated_at', '>', o.updatedAfter);
  return runPage(db, q.orderBy(o.orderBy, o.sort).orderBy('id', o.sort), page);
}

/** The newest release by released_at (what `permalink/latest` leads to). */
export const latestRelease = (db: Kysely<DB>, projectId: number): Promise<ReleaseRow | undefined> =>
  db.selectFrom('releases').selectAll().where('project_id', '=', projectId).orderBy('released_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();

/** Inserts a release with its links in one transaction; undefined when the tag already has one. */
export async function insertRelease(db: Kysely<DB>, row: Insertable<ReleasesTable>, links: NewReleaseLink[]): Promise<ReleaseRow | undefined> {
  return inTransaction(db, async (tx) => {
    const release = await tx
      .insertInto('releases')
      .values(row)
      .onConflict((oc) => oc.columns(['project_id', 'tag']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!release) return undefined;
    if (links.length) await tx.insertInto('release_links').values(links.map((l) => ({ ...l, release_id: release.id }))).execute();
    return release;
  });
}

export const updateRelease = (db: Kysely<DB>, id: number, patch: Updateable<ReleasesTable>): Promise<ReleaseRow | undefined> =>
  db.updateTable('releases').set(patch).where('id', '=', id).returningAll().executeTakeFirst();

export async function deleteRelease(db: Kysely<DB>, id: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('release_links').where('release_id', '=', id).execute();
    await tx.deleteFrom('releases').where('id', '=', id).execute();
  });
}

/** The links of these releases, newest first (the reference's sorted links). */
export const linksOfReleases = (db: Kysely<DB>, releaseIds: number[]): Promise<ReleaseLinkRow[]> =>
  releaseIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('release_links').selectAll().where('release_id', 'in', releaseIds).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();

/** A page of one release's links, newest first. */
export const pageReleaseLinks = (db: Kysely<DB>, releaseId: number, page: PageRequest): Promise<PageResult<ReleaseLinkRow>> =>
  runPage(db, db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).orderBy('created_at', 'desc').orderBy('id', 'desc'), page);

export const findReleaseLink = (db: Kysely<DB>, releaseId: number, id: number): Promise<ReleaseLinkRow | undefined> =>
  db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).where('id', '=', id).executeTakeFirst();

export const findReleaseLinkByFilepath = (db: Kysely<DB>, releaseId: number, filepath: string): Promise<ReleaseLinkRow | undefined> =>
  db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).where('filepath', '=', filepath).executeTakeFirst();

export const insertReleaseLink = (db: Kysely<DB>, row: Insertable<ReleaseLinksTable>): Promise<ReleaseLinkRow | undefined> =>
  db
    .insertInto('release_links')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();

/** Undefined when the change would take another link's name or URL (or the link is gone). */
export async function updateReleaseLink(db: Kysely<DB>, id: number, patch: Updateable<ReleaseLinksTable>): Promise<ReleaseLinkRow | undefined> {
  try {
    return await db.updateTable('release_links').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
  } catch (e) {
    if (/unique|duplicate/i.test(String((e as Error).message))) return undefined;
    throw e;
  }
}

export const deleteReleaseLink = (db: Kysely<DB>, id: number) => db.deleteFrom('release_links').where('id', '=', id).execute();
