// Activity events and the payloads of push events.
import { sql, type Insertable, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import { inTransaction } from '../transaction.js';
import type { DB, EventsTable, PushEventPayloadsTable } from '../schema.js';
import { authorizedCondition, visibleProjectCondition, type AuthorizedScope, type ProjectVisibilityScope } from './projects.js';
import type { UserRow } from './users.js';

export type EventRow = Selectable<EventsTable>;
export type PushPayloadRow = Selectable<PushEventPayloadsTable>;
export type NewPushPayload = Omit<Insertable<PushEventPayloadsTable>, 'event_id'>;

/** Inserts an event and, for a push, its payload, together. */
export async function insertEvent(db: Kysely<DB>, row: Insertable<EventsTable>, push: NewPushPayload | null): Promise<EventRow> {
  return inTransaction(db, async (tx) => {
    const event = await tx.insertInto('events').values(row).returningAll().executeTakeFirstOrThrow();
    if (push) await tx.insertInto('push_event_payloads').values({ ...push, event_id: event.id }).execute();
    return event;
  });
}

export interface EventListFilter {
  authorId?: number;
  projectId?: number;
  /** Only events in the projects the user has a role in (`scope=all`). */
  inAuthorizedProjects?: AuthorizedScope;
  /** Events in projects are listed only when the project is visible in this scope. */
  visibility: ProjectVisibilityScope;
  /** Events whose project is gone are listed only when this is true (their author, or an admin, looks). */
  withoutProject: boolean;
  /**
   * Push events show only where the caller may download code: absent, every push is shown; else
   * pushes in projects of `openLevels` (visibility levels open to the caller), and where
   * `reporterIn` gives reporter or more.
   */
  pushes?: { openLevels: number[]; reporterIn: AuthorizedScope | null };
  action?: string;
  targetType?: string;
  /** Exclusive bounds on created_at (timestamps). */
  createdAfter: string;
  createdBefore?: string;
  sort: 'asc' | 'desc';
}

export function pageEvents(db: Kysely<DB>, f: EventListFilter, page: PageRequest): Promise<PageResult<EventRow>> {
  let q = db.selectFrom('events').leftJoin('projects', 'projects.id', 'events.project_id').selectAll('events');
  if (f.authorId !== undefined) q = q.where('events.author_id', '=', f.authorId);
  if (f.projectId !== undefined) q = q.where('events.project_id', '=', f.projectId);
  if (f.inAuthorizedProjects) q = q.where('projects.id', 'is not', null).where(authorizedCondition(f.inAuthorizedProjects));
  q = q.where((eb) =>
    eb.or([
      eb.and([eb('events.project_id', 'is', null), f.withoutProject ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`]),
      eb.and([eb('projects.id', 'is not', null), visibleProjectCondition(f.visibility)]),
    ]),
  );
  if (f.pushes) {
    const { openLevels, reporterIn: reporter } = f.pushes;
    q = q.where((eb) =>
      eb.or([
        eb('events.action', '!=', 'pushed'),
        eb('projects.id', 'is', null),
        openLevels.length ? eb('projects.visibility_level', 'in', openLevels) : sql<SqlBool>`1 = 0`,
        reporter ? authorizedCondition(reporter) : sql<SqlBool>`1 = 0`,
      ]),
    );
  }
  if (f.action !== undefined) q = q.where('events.action', '=', f.action);
  if (f.targetType !== undefined) q = q.where('events.target_type', '=', f.targetType);
  q = q.where('events.created_at', '>', f.createdAfter);
  if (f.createdBefore !== undefined) q = q.where('events.created_at', '<', f.createdBefore);
  const ordered = q.orderBy('events.created_at', f.sort).orderBy('events.id', f.sort);
  // The left join only filters; the rows are plain events.
  return runPage(db, ordered as unknown as SelectQueryBuilder<DB, 'events', EventRow>, page);
}

export async function pushPayloadsOf(db: Kysely<DB>, eventIds: number[]): Promise<Map<number, PushPayloadRow>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db.selectFrom('push_event_payloads').selectAll().where('event_id', 'in', eventIds).execute();
  return new Map(rows.map((r) => [r.event_id, r]));
}

/** The authors of a page of events, by id. */
export async function eventAuthors(db: Kysely<DB>, userIds: number[]): Promise<Map<number, UserRow>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', [...new Set(userIds)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Deletes up to `limit` events created before `before`; returns how many went (payloads follow by foreign key). */
export async function pruneEvents(db: Kysely<DB>, before: string, limit: number): Promise<number> {
  const batch = db.selectFrom('events').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit);
  const r = await db.deleteFrom('events').where('id', 'in', batch).executeTakeFirst();
  return Number(r.numDeletedRows);
}
