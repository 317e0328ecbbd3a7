// Topics: one row per name (case-insensitive), and the project rows that carry them. A project's
// topic rows keep the topic's name, so reading a project needs no join; a rename or merge rewrites them.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { DB, TopicsTable } from '../schema.js';

export type TopicRow = Selectable<TopicsTable>;
export interface TopicWithCount extends TopicRow {
  total_projects_count: number;
}

const projectCount = sql<number>`(SELECT count(*) FROM project_topics pt WHERE pt.topic_id = topics.id)`;
const nonPrivateProjectCount = sql<number>`(SELECT count(*) FROM project_topics pt JOIN projects p ON p.id = pt.project_id
  WHERE pt.topic_id = topics.id AND p.visibility_level > 0)`;

const withCount = (db: Kysely<DB>) => db.selectFrom('topics').selectAll('topics').select(projectCount.as('total_projects_count'));

/** A page of topics, the most used by non-private projects first (then oldest), as the reference orders them. */
export function pageTopics(db: Kysely<DB>, f: { search?: string; withoutProjects?: boolean }, page: PageRequest): Promise<PageResult<TopicWithCount>> {
  let q = withCount(db);
  if (f.search) q = q.where(ilike(db, 'topics.name', `%${likeEscape(f.search)}%`));
  if (f.withoutProjects) q = q.where(sql<boolean>`NOT EXISTS (SELECT 1 FROM project_topics pt WHERE pt.topic_id = topics.id)`);
  return runPage(db, q.orderBy(nonPrivateProjectCount, 'desc').orderBy('topics.id', 'asc'), page) as Promise<PageResult<TopicWithCount>>;
}

export const findTopic = (db: Kysely<DB>, id: number) =>
  withCount(db).where('topics.id', '=', id).executeTakeFirst() as Promise<TopicWithCount | undefined>;

export const findTopicByName = (db: Kysely<DB>, name: string) =>
  db.selectFrom('topics').selectAll().where('name_lower', '=', name.toLowerCase()).executeTakeFirst();

export interface TopicFields {
  name: string;
  title: string;
  description: string | null;
  avatar_path: string | null;
}

export async function insertTopic(db: Kysely<DB>, t: TopicFields, now: string): Promise<number> {
  const row = await db
    .insertInto('topics')
    .values({ ...t, name_lower: t.name.toLowerCase(), created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Changes a topic; a new name reaches the projects that carry it. */
export async function updateTopic(db: Kysely<DB>, id: number, patch: Partial<TopicFields>, now: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const lower = patch.name?.toLowerCase();
    await tx.updateTable('topics').set({ ...patch, ...(lower ? { name_lower: lower } : {}), updated_at: now }).where('id', '=', id).execute();
    if (patch.name) await tx.updateTable('project_topics').set({ name: patch.name, name_lower: lower! }).where('topic_id', '=', id).execute();
  });
}

/** Deletes a topic; its projects lose it (written out, not left to the cascade, so cached projects see it). */
export async function deleteTopic(db: Kysely<DB>, id: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('project_topics').where('topic_id', '=', id).execute();
    await tx.deleteFrom('topics').where('id', '=', id).execute();
  });
}

/** Moves the source's projects to the target (a project that has both keeps one) and deletes the source. */
export async function mergeTopics(db: Kysely<DB>, sourceId: number, target: TopicRow): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .deleteFrom('project_topics')
      .where('topic_id', '=', sourceId)
      .where('project_id', 'in', tx.selectFrom('project_topics').select('project_id').where('topic_id', '=', target.id))
      .execute();
    await tx.updateTable('project_topics').set({ topic_id: target.id, name: target.name, name_lower: target.name_lower }).where('topic_id', '=', sourceId).execute();
    await tx.deleteFrom('topics').where('id', '=', sourceId).execute();
  });
}

/**
 * Gives a project exactly these topics (names as given; an existing topic of the same name,
 * whatever its case, is used and named as it is), creating the topics that do not exist yet.
 */
export async function setProjectTopics(tx: Transaction<DB>, projectId: number, names: string[], now: string): Promise<void> {
  await tx.deleteFrom('project_topics').where('project_id', '=', projectId).execute();
  if (names.length === 0) return;
  const lowers = names.map((n) => n.toLowerCase());
  await tx
    .insertInto('topics')
    .values(names.map((name) => ({ name, name_lower: name.toLowerCase(), title: name, description: null, avatar_path: null, created_at: now, updated_at: now })))
    .onConflict((oc) => oc.column('name_lower').doNothing())
    .execute();
  const topics = await tx.selectFrom('topics').select(['id', 'name', 'name_lower']).where('name_lower', 'in', lowers).execute();
  const byLower = new Map(topics.map((t) => [t.name_lower, t]));
  await tx
    .insertInto('project_topics')
    .values(lowers.map((l) => byLower.get(l)!).map((t) => ({ project_id: projectId, topic_id: t.id, name: t.name, name_lower: t.name_lower })))
    .execute();
}
