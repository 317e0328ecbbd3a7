// Activity events: what users did in projects. `recordEvent` is the one way any area records
// one; the three lists show only events the caller may see, and never those older than three
// years (a daily job deletes them).
import type { Container } from '../context.js';
import {
  eventAuthors,
  insertEvent,
  pageEvents,
  pruneEvents,
  pushPayloadsOf,
  type EventListFilter,
  type EventRow,
  type PushPayloadRow,
} from '../../db/repos/events.js';
import type { ProjectVisibilityScope } from '../../db/repos/projects.js';
import { findUserByIdOrUsername, type UserRow } from '../../db/repos/users.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { invalidParams, notFound } from '../errors.js';
import { ACCESS, authorizedScope, visibleLevelsFor } from '../members/policy.js';
import { canReadCode } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { canReadProfile } from '../users/policy.js';
import { nowDate } from '../../shared/clock.js';

/** The reference's Event actions (the `action` filter takes these names). */
export const EVENT_ACTIONS = [
  'created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved',
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/** `target_type` filter values and the target types stored for them. */
export const TARGET_TYPES = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  wiki: 'WikiPage::Meta',
  design: 'DesignManagement::Design',
} as const;
export type TargetTypeName = keyof typeof TARGET_TYPES;
export const TARGET_TYPE_NAMES = Object.keys(TARGET_TYPES) as TargetTypeName[];

/** What a push changed (the event's `push_data`). */
export interface PushData {
  commitCount: number;
  /** created: a new ref; removed: a deleted ref; pushed: commits added to a ref. */
  action: 'created' | 'removed' | 'pushed';
  refType: 'branch' | 'tag';
  commitFrom: string | null;
  commitTo: string | null;
  ref: string | null;
  commitTitle: string | null;
}

export interface NewEvent {
  action: EventAction;
  /** The user who acted (for joined/left: the member). */
  authorId: number;
  /** Null only for an event about a project that no longer exists (destroyed). */
  projectId: number | null;
  /** What the event is about; none for project-level events (created, updated, joined, left...). */
  target?: { type: (typeof TARGET_TYPES)[TargetTypeName]; id: number; iid?: number | null; title?: string | null };
  /** Required for `pushed`. */
  push?: PushData;
}

/** Records one event; the one function other areas call. */
export async function recordEvent(c: Container, e: NewEvent): Promise<number> {
  if (e.action === 'pushed' && !e.push) throw new Error('a push event needs its push data');
  const p = e.action === 'pushed' ? e.push! : null;
  const row = await insertEvent(
    c.db,
    {
      project_id: e.projectId,
      author_id: e.authorId,
      action: e.action,
      target_type: e.target?.type ?? null,
      target_id: e.target?.id ?? null,
      target_iid: e.target?.iid ?? null,
      target_title: e.target?.title ?? null,
      created_at: nowIso(),
    },
    p && {
      commit_count: p.commitCount,
      action: p.action,
      ref_type: p.refType,
      commit_from: p.commitFrom,
      commit_to: p.commitTo,
      ref: p.ref,
      commit_title: p.commitTitle,
    },
  );
  return row.id;
}

// ---- lists ----

export interface EventView {
  row: EventRow;
  author: UserRow | null;
  push: PushPayloadRow | null;
}

export interface EventFilterInput {
  action?: string;
  target_type?: TargetTypeName;
  before?: string;
  after?: string;
  sort?: 'asc' | 'desc';
}

/** Events older than this many years are neither listed nor kept. */
export const EVENT_RETENTION_YEARS = 3;

function retentionCutoff(now = nowDate()): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - EVENT_RETENTION_YEARS);
  return d.toISOString();
}

/** A `before`/`after` date: `YYYY-MM-DD`, or a timestamp whose (UTC) date counts. */
function dateParam(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (isDate(v)) return v;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw invalidParams(`${name} is invalid`);
  return new Date(t).toISOString().slice(0, 10);
}

const startOfDay = (date: string) => `${date}T00:00:00.000Z`;
const startOfNextDay = (date: string) => new Date(Date.parse(startOfDay(date)) + 86_400_000).toISOString();

/** The projects an actor may see, in the terms of the project list. */
function projectVisibility(actor: Actor | null): ProjectVisibilityScope {
  if (!actor) return { kind: 'public' };
  if (isAdmin(actor)) return { kind: 'all' };
  return { kind: 'user', levels: visibleLevelsFor(actor), access: authorizedScope(actor, ACCESS.GUEST) };
}

/**
 * Push events name commits, so they need download_code (canReadCode): the push filter of the
 * cross-project lists says the same in the list's terms — none for admins; public access (the
 * visibility levels open to the caller) or a reporter role for everyone else.
 */
function pushScope(actor: Actor | null): EventListFilter['pushes'] {
  if (isAdmin(actor)) return undefined;
  const openLevels = visibleLevelsFor(actor);
  if (!actor) return { openLevels, reporterIn: null };
  return {
    openLevels,
    reporterIn: authorizedScope(actor, ACCESS.REPORTER),
  };
}

/**
 * One page of events, as the reference's events finder: filters by action (an unknown one is
 * ignored, as there), target type, dates (`before` excludes that day and later, `after` that day
 * and earlier), newest first unless `sort=asc`.
 */
async function listWith(
  c: Container,
  actor: Actor | null,
  input: EventFilterInput,
  page: PageRequest,
  base: Omit<EventListFilter, 'createdAfter' | 'sort'>,
): Promise<PageResult<EventView>> {
  const before = dateParam('before', input.before);
  const after = dateParam('after', input.after);
  const cutoff = retentionCutoff();
  const afterDay = after !== undefined ? startOfNextDay(after) : undefined;
  const f: EventListFilter = {
    ...base,
    action: (EVENT_ACTIONS as readonly string[]).includes(input.action ?? '') ? input.action : undefined,
    targetType: input.target_type !== undefined ? TARGET_TYPES[input.target_type] : undefined,
    // `after` means strictly after that day: from the next midnight on (the bound is exclusive, so one ms earlier).
    createdAfter: afterDay !== undefined && afterDay > cutoff ? new Date(Date.parse(afterDay) - 1).toISOString() : cutoff,
    createdBefore: before !== undefined ? startOfDay(before) : undefined,
    sort: input.sort ?? 'desc',
  };
  const result = await pageEvents(c.db, { ...f, pushes: base.pushes ?? pushScope(actor) }, page);
  const authors = await eventAuthors(c.db, result.items.map((e) => e.author_id));
  const pushes = await pushPayloadsOf(c.db, result.items.filter((e) => e.action === 'pushed').map((e) => e.id));
  return {
    ...result,
    items: result.items.map((row) => ({ row, author: authors.get(row.author_id) ?? null, push: pushes.get(row.id) ?? null })),
  };
}

/** GET /events: the caller's own events, or with `scope=all` every event in the projects they have a role in. */
export async function listOwnEvents(
  c: Container,
  actor: Actor,
  input: EventFilterInput & { scope?: string },
  page: PageRequest,
): Promise<PageResult<EventView>> {
  const visibility = projectVisibility(actor);
  if (input.scope === 'all') {
    return listWith(c, actor, input, page, { visibility, inAuthorizedProjects: authorizedScope(actor, ACCESS.GUEST), withoutProject: false });
  }
  return listWith(c, actor, input, page, { visibility, authorId: actor.user.id, withoutProject: true });
}

/** GET /users/:id/events: the user's events in projects the caller may see; none for a private profile. */
export async function listUserEvents(
  c: Container,
  actor: Actor | null,
  idOrUsername: string,
  input: EventFilterInput,
  page: PageRequest,
): Promise<PageResult<EventView>> {
  const user = await findUserByIdOrUsername(c.db, idOrUsername);
  if (!user) throw notFound('User');
  if (!canReadProfile(actor, user)) return { items: [], total: 0, hasNext: false };
  const self = actor !== null && actor.user.id === user.id;
  return listWith(c, actor, input, page, { visibility: projectVisibility(actor), authorId: user.id, withoutProject: self || isAdmin(actor) });
}

/** GET /projects/:id/events: the events of a project the caller may see. */
export async function listProjectEvents(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  input: EventFilterInput,
  page: PageRequest,
): Promise<PageResult<EventView>> {
  const { row, access } = await findProject(c, actor, idOrPath);
  const pushes = canReadCode(access) ? undefined : { openLevels: [], reporterIn: null };
  return listWith(c, actor, input, page, { visibility: { kind: 'all' }, projectId: row.id, withoutProject: false, pushes });
}

// ---- action names ----

const DESIGN_ACTION_NAMES: Partial<Record<string, string>> = { created: 'uploaded', updated: 'revised', destroyed: 'deleted' };

/**
 * The reference's `action_name`: a word for what happened, which for some actions differs from
 * the action (merged → accepted, commented → commented on). A project-level `updated` event (no
 * target) says `updated`, where the reference, which records none, would fall through to `opened`.
 */
export function actionName(e: EventRow, push: PushPayloadRow | null): string {
  if (e.action === 'pushed') return push?.action === 'created' ? 'pushed new' : push?.action === 'removed' ? 'deleted' : 'pushed to';
  if (e.target_type === TARGET_TYPES.design) return DESIGN_ACTION_NAMES[e.action] ?? 'opened';
  switch (e.action) {
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'expired':
      return 'removed due to membership expiration from';
    case 'destroyed':
      return 'destroyed';
    case 'commented':
      return 'commented on';
    case 'approved':
      return 'approved';
  }
  if (e.target_type === TARGET_TYPES.wiki && (e.action === 'created' || e.action === 'updated')) return e.action;
  if (e.target_type === null && (e.action === 'created' || e.action === 'updated')) return e.action;
  return 'opened';
}

// ---- pruning ----

export const EVENTS_PRUNE_JOB = 'events_prune';
export const EVENTS_PRUNE_EVERY_MS = 86_400_000;
const PRUNE_BATCH = 1000;

/** Deletes every event older than the retention period, in batches; returns how many went. */
export async function pruneOldEvents(c: Container, now = nowDate()): Promise<number> {
  const cutoff = retentionCutoff(now);
  let total = 0;
  for (;;) {
    const n = await pruneEvents(c.db, cutoff, PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

