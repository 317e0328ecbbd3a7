// What answering with a project needs beside its row, read in the same statement: its
// namespace, the owner of a personal namespace, its topics, whether it is shared with groups,
// and the caller's own memberships. One joined read instead of one query for each (a project
// GET was seven statements; on PostgreSQL each is a round trip).
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { compiledOnce } from '../compiled.js';
import { dialectOf, objectLiteral } from '../dialect.js';
import type { DB, ProjectsTable } from '../schema.js';

export interface ProjectContext {
  ns_id: number;
  ns_kind: string;
  ns_name: string;
  ns_path: string;
  ns_full_path: string;
  ns_full_path_lower: string;
  ns_owner_id: number | null;
  /** The user owning a personal namespace (null for a group's). */
  owner_id: number | null;
  owner_name: string | null;
  owner_created_at: string | null;
  /** Topic names as a JSON array, in the order given. */
  topics_json: string;
  /** 1 when the project is shared with a group by a live link (then read them: project_group_links.ts), else 0. */
  live_links: number;
  /** The caller's live membership of the project itself (null: none, or no caller). */
  member_level: number | null;
  /** The caller's highest live membership of the project's group or a group above it (null: none; always null for a personal namespace). */
  group_level: number | null;
}

/** Topic names of `projects.id` as JSON text, on either dialect. */
function topicsJson(db: Kysely<DB>) {
  return dialectOf(db) === 'postgres'
    ? sql<string>`(SELECT coalesce(json_agg(t.name ORDER BY t.id), '[]'::json)::text FROM project_topics t WHERE t.project_id = projects.id)`
    : sql<string>`(SELECT json_group_array(t.name ORDER BY t.id) FROM project_topics t WHERE t.project_id = projects.id)`;
}

/**
 * A query of whole project rows with the context of each row in the same statement (a page of
 * projects reads it too: one round trip for the page and its contexts). Split each row with
 * `splitContext`. Each subquery runs once per project read, 20 times for a page of 20, so none
 * aggregates what it need not: a user has at most one membership of a project
 * (members_source_user_uq), and whether a live group link exists is all a page needs to know.
 */
export function withProjectContext<O>(db: Kysely<DB>, q: SelectQueryBuilder<DB, 'projects', O>, userId: number | null, today: string) {
  const memberLevel =
    userId === null
      ? sql<number | null>`NULL`
      : sql<number | null>`(SELECT m.access_level FROM members m WHERE m.source_type = 'Project' AND m.source_id = projects.id
          AND m.user_id = ${userId} AND (m.expires_at IS NULL OR m.expires_at > ${today}))`;
  // A group's members reach the groups below it: memberships of the namespace or of a group whose full path prefixes it.
  const groupLevel =
    userId === null
      ? sql<number | null>`NULL`
      : sql<number | null>`(SELECT max(m.access_level) FROM members m INNER JOIN namespaces g ON g.id = m.source_id
          WHERE m.source_type = 'Namespace' AND m.user_id = ${userId} AND ns.kind = 'group' AND (m.expires_at IS NULL OR m.expires_at > ${today})
          AND (g.full_path_lower = ns.full_path_lower OR substr(ns.full_path_lower, 1, length(g.full_path_lower) + 1) = g.full_path_lower || '/'))`;
  return q
    .innerJoin('namespaces as ns', 'ns.id', 'projects.namespace_id')
    .leftJoin('users as owner', (j) => j.onRef('owner.id', '=', 'ns.owner_id').on('ns.kind', '!=', 'group'))
    .select([
      'ns.id as ns_id',
      'ns.kind as ns_kind',
      'ns.name as ns_name',
      'ns.path as ns_path',
      'ns.full_path as ns_full_path',
      'ns.full_path_lower as ns_full_path_lower',
      'ns.owner_id as ns_owner_id',
      'owner.id as owner_id',
      'owner.name as owner_name',
      'owner.created_at as owner_created_at',
      topicsJson(db).as('topics_json'),
      sql<number>`(CASE WHEN EXISTS (SELECT 1 FROM project_group_links l WHERE l.project_id = projects.id
        AND (l.expires_at IS NULL OR l.expires_at > ${today})) THEN 1 ELSE 0 END)`.as('live_links'),
      memberLevel.as('member_level'),
      groupLevel.as('group_level'),
    ]);
}

/** The tables a project with its context is read from (a write to one of them changes it). */
export const PROJECT_CONTEXT_TABLES = ['projects', 'namespaces', 'users', 'project_topics', 'project_group_links', 'members'];

const CONTEXT_KEYS = [
  'ns_id', 'ns_kind', 'ns_name', 'ns_path', 'ns_full_path', 'ns_full_path_lower', 'ns_owner_id',
  'owner_id', 'owner_name', 'owner_created_at', 'topics_json', 'live_links', 'member_level', 'group_level',
] as const satisfies readonly (keyof ProjectContext)[];

/** Which project: by id, or by its full path (any case). */
export type ProjectKey = { id: number } | { fullPath: string };

// The read behind every project request: compiled once (compiled.ts) per caller kind (a caller or
// none) and key kind (id or full path). By path it is the same one statement: a request that names
// its project by path (as clients of repository endpoints mostly do) costs no extra round trip.
const projectWithContext = compiledOnce((db, v: { key: number | string; userId: number | null; today: string }, variant) => {
  const q = withProjectContext(db, db.selectFrom('projects').selectAll('projects'), variant.startsWith('anonymous') ? null : v.userId, v.today);
  return variant.endsWith('path') ? q.where('projects.full_path_lower', '=', v.key as string) : q.where('projects.id', '=', v.key as number);
});

/** A project row (projects.ts ProjectRow, which reads pages through here) and what answering with it needs. */
export interface ProjectWithContext {
  row: Selectable<ProjectsTable>;
  context: ProjectContext;
}

/** A row read with its context (withProjectContext) as two objects. */
export const splitContext = (joined: Record<string, unknown>): ProjectWithContext => splitterOf(joined)(joined) as ProjectWithContext;

/** A project by id or full path with its context (the caller's memberships for `userId`; null for none), as two objects. */
export async function findProjectWithContext(
  db: Kysely<DB>,
  key: ProjectKey,
  userId: number | null,
  today: string,
): Promise<ProjectWithContext | undefined> {
  const [value, keyKind] = 'id' in key ? [key.id, 'id'] : [key.fullPath.toLowerCase(), 'path'];
  const variant = `${userId === null ? 'anonymous' : 'caller'} ${keyKind}`;
  const [joined] = (await projectWithContext(db, { key: value, userId, today }, variant)) as Record<string, unknown>[];
  return joined ? splitContext(joined) : undefined;
}

/**
 * The joined row split into a plain project row (some callers store or spread it) and its
 * context, each made as one object literal. Deleting the context's keys from the joined row
 * instead turned it into a slow dictionary for everything that reads it afterwards. Made again
 * when the columns change (a migration adds one to `projects.*`).
 */
let splitter: { keys: string[]; split: (joined: Record<string, unknown>) => { row: unknown; context: unknown } } | null = null;

function splitterOf(joined: Record<string, unknown>) {
  const keys = Object.keys(joined);
  if (!splitter || splitter.keys.length !== keys.length || splitter.keys.some((k, i) => k !== keys[i])) {
    const literal = (names: readonly string[]) => objectLiteral(names, (k) => `j[${JSON.stringify(k)}]`);
    const rowKeys = keys.filter((k) => !(CONTEXT_KEYS as readonly string[]).includes(k));
    splitter = { keys, split: new Function('j', `return { row: ${literal(rowKeys)}, context: ${literal(CONTEXT_KEYS)} };`) as never };
  }
  return splitter.split;
}

// The read behind every page of projects: compiled once per number of projects (compiled.ts;
// pages hold at most 100, so at most 100 forms per caller variant); the ids are the values `id0`, `id1`, …
const contextsOfPage = compiledOnce((db, v: Record<string, unknown>, variant) => {
  const ids = Object.keys(v).filter((k) => /^id\d+$/.test(k)).map((k) => v[k] as number);
  const userId = variant.startsWith('anonymous') ? null : (v.userId as number);
  return withProjectContext(db, db.selectFrom('projects').select('projects.id'), userId, v.today as string).where('projects.id', 'in', ids);
});

/** The context of each of these projects, by project id (one statement for a whole page). */
export async function projectContexts(db: Kysely<DB>, ids: number[], userId: number | null, today: string): Promise<Map<number, ProjectContext>> {
  if (ids.length === 0) return new Map();
  const values: Record<string, unknown> = { userId, today };
  ids.forEach((id, i) => (values[`id${i}`] = id));
  const rows = await contextsOfPage(db, values, `${userId === null ? 'anonymous' : 'caller'} ${ids.length}`);
  return new Map(rows.map((r) => [r.id, r]));
}
