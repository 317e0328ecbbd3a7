// Labels of projects and groups, their priorities per project, and the links that put them on
// issues and merge requests (target type + id).
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import { inTransaction } from '../transaction.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, LabelsTable } from '../schema.js';

export type LabelRow = Selectable<LabelsTable>;
/** What a label is put on. */
export type LabelTargetType = 'Issue' | 'MergeRequest';

/** Whose labels a list shows: a project's own and/or those of some groups. */
export interface LabelOwners {
  projectIds: number[];
  groupIds: number[];
}

function owned(db: Kysely<DB>, owners: LabelOwners) {
  return db.selectFrom('labels').selectAll().where((eb) =>
    eb.or([
      ...(owners.projectIds.length ? [eb('project_id', 'in', owners.projectIds)] : []),
      ...(owners.groupIds.length ? [eb('group_id', 'in', owners.groupIds)] : []),
      // Owners given as none: an empty list.
      ...(owners.projectIds.length === 0 && owners.groupIds.length === 0 ? [sql<boolean>`1 = 0`] : []),
    ]),
  );
}

/** Labels of these owners by title (then id), optionally those whose title or description holds `search`. */
export function pageLabels(db: Kysely<DB>, owners: LabelOwners, search: string | undefined, page: PageRequest): Promise<PageResult<LabelRow>> {
  let q = owned(db, owners);
  if (search) {
    const pattern = `%${likeEscape(search)}%`;
    q = q.where((eb) => eb.or([ilike(db, 'title', pattern), ilike(db, 'description', pattern)]));
  }
  return runPage(db, q.orderBy('title').orderBy('id'), page);
}

/** One label of these owners by id, else by exact title (a project's own before its groups'). */
export async function findLabelOf(db: Kysely<DB>, owners: LabelOwners, idOrTitle: string): Promise<LabelRow | undefined> {
  if (/^\d+$/.test(idOrTitle) && Number(idOrTitle) <= 2 ** 31 - 1) {
    const byId = await owned(db, owners).where('id', '=', Number(idOrTitle)).executeTakeFirst();
    if (byId) return byId;
  }
  return owned(db, owners).where('title', '=', idOrTitle).orderBy('group_id', 'desc').orderBy('id').executeTakeFirst();
}

/** Labels of these owners with these titles (exact), a project's own first. */
export const labelsByTitles = (db: Kysely<DB>, owners: LabelOwners, titles: string[]): Promise<LabelRow[]> =>
  titles.length === 0 ? Promise.resolve([]) : owned(db, owners).where('title', 'in', titles).orderBy('id').execute();

export const labelsByIds = (db: Kysely<DB>, ids: number[]): Promise<LabelRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('labels').selectAll().where('id', 'in', ids).execute();

export const findLabelById = (db: Kysely<DB>, id: number): Promise<LabelRow | undefined> =>
  db.selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst();

/** A label of exactly this owner with this title. */
export const findOwnLabelByTitle = (db: Kysely<DB>, owner: { project_id: number } | { group_id: number }, title: string): Promise<LabelRow | undefined> =>
  db
    .selectFrom('labels')
    .selectAll()
    .where('project_id' in owner ? 'project_id' : 'group_id', '=', 'project_id' in owner ? owner.project_id : owner.group_id)
    .where('title', '=', title)
    .executeTakeFirst();

export const insertLabel = (db: Kysely<DB>, row: Insertable<LabelsTable>): Promise<LabelRow> =>
  db.insertInto('labels').values(row).returningAll().executeTakeFirstOrThrow();

export const updateLabel = (db: Kysely<DB>, id: number, patch: Updateable<LabelsTable>): Promise<LabelRow> =>
  db.updateTable('labels').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteLabel = (db: Kysely<DB>, id: number) =>
  inTransaction(db, async (tx) => {
    await tx.deleteFrom('label_links').where('label_id', '=', id).execute();
    await tx.deleteFrom('label_priorities').where('label_id', '=', id).execute();
    await tx.deleteFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', '=', id).execute();
    await tx.deleteFrom('labels').where('id', '=', id).execute();
  });

// ---- priorities ----

/** The priorities of these labels in one project, by label id. */
export async function prioritiesIn(db: Kysely<DB>, projectId: number, labelIds: number[]): Promise<Map<number, number>> {
  if (labelIds.length === 0) return new Map();
  const rows = await db.selectFrom('label_priorities').select(['label_id', 'priority']).where('project_id', '=', projectId).where('label_id', 'in', labelIds).execute();
  return new Map(rows.map((r) => [r.label_id, r.priority]));
}

export async function setPriority(db: Kysely<DB>, projectId: number, labelId: number, priority: number | null): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('label_priorities').where('project_id', '=', projectId).where('label_id', '=', labelId).execute();
    if (priority !== null) await tx.insertInto('label_priorities').values({ project_id: projectId, label_id: labelId, priority }).execute();
  });
}

// ---- links ----

/** The labels on each of these targets, by target id (each target's labels by title). */
export async function labelsOfTargets(db: Kysely<DB>, type: LabelTargetType, targetIds: number[]): Promise<Map<number, LabelRow[]>> {
  const out = new Map<number, LabelRow[]>(targetIds.map((id) => [id, []]));
  if (targetIds.length === 0) return out;
  const rows = await db
    .selectFrom('label_links')
    .innerJoin('labels', 'labels.id', 'label_links.label_id')
    .selectAll('labels')
    .select('label_links.target_id')
    .where('label_links.target_type', '=', type)
    .where('label_links.target_id', 'in', targetIds)
    .orderBy('labels.title')
    .orderBy('labels.id')
    .execute();
  for (const { target_id, ...label } of rows) out.get(target_id)?.push(label);
  return out;
}

/** Puts these labels on a target and takes those off; the ids actually added and removed. */
export async function changeTargetLabels(
  db: Kysely<DB>,
  type: LabelTargetType,
  targetId: number,
  add: number[],
  remove: number[],
  now: string,
): Promise<{ added: number[]; removed: number[] }> {
  return inTransaction(db, async (tx) => {
    const current = new Set(
      (await tx.selectFrom('label_links').select('label_id').where('target_type', '=', type).where('target_id', '=', targetId).execute()).map((r) => r.label_id),
    );
    const removed = [...new Set(remove)].filter((id) => current.has(id));
    const added = [...new Set(add)].filter((id) => !current.has(id) && !removed.includes(id));
    if (removed.length) await tx.deleteFrom('label_links').where('target_type', '=', type).where('target_id', '=', targetId).where('label_id', 'in', removed).execute();
    if (added.length) await tx.insertInto('label_links').values(added.map((label_id) => ({ label_id, target_type: type, target_id: targetId, created_at: now }))).execute();
    return { added, removed };
  });
}

/** Takes every label off a target (it is being deleted). */
export const clearTargetLabels = (db: Kysely<DB>, type: LabelTargetType, targetId: number) =>
  db.deleteFrom('label_links').where('target_type', '=', type).where('target_id', '=', targetId).execute();

/** Moves every link, priority and subscription of one label to another (a promotion); links the target already has stay single. */
export async function mergeLabelInto(db: Kysely<DB>, fromId: number, toId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const links = await tx.selectFrom('label_links').selectAll().where('label_id', '=', fromId).execute();
    for (const l of links) {
      const has = await tx.selectFrom('label_links').select('id').where('label_id', '=', toId).where('target_type', '=', l.target_type).where('target_id', '=', l.target_id).executeTakeFirst();
      if (has) await tx.deleteFrom('label_links').where('id', '=', l.id).execute();
      else await tx.updateTable('label_links').set({ label_id: toId }).where('id', '=', l.id).execute();
    }
    const prios = await tx.selectFrom('label_priorities').selectAll().where('label_id', '=', fromId).execute();
    for (const p of prios) {
      await tx.deleteFrom('label_priorities').where('label_id', '=', toId).where('project_id', '=', p.project_id).execute();
      await tx.updateTable('label_priorities').set({ label_id: toId }).where('id', '=', p.id).execute();
    }
    const subs = await tx.selectFrom('subscriptions').selectAll().where('subscribable_type', '=', 'Label').where('subscribable_id', '=', fromId).execute();
    for (const s of subs) {
      const has = await tx
        .selectFrom('subscriptions')
        .select('id')
        .where('subscribable_type', '=', 'Label')
        .where('subscribable_id', '=', toId)
        .where('user_id', '=', s.user_id)
        .where('project_id', '=', s.project_id)
        .executeTakeFirst();
      if (has) await tx.deleteFrom('subscriptions').where('id', '=', s.id).execute();
      else await tx.updateTable('subscriptions').set({ subscribable_id: toId }).where('id', '=', s.id).execute();
    }
    await tx.deleteFrom('labels').where('id', '=', fromId).execute();
  });
}

/** The project labels with this title in these projects (what a promotion to their group merges). */
export const projectLabelsTitled = (db: Kysely<DB>, projectIds: number[], title: string): Promise<LabelRow[]> =>
  projectIds.length === 0 ? Promise.resolve([]) : db.selectFrom('labels').selectAll().where('project_id', 'in', projectIds).where('title', '=', title).execute();

// ---- counts ----

/** The projects whose issues carry these labels (what counting them must check access to). */
export const projectsOfLabelledIssues = async (db: Kysely<DB>, labelIds: number[]): Promise<number[]> =>
  labelIds.length === 0
    ? []
    : (
        await db
          .selectFrom('label_links')
          .innerJoin('issues', 'issues.id', 'label_links.target_id')
          .select('issues.project_id')
          .distinct()
          .where('label_links.target_type', '=', 'Issue')
          .where('label_links.label_id', 'in', labelIds)
          .execute()
      ).map((r) => r.project_id);

/**
 * Issues per label and state, among those the caller sees: issues of `readable` projects that
 * are not confidential, or are in `confidential` projects (reporters and above), or are the
 * user's own or assigned to them.
 */
export async function labelIssueCountRows(
  db: Kysely<DB>,
  labelIds: number[],
  readable: number[],
  confidential: number[],
  userId: number | null,
): Promise<{ label_id: number; state: string; n: number }[]> {
  if (labelIds.length === 0 || readable.length === 0) return [];
  const rows = await db
    .selectFrom('label_links')
    .innerJoin('issues', 'issues.id', 'label_links.target_id')
    .select(['label_links.label_id', 'issues.state'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('label_links.target_type', '=', 'Issue')
    .where('label_links.label_id', 'in', labelIds)
    .where('issues.project_id', 'in', readable)
    .where((eb) =>
      eb.or([
        eb('issues.confidential', '=', 0),
        ...(confidential.length ? [eb('issues.project_id', 'in', confidential)] : []),
        ...(userId !== null
          ? [
              eb('issues.author_id', '=', userId),
              eb.exists(eb.selectFrom('issue_assignees').select('issue_assignees.user_id').whereRef('issue_assignees.issue_id', '=', 'issues.id').where('issue_assignees.user_id', '=', userId)),
            ]
          : []),
      ]),
    )
    .groupBy(['label_links.label_id', 'issues.state'])
    .execute();
  return rows.map((r) => ({ label_id: r.label_id, state: r.state, n: Number(r.n) }));
}
