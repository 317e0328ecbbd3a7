// Projects, their topics and redirects from old paths. A project's full path is its namespace's
// full path plus its own path; full_path_lower is kept exact on rename and transfer.
import { sql, type Expression, type Insertable, type Kysely, type RawBuilder, type Selectable, type SqlBool, type Transaction, type Updateable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { dialectOf, ilike, likeEscape } from '../dialect.js';
import { whereCustomAttributes, type CustomAttributeFilter } from './custom_attributes.js';
import { MAX_ID, runPage } from '../paginate.js';
import { groupIdsAtOrBelowMembershipsSql } from './members.js';
import { setProjectTopics } from './topics.js';
import { splitContext, withProjectContext, type ProjectWithContext } from './project_context.js';
import type { DB, ProjectsTable } from '../schema.js';

export type ProjectRow = Selectable<ProjectsTable>;
export type NewProject = Insertable<ProjectsTable>;
export type ProjectPatch = Updateable<ProjectsTable>;

export const findProjectById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();

export const findProjectByFullPath = (db: Kysely<DB>, fullPath: string) =>
  db.selectFrom('projects').selectAll().where('full_path_lower', '=', fullPath.toLowerCase()).executeTakeFirst();

/** The project an old (renamed or transferred) path now leads to. */
export const findProjectByRedirect = (db: Kysely<DB>, fullPath: string) =>
  db
    .selectFrom('project_redirects')
    .innerJoin('projects', 'projects.id', 'project_redirects.project_id')
    .selectAll('projects')
    .where('project_redirects.old_full_path_lower', '=', fullPath.toLowerCase())
    .executeTakeFirst();

export const findProjectsByIds = (db: Kysely<DB>, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([] as ProjectRow[]) : db.selectFrom('projects').selectAll().where('id', 'in', ids).execute();

/** A project in the namespace already has this path (case-insensitive) or name (exact). */
export async function projectTaken(db: Kysely<DB>, namespaceId: number, column: 'path' | 'name', value: string, exceptId: number | null): Promise<boolean> {
  let q = db.selectFrom('projects').select('id').where('namespace_id', '=', namespaceId);
  q = column === 'path' ? q.where(sql`lower(path)`, '=', value.toLowerCase()) : q.where('name', '=', value);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export interface NewProjectExtras {
  topics: string[];
  /** A project member row for the owner of a personal namespace, as the reference adds one. */
  owner: { userId: number; accessLevel: number } | null;
  /** More writes in the same transaction (a fork counts itself on its source). */
  after?: (tx: Transaction<DB>, p: ProjectRow) => Promise<void>;
}

/** Inserts the project with its topics (and owner membership); a path it takes stops redirecting elsewhere. */
export async function insertProject(db: Kysely<DB>, row: NewProject, extras: NewProjectExtras): Promise<ProjectRow> {
  return db.transaction().execute(async (tx) => {
    const p = await tx.insertInto('projects').values(row).returningAll().executeTakeFirstOrThrow();
    await tx.deleteFrom('project_redirects').where('old_full_path_lower', '=', p.full_path_lower).execute();
    if (extras.topics.length) await setProjectTopics(tx, p.id, extras.topics, row.created_at);
    if (extras.owner) {
      await tx
        .insertInto('members')
        .values({
          source_type: 'Project',
          source_id: p.id,
          user_id: extras.owner.userId,
          access_level: extras.owner.accessLevel,
          expires_at: null,
          created_by_id: extras.owner.userId,
          created_at: row.created_at,
          updated_at: row.created_at,
        })
        .execute();
    }
    if (extras.after) await extras.after(tx, p);
    return p;
  });
}

export interface ProjectUpdateExtras {
  /** Replaces the topics when given. */
  topics?: string[];
  /** The full path the project had, kept as a redirect when it changed. */
  oldFullPath?: string;
  /** More writes in the same transaction (the hook deliveries of the change). */
  after?: (tx: Transaction<DB>, p: ProjectRow) => Promise<void>;
}

export async function updateProject(db: Kysely<DB>, id: number, patch: ProjectPatch, extras: ProjectUpdateExtras = {}): Promise<ProjectRow> {
  return db.transaction().execute(async (tx) => {
    const p = await tx.updateTable('projects').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    if (extras.topics) await setProjectTopics(tx, id, extras.topics, p.updated_at);
    const oldLower = extras.oldFullPath?.toLowerCase();
    if (oldLower && oldLower !== p.full_path_lower) {
      // The new path no longer redirects anywhere; the old one now leads here.
      await tx.deleteFrom('project_redirects').where('old_full_path_lower', 'in', [p.full_path_lower, oldLower]).execute();
      await tx.insertInto('project_redirects').values({ old_full_path_lower: oldLower, project_id: id, created_at: p.updated_at }).execute();
    }
    if (extras.after) await extras.after(tx, p);
    return p;
  });
}

// Removal of a project's rows: destroyProjectRows in project_lifecycle.ts.

// ---- the project list ----

/** Which projects a caller may see at all. */
export type ProjectVisibilityScope =
  | { kind: 'all' } // admins
  | { kind: 'public' } // anonymous
  | { kind: 'user'; levels: number[]; access: AuthorizedScope };

/** Projects a user has a role in: direct membership, their own namespace, a group at or above the project's namespace, or a group it is shared with. */
export interface AuthorizedScope {
  userId: number;
  minAccess: number;
  today: string;
  /** The user's personal namespace (they own its projects), when minAccess allows owners. */
  personalNamespaceId: number | null;
}

const STATISTICS_ORDERS = ['repository_size', 'storage_size', 'packages_size', 'wiki_size'] as const;
export type StatisticsOrder = (typeof STATISTICS_ORDERS)[number];
export type ProjectOrder = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | 'similarity' | StatisticsOrder;

export const isStatisticsOrder = (o: string): o is StatisticsOrder => (STATISTICS_ORDERS as readonly string[]).includes(o);

/**
 * The size a statistics ordering sorts by: a repository's bytes (its storage is nothing else
 * here), 0 before they are first computed. Packages and wikis do not exist: all 0, so id decides.
 */
function statisticsSize(o: StatisticsOrder) {
  if (o === 'packages_size' || o === 'wiki_size') return null;
  return sql<number>`COALESCE((SELECT s.repository_size FROM project_repository_statistics s WHERE s.project_id = projects.id), 0)`;
}

export interface ProjectListFilter {
  scope: ProjectVisibilityScope;
  /** Limit to projects the user has a role in (membership, owned, min_access_level). */
  authorized?: AuthorizedScope;
  namespaceIds?: number[];
  /** Projects shared with this group by a live link: with namespaceIds, those too (either one), else only these. */
  sharedWithGroupId?: number;
  archived?: boolean;
  visibilityLevel?: number;
  search?: string;
  searchNamespaces?: boolean;
  /** Every one of these topics (case-insensitive). */
  topics?: string[];
  /** The topic with this id. */
  topicId?: number;
  /** A language detected in the repository (case-insensitive name, as GET /projects/:id/languages names it). */
  programmingLanguage?: string;
  lastActivityAfter?: string;
  lastActivityBefore?: string;
  idAfter?: number;
  idBefore?: number;
  importedBy?: number;
  /** Projects every one of these users starred. */
  starredBy?: number[];
  /** Direct forks of this project. */
  forkedFromId?: number;
  withIssuesEnabled?: boolean;
  withMergeRequestsEnabled?: boolean;
  /** `custom_attributes[key]=value` (admins). */
  customAttributes?: CustomAttributeFilter;
  none?: boolean;
  orderBy: ProjectOrder;
  sort: 'asc' | 'desc';
}

export function authorizedCondition(a: AuthorizedScope): Expression<SqlBool> {
  const parts = [
    sql<SqlBool>`projects.id IN (SELECT m.source_id FROM members m WHERE m.source_type = 'Project' AND m.user_id = ${a.userId}
      AND m.access_level >= ${a.minAccess} AND (m.expires_at IS NULL OR m.expires_at > ${a.today}))`,
  ];
  if (a.personalNamespaceId !== null) parts.push(sql<SqlBool>`projects.namespace_id = ${a.personalNamespaceId}`);
  // The groups are found in the same statement (no round trip before the page): the database
  // evaluates the uncorrelated subquery once.
  const groups = groupIdsAtOrBelowMembershipsSql(a.userId, a.minAccess, a.today);
  parts.push(sql<SqlBool>`projects.namespace_id IN (${groups})`);
  // Projects shared with those groups at a level that is high enough, while the link lives.
  parts.push(sql<SqlBool>`projects.id IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id IN (${groups})
    AND l.group_access >= ${a.minAccess} AND (l.expires_at IS NULL OR l.expires_at > ${a.today}))`);
  return sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

/** The projects a scope may see, as a condition on `projects` (lists of things in projects use it too). */
export function visibleProjectCondition(s: ProjectVisibilityScope): Expression<SqlBool> {
  if (s.kind === 'all') return sql<SqlBool>`1 = 1`;
  if (s.kind === 'public') return sql<SqlBool>`projects.visibility_level = 20`;
  // The unary + keeps planners from driving this OR through the visibility index (which then sorts
  // every visible row): the list walks its ordering index instead and stops at the page.
  return sql<SqlBool>`(+projects.visibility_level IN (${sql.join(s.levels.length ? s.levels : [-1])}) OR ${authorizedCondition(s.access)})`;
}

/** Lowercased LIKE with an explicit escape character, the same on both dialects. */
const lowerLike = (column: string, pattern: string) => sql<number>`lower(${sql.ref(column)}) LIKE ${pattern} ESCAPE '\\'`;

/** A rough similarity rank: path counts most, then name, then description; exact > prefix > substring. */
function similarityScore(term: string) {
  const t = term.toLowerCase();
  const e = likeEscape(t);
  const one = (column: string, weight: number) =>
    sql`(CASE WHEN lower(${sql.ref(column)}) = ${t} THEN ${weight * 4} WHEN ${lowerLike(column, `${e}%`)} THEN ${weight * 2}
      WHEN ${lowerLike(column, `%${e}%`)} THEN ${weight} ELSE 0 END)`;
  return sql<number>`(${one('projects.path', 10)} + ${one('projects.name', 7)} + ${one('projects.description', 2)})`;
}

/**
 * A page of projects, each with its context (the memberships of `caller.userId`, null for none)
 * read in the same statement.
 */
export async function pageProjects(
  db: Kysely<DB>,
  f: ProjectListFilter,
  page: PageRequest,
  caller: { userId: number | null; today: string },
): Promise<PageResult<ProjectWithContext>> {
  let q = db.selectFrom('projects').selectAll('projects');
  if (f.none) q = q.where(sql<boolean>`1 = 0`);
  if (f.authorized) q = q.where(authorizedCondition(f.authorized));
  // in these namespaces, or shared with the group (either one when both are asked)
  const placed: RawBuilder<SqlBool>[] = [];
  if (f.namespaceIds) placed.push(sql`projects.namespace_id IN (${sql.join(f.namespaceIds.length ? f.namespaceIds : [-1])})`);
  if (f.sharedWithGroupId !== undefined) {
    placed.push(sql`projects.id IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id = ${f.sharedWithGroupId}
      AND (l.expires_at IS NULL OR l.expires_at > ${caller.today}))`);
  }
  if (placed.length) q = q.where(sql<SqlBool>`(${sql.join(placed, sql` OR `)})`);
  if (f.archived !== undefined) q = q.where('projects.archived', '=', f.archived ? 1 : 0);
  if (f.visibilityLevel !== undefined) q = q.where('projects.visibility_level', '=', f.visibilityLevel);
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    const namespaceMatch = db
      .selectFrom('namespaces')
      .select('namespaces.id')
      .where((eb) => eb.or([ilike(db, 'namespaces.full_path', pattern), ilike(db, 'namespaces.name', pattern)]));
    q = q.where((eb) =>
      eb.or([
        ilike(db, 'projects.name', pattern),
        ilike(db, 'projects.path', pattern),
        ilike(db, 'projects.description', pattern),
        ...(f.searchNamespaces ? [ilike(db, 'projects.full_path', pattern), eb('projects.namespace_id', 'in', namespaceMatch)] : []),
      ]),
    );
  }
  for (const topic of f.topics ?? []) {
    q = q.where('projects.id', 'in', db.selectFrom('project_topics').select('project_id').where('name_lower', '=', topic.toLowerCase()));
  }
  if (f.topicId !== undefined) q = q.where('projects.id', 'in', db.selectFrom('project_topics').select('project_id').where('topic_id', '=', f.topicId));
  if (f.programmingLanguage) {
    // The cached breakdown is JSON `[["Ruby",61.2],…]`: one pair starts `["<name>",`.
    const pattern = `%${likeEscape(JSON.stringify([f.programmingLanguage.toLowerCase()]).slice(0, -1))},%`;
    q = q.where('projects.id', 'in', db.selectFrom('project_repository_statistics').select('project_id').where(sql<SqlBool>`${lowerLike('languages', pattern)}`));
  }
  if (f.lastActivityAfter) q = q.where('projects.last_activity_at', '>', f.lastActivityAfter);
  if (f.lastActivityBefore) q = q.where('projects.last_activity_at', '<', f.lastActivityBefore);
  if (f.idAfter !== undefined) q = q.where('projects.id', '>', f.idAfter);
  if (f.idBefore !== undefined && f.idBefore <= MAX_ID) q = q.where('projects.id', '<', f.idBefore);
  if (f.importedBy !== undefined) q = q.where('projects.import_type', 'is not', null).where('projects.creator_id', '=', f.importedBy);
  for (const userId of f.starredBy ?? []) {
    q = q.where('projects.id', 'in', db.selectFrom('project_stars').select('project_id').where('user_id', '=', userId));
  }
  if (f.forkedFromId !== undefined) q = q.where('projects.forked_from_id', '=', f.forkedFromId);
  if (f.withIssuesEnabled) q = q.where('projects.issues_access_level', '!=', 'disabled');
  if (f.withMergeRequestsEnabled) q = q.where('projects.merge_requests_access_level', '!=', 'disabled');
  q = whereCustomAttributes(q, 'project', 'projects.id', f.customAttributes);
  // A user's public and internal projects alone are a subset that the visibility index walks
  // quickly: past the count cap, they answer for the whole scope (paginate.ts).
  const countSubset = f.scope.kind === 'user' && f.scope.levels.length ? q.where('projects.visibility_level', 'in', f.scope.levels) : undefined;
  if (f.scope.kind !== 'all') q = q.where(visibleProjectCondition(f.scope));

  if (f.orderBy === 'similarity') {
    q = f.search
      ? q.orderBy(similarityScore(f.search), 'desc').orderBy('projects.id', 'desc')
      : q.orderBy('projects.name', 'asc').orderBy('projects.id', f.sort);
  } else if (isStatisticsOrder(f.orderBy)) {
    const size = statisticsSize(f.orderBy);
    if (size) q = q.orderBy(size, f.sort);
    q = q.orderBy('projects.id', f.sort);
  } else {
    if (f.orderBy !== 'id') q = q.orderBy(`projects.${f.orderBy}`, f.sort);
    q = q.orderBy('projects.id', f.sort);
  }
  const joined = await runPage(db, q, page, {
    idColumn: 'projects.id',
    countSubset,
    withColumns: (page) => withProjectContext(db, page, caller.userId, caller.today),
  });
  return { ...joined, items: joined.items.map(splitContext) };
}


/**
 * Rewrites the stored full paths of projects in a namespace (and the namespaces below it) after
 * that namespace's full path changed, e.g. a group moved or a user renamed. Lookups and responses
 * already go through the namespace, so this only keeps full_path(_lower) and its unique index true.
 */
export async function refreshProjectPaths(db: Kysely<DB> | Transaction<DB>, oldPrefix: string, newPrefix: string): Promise<void> {
  const oldLower = oldPrefix.toLowerCase();
  const rows = await db
    .selectFrom('projects')
    .select(['id', 'full_path'])
    .where(sql<SqlBool>`substr(full_path_lower, 1, ${oldLower.length + 1}) = ${`${oldLower}/`}`)
    .execute();
  for (const r of rows) {
    const full = newPrefix + r.full_path.slice(oldPrefix.length);
    await db.updateTable('projects').set({ full_path: full, full_path_lower: full.toLowerCase() }).where('id', '=', r.id).execute();
  }
}

/**
 * Inside a transaction: serializes writers of one project's rows (a per-project counter, one open
 * row per key) on PostgreSQL; SQLite runs one writer at a time anyway.
 */
export async function lockProjectRow(tx: Transaction<DB>, projectId: number): Promise<void> {
  if (dialectOf(tx) === 'postgres') await tx.selectFrom('projects').select('id').where('id', '=', projectId).forNoKeyUpdate().execute();
}
