// Where events meet hooks. System events are recorded by the service that makes the change, in
// its transaction (`tx`); push, tag push and repository update events by the `repository_push`
// job that follows every ref change; pipeline and job events where CI moves a status.
import crypto from 'node:crypto';
import picomatch from 'picomatch';
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import type { JobRow } from '../../db/repos/ci_jobs.js';
import { deliveriesExist, projectHooksFor, systemHooksFor } from '../../db/repos/hooks.js';
import type { MemberRow } from '../../db/repos/members.js';
import { findNamespaceById, type NamespaceRow } from '../../db/repos/namespaces.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import type { DB } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { annotatedTagMessage, commitPathChanges, commitsBetween, readCommit } from '../../git/objects.js';
import { countCommits, ZERO_SHA } from '../../git/repository.js';
import { loadProtection, matchingRules } from '../protected_branches/policy.js';
import { jobPayload, pipelinePayload } from './ci_payloads.js';
import { linksOfReleases, type ReleaseRow } from '../../db/repos/releases.js';
import { enqueueDeliveries, type HookEvent } from './delivery.js';
import {
  groupEventPayload, groupMemberEventPayload, hookProject, keyEventPayload, projectEventPayload, pushPayload, releasePayload, repositoryUpdatePayload, teamEventPayload, userEventPayload,
  type GroupEventName, type GroupMemberEventName, type HookProject, type MembershipFacts, type ProjectEventName, type PushFacts, type TeamEventName,
  type UserEventName, type KeyEventName,
} from './payloads.js';

const SYSTEM_TRIGGER = 'system_hooks';
const SYSTEM_HEADER = 'System Hook';

/**
 * One system event to every system hook, in the caller's transaction. Most instances have no
 * system hook: the body is built only when one exists (null: nothing to send after all).
 */
async function systemEvent(c: Container, tx: Kysely<DB>, build: () => Promise<object | null> | object | null): Promise<void> {
  const hooks = await systemHooksFor(tx, null);
  if (hooks.length === 0) return;
  const payload = await build();
  if (payload) await enqueueDeliveries(c, tx, 'system', hooks, { trigger: SYSTEM_TRIGGER, eventHeader: SYSTEM_HEADER, payload });
}

export const projectSystemEvent = (c: Container, tx: Kysely<DB>, name: ProjectEventName, row: ProjectRow, oldFullPath?: string) =>
  systemEvent(c, tx, async () => projectEventPayload(tx, name, await hookProject(tx, row), oldFullPath));

export const userSystemEvent = (c: Container, tx: Kysely<DB>, name: UserEventName, user: UserRow, oldUsername?: string) =>
  systemEvent(c, tx, () => userEventPayload(name, user, oldUsername));

export const keySystemEvent = (c: Container, tx: Kysely<DB>, name: KeyEventName, key: { id: number; key: string; created_at: string; updated_at: string }, owner: UserRow) =>
  systemEvent(c, tx, () => keyEventPayload(name, key, owner));

export const groupSystemEvent = (c: Container, tx: Kysely<DB>, name: GroupEventName, group: NamespaceRow, old?: { path: string; fullPath: string }) =>
  systemEvent(c, tx, () => groupEventPayload(name, group, old));

/** A membership change: `user_*_team` for a project, `user_*_group` for a group. */
export async function memberSystemEvent(
  c: Container,
  tx: Kysely<DB>,
  change: 'add' | 'remove' | 'update',
  member: Pick<MemberRow, 'source_type' | 'source_id' | 'user_id' | 'access_level' | 'created_at' | 'updated_at' | 'expires_at'>,
): Promise<void> {
  await systemEvent(c, tx, async () => {
    const user = await findUserById(tx, member.user_id);
    if (!user) return null;
    const m: MembershipFacts = { accessLevel: member.access_level, createdAt: member.created_at, updatedAt: member.updated_at, expiresAt: member.expires_at };
    if (member.source_type === 'Project') {
      const project = await findProjectById(tx, member.source_id);
      const name = ({ add: 'user_add_to_team', remove: 'user_remove_from_team', update: 'user_update_for_team' } as const)[change] satisfies TeamEventName;
      return project ? teamEventPayload(name, await hookProject(tx, project), user, m) : null;
    }
    const group = await findNamespaceById(tx, member.source_id);
    const name = ({ add: 'user_add_to_group', remove: 'user_remove_from_group', update: 'user_update_for_group' } as const)[change] satisfies GroupMemberEventName;
    return group ? groupMemberEventPayload(name, group, user, m) : null;
  });
}

// ---- pushes ----

/** `push_events_branch_filter`: blank means every branch; `*` matches any run of characters. */
export function branchFilterMatches(filter: string | null, branch: string): boolean {
  if (!filter) return true;
  return picomatch.isMatch(branch, filter, { dot: true, nobrace: true, noextglob: true, noglobstar: false, bash: true });
}

// ---- releases ----

/** A release created or changed, to the project's hooks with `releases_events`, in the change's transaction. */
export async function releaseHookEvent(c: Container, tx: Kysely<DB>, release: ReleaseRow, action: 'create' | 'update', dir: string): Promise<void> {
  const hooks = await projectHooksFor(tx, release.project_id, 'releases_events');
  if (hooks.length === 0) return;
  const project = await findProjectById(tx, release.project_id);
  if (!project) return;
  const commit = release.sha ? await readCommit(dir, release.sha) : null;
  const payload = releasePayload(c, await hookProject(tx, project), { release, links: await linksOfReleases(tx, [release.id]), commit }, action);
  await enqueueDeliveries(c, tx, 'project', hooks, { trigger: 'release_hooks', eventHeader: 'Release Hook', payload });
}

/** Commits listed in a push payload at most (the reference's push data limit). */
const PUSH_COMMITS_LIMIT = 20;

interface Change {
  ref: string;
  before: string;
  after: string;
}

export async function pushFacts(dir: string, hp: HookProject, ch: Change, protectedNames: (b: string) => boolean): Promise<PushFacts> {
  const isTag = ch.ref.startsWith('refs/tags/');
  const removed = ch.after === ZERO_SHA;
  let commits: PushFacts['commits'] = [];
  let total = 0;
  let message: string | null = null;
  if (!removed) {
    const defaultRef = hp.row.default_branch ? `refs/heads/${hp.row.default_branch}` : null;
    const not = isTag ? null : ch.before !== ZERO_SHA ? ch.before : ch.ref !== defaultRef ? defaultRef : null;
    const infos = isTag ? [await readCommit(dir, ch.after)].filter((x) => x !== null) : await commitsBetween(dir, ch.after, not, PUSH_COMMITS_LIMIT);
    total = isTag ? infos.length : await countCommits(dir, ch.after, not);
    // Oldest first, as the reference lists them.
    commits = await Promise.all(infos.reverse().map(async (info) => ({ info, ...(await commitPathChanges(dir, info.id)) })));
    if (isTag) message = await annotatedTagMessage(dir, ch.ref);
  }
  const short = ch.ref.replace(/^refs\/(heads|tags)\//, '');
  return {
    ref: ch.ref,
    before: ch.before,
    after: ch.after,
    refProtected: !isTag && protectedNames(short),
    checkoutSha: removed ? null : (commits.at(-1)?.info.id ?? ch.after),
    message,
    commits,
    totalCommits: total,
  };
}

/** A stable event id per (job, event), so a re-run of the job finds what it already recorded. */
function eventUuid(jobId: number, i: number): string {
  const h = crypto.createHash('sha256').update(`repository_push:${jobId}:${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The `repository_push` job: push and tag push hooks (project and system, as their flags ask) and
 * the system hooks' repository update, recorded in one transaction; a re-run records nothing twice.
 */
export async function deliverRefChanges(c: Container, jobId: number, p: { projectId: number; userId: number; changes: Change[] }, dir: string): Promise<void> {
  const project = await findProjectById(c.db, p.projectId);
  const user = await findUserById(c.db, p.userId);
  if (!project || !user) return;
  // Reading commits costs git processes: only when some hook will get them.
  const listening = await Promise.all([
    ...(['push_events', 'tag_push_events'] as const).map((f) => projectHooksFor(c.db, project.id, f)),
    ...(['push_events', 'tag_push_events', 'repository_update_events'] as const).map((f) => systemHooksFor(c.db, f)),
  ]);
  if (listening.every((hooks) => hooks.length === 0)) return;
  const hp = await hookProject(c.db, project);
  const protection = await loadProtection(c, project.id);
  const isProtected = (b: string) => matchingRules(protection, b).length > 0;

  const events: Array<{ flag: 'push_events' | 'tag_push_events'; branch: string | null; ev: HookEvent }> = [];
  for (const ch of p.changes) {
    const tag = ch.ref.startsWith('refs/tags/');
    const facts = await pushFacts(dir, hp, ch, isProtected);
    events.push({
      flag: tag ? 'tag_push_events' : 'push_events',
      branch: tag ? null : ch.ref.replace(/^refs\/heads\//, ''),
      ev: { trigger: tag ? 'tag_push_hooks' : 'push_hooks', eventHeader: tag ? 'Tag Push Hook' : 'Push Hook', payload: pushPayload(c, tag ? 'tag_push' : 'push', hp, user, facts) },
    });
  }
  const uuids = [...events.map((_, i) => eventUuid(jobId, i)), eventUuid(jobId, events.length)];
  await inTransaction(c.db, async (tx) => {
    if (await deliveriesExist(tx, uuids)) return;
    for (const [i, e] of events.entries()) {
      const projectHooks = (await projectHooksFor(tx, project.id, e.flag)).filter((h) => e.branch === null || branchFilterMatches(h.push_events_branch_filter, e.branch));
      await enqueueDeliveries(c, tx, 'project', projectHooks, e.ev, uuids[i]);
      // System hooks get the same body without the commits (the reference never shows them there);
      // every system hook delivery says `System Hook`.
      const systemEv = { ...e.ev, eventHeader: SYSTEM_HEADER, payload: { ...e.ev.payload, commits: [] } };
      await enqueueDeliveries(c, tx, 'system', await systemHooksFor(tx, e.flag), systemEv, uuids[i]);
    }
    const updateHooks = await systemHooksFor(tx, 'repository_update_events');
    await enqueueDeliveries(c, tx, 'system', updateHooks, {
      trigger: 'repository_update_hooks',
      eventHeader: SYSTEM_HEADER,
      payload: repositoryUpdatePayload(c, hp, user, p.changes),
    }, uuids[events.length]);
  });
}

// ---- CI ----

/** A pipeline's status moved: its project's hooks that asked for pipeline events, in the transaction that moved it. */
export async function pipelineHookEvent(c: Container, tx: Kysely<DB>, projectId: number, pipelineId: number): Promise<void> {
  const hooks = await projectHooksFor(tx, projectId, 'pipeline_events');
  if (hooks.length === 0) return;
  const payload = await pipelinePayload(c, tx, pipelineId);
  if (payload) await enqueueDeliveries(c, tx, 'project', hooks, { trigger: 'pipeline_hooks', eventHeader: 'Pipeline Hook', payload });
}

/** A job's status moved: the hooks that asked for job events. */
export async function jobHookEvent(c: Container, tx: Kysely<DB>, job: JobRow): Promise<void> {
  const hooks = await projectHooksFor(tx, job.project_id, 'job_events');
  if (hooks.length === 0 || job.type !== 'build') return;
  const payload = await jobPayload(c, tx, job);
  if (payload) await enqueueDeliveries(c, tx, 'project', hooks, { trigger: 'job_hooks', eventHeader: 'Job Hook', payload });
}
