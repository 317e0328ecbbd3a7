// THE place where ref changes are published, whatever moved the refs (git push, commits API, files
// API, branch and tag APIs). Published once per operation, with every ref it changed:
// - push events with push_data, one per ref as the reference records them; when more refs of one
//   kind (branch/tag) and action than `push_event_activities_limit` change at once, one bulk
//   event for them instead;
// - the project's last_activity_at;
// - a refresh of the cached repository figures (statistics, languages);
// - the announcement to the hook deliverer (`announceRefChanges`), the push pipelines and the
//   refresh of the merge requests from and into the branches that moved.
//
// Exactly once, even when the process dies between moving the refs and publishing them: BEFORE the
// refs move, the change is written down as an intent (`recordRefChangeIntent`) with a recovery job
// queued a few seconds ahead. The mover then publishes the changes that really happened, in ONE
// transaction that claims the intent, writes the events, queues the follow-up jobs and drops the
// recovery job; or, when nothing moved, discards the intent. If the mover died, the recovery job
// compares the intent with the refs as they are now and publishes what happened. The claim is a
// conditional update of the intent, so of two publishers exactly one wins.
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import type { DB } from '../../db/schema.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import {
  claimRefChangeIntent, discardRefChangeIntent, findRefChangeIntent, insertRefChangeIntent, laterRefChangeIntents, pruneRefChangeIntents, setRefChangeIntentJob,
} from '../../db/repos/ref_change_intents.js';
import { touchProjectActivity } from '../../db/repos/repository_statistics.js';
import { findUserById } from '../../db/repos/users.js';
import { inTransaction } from '../../db/transaction.js';
import { countCommits, newestMessage, resolveRevision } from '../../git/repository.js';
import { ZERO_SHA } from '../../git/repository.js';
import { refTargets } from '../../git/smart_http.js';
import { now as clockNow } from '../../shared/clock.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { enqueuePushPipelines } from '../ci/push_pipelines.js';
import { recordEvent, type NewEvent, type PushData } from '../events/service.js';
import { enqueueMergeRequestRefresh } from '../merge_requests/refresh.js';
import { getSettings } from '../settings/service.js';
import { nowIso } from '../../shared/time.js';
import type { RefUpdate } from './protection.js';
import { repositoryDir } from './service.js';
import { scheduleRepositoryRefresh } from './statistics.js';

/** A ref that moved. `force` and `changedPaths` are not needed here (RefUpdate is accepted as is). */
export interface PublishedRefChange extends Omit<RefUpdate, 'force'> {
  force?: boolean;
  /** When the caller already knows them; otherwise computed from the repository as the reference does. */
  commitCount?: number;
  commitTitle?: string | null;
}

/** The job that tells the hook deliverer about a push. Payload: {projectId, userId, changes: [{ref, before, after}]}. */
export const REPOSITORY_PUSH_JOB = 'repository_push';

export interface AnnouncedChange {
  ref: string;
  before: string;
  after: string;
}

export interface RepositoryPushPayload {
  projectId: number;
  userId: number;
  changes: AnnouncedChange[];
}

/** Changes per announcement job, so a payload stays well under the queue's 8 KiB limit. */
const CHANGES_PER_JOB = 40;

/** The job that publishes an intent's changes when the process that moved the refs did not. Payload: {intentId}. */
export const REF_CHANGE_RECOVERY_JOB = 'ref_change_recovery';
/** The recurring removal of finished intents. */
export const REF_CHANGE_INTENTS_PRUNE_JOB = 'ref_change_intents_prune';
export const REF_CHANGE_INTENTS_PRUNE_EVERY_MS = 3600_000;
/** The recovery job looks this long after the intent (the mover normally publishes long before, and drops the job). */
const RECOVERY_DELAY_MS = 5_000;
/** A ref still at its old value this long after the intent never moved: its process died first. */
const MOVE_GRACE_MS = 60_000;
/** Finished intents are kept this long (a later intent on a ref shows that an earlier one happened). */
const INTENT_RETENTION_MS = 24 * 3600_000;
/** Later intents read to tell whether a ref moved on after an intent's change. */
const LATER_INTENTS = 1000;

/** A change as an intent stores it. */
interface StoredChange {
  ref: string;
  before: string;
  after: string;
  commitCount?: number;
  commitTitle?: string | null;
}

const stored = (ch: PublishedRefChange): StoredChange => ({
  ref: ch.ref, before: ch.oldSha, after: ch.newSha,
  ...(ch.commitCount !== undefined ? { commitCount: ch.commitCount, commitTitle: ch.commitTitle ?? null } : {}),
});
const published = (ch: StoredChange): PublishedRefChange => ({
  ref: ch.ref, oldSha: ch.before, newSha: ch.after, force: false,
  ...(ch.commitCount !== undefined ? { commitCount: ch.commitCount, commitTitle: ch.commitTitle ?? null } : {}),
});
const parseChanges = (json: string): StoredChange[] => {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? (v as StoredChange[]).filter((ch) => typeof ch?.ref === 'string' && typeof ch.before === 'string' && typeof ch.after === 'string') : [];
};

/**
 * Writes down, durably, the ref changes about to be made (before any ref moves), with the job
 * that publishes them should this process die before it does. Returns the intent's id.
 */
export async function recordRefChangeIntent(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<number> {
  return inTransaction(c.db, async (tx) => {
    const id = await insertRefChangeIntent(tx, { project_id: project.id, user_id: actor.user.id, changes: JSON.stringify(changes.map(stored)), now: nowIso() });
    const jobId = await c.queue.enqueue(REF_CHANGE_RECOVERY_JOB, { intentId: id }, { trx: tx, runAt: new Date(clockNow() + RECOVERY_DELAY_MS), maxAttempts: 10 });
    await setRefChangeIntentJob(tx, id, jobId);
    return id;
  });
}

/** No ref moved after all (a lost race, git refused them): the intent is void and its job goes. */
export async function dropRefChangeIntent(c: Container, intentId: number): Promise<void> {
  const intent = await findRefChangeIntent(c.db, intentId);
  if (intent && (await discardRefChangeIntent(c.db, intentId, nowIso())) && intent.job_id !== null) await c.queue.cancelQueued(intent.job_id);
}

/**
 * Moves refs the durable way: the intent, then `move` (true when the refs moved, false when they
 * did not), then the publication. A `move` that throws leaves the intent to the recovery job,
 * which finds out from the refs whether they moved.
 */
export async function moveRefs(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[], move: () => Promise<boolean>): Promise<boolean> {
  const intentId = await recordRefChangeIntent(c, actor, project, changes);
  if (!(await move())) {
    await dropRefChangeIntent(c, intentId);
    return false;
  }
  await publishRefChanges(c, actor, project, changes, intentId);
  return true;
}

/**
 * Publishes ref changes that happened (called AFTER the refs moved). With an intent, the
 * publication claims it in the same transaction: an intent is published once, whoever comes second
 * (the mover or the recovery job) publishes nothing.
 */
export async function publishRefChanges(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[], intentId?: number): Promise<void> {
  // Test only: die between the ref update and its publication (see src/config.ts).
  if (c.config.testCrashBeforeRefPublish) process.kill(process.pid, 'SIGKILL');
  if (changes.length === 0) {
    if (intentId !== undefined) await dropRefChangeIntent(c, intentId);
    return;
  }
  // git and settings are read first: the transaction only writes.
  const events = await pushEvents(c, actor, project, changes);
  const done = await inTransaction(c.db, async (tx) => {
    let jobId: number | null = null;
    if (intentId !== undefined) {
      const claim = await claimRefChangeIntent(tx, intentId, JSON.stringify(changes.map(stored)), nowIso());
      if (!claim) return false;
      jobId = claim.jobId;
    }
    for (const e of events) await recordEvent({ ...c, db: tx }, e);
    await touchProjectActivity(tx, project.id, nowIso());
    await scheduleRepositoryRefresh({ ...c, db: tx }, project.id, tx);
    await announceRefChanges(c, actor, project, changes, tx);
    await enqueuePushPipelines(c, actor, project, changes, tx);
    await enqueueMergeRequestRefresh(c, actor.user.id, project, changes, tx);
    if (jobId !== null) await c.queue.cancelQueued(jobId, tx);
    return true;
  });
  // the jobs were queued in the transaction: the workers start on them now
  if (done) c.queue.wake();
}

/**
 * The recovery job: the intent's process did not publish (it died, or is very late). A change
 * happened when its ref is at the new value now, or moved on from it (a later intent on the ref
 * starts where this one ended); it did not when the ref is still at the old value once the grace
 * period is over. Safe to run twice, and beside the mover: the claim decides.
 */
export async function recoverRefChanges(c: Container, payload: { intentId: number }): Promise<void> {
  const intent = await findRefChangeIntent(c.db, Number(payload.intentId));
  if (!intent || intent.state !== 'pending') return;
  const project = await findProjectById(c.db, intent.project_id);
  const user = await findUserById(c.db, intent.user_id);
  if (!project || !user) return void (await discardRefChangeIntent(c.db, intent.id, nowIso()));
  const changes = parseChanges(intent.changes);
  const targets = await refTargets(repositoryDir(c, project.id));
  const current = (ref: string) => targets.get(ref) ?? ZERO_SHA;
  const later = (await laterRefChangeIntents(c.db, project.id, intent.id, LATER_INTENTS)).flatMap((r) => parseChanges(r.changes));
  const moved = (ch: StoredChange) =>
    current(ch.ref) === ch.after || (current(ch.ref) !== ch.before && later.some((l) => l.ref === ch.ref && l.before === ch.after));
  const created = Date.parse(intent.created_at);
  if (changes.some((ch) => !moved(ch) && current(ch.ref) === ch.before) && clockNow() - created < MOVE_GRACE_MS) {
    // a ref has not moved yet: its process may still be at it; look again once that is surely over
    const jobId = await c.queue.enqueue(REF_CHANGE_RECOVERY_JOB, { intentId: intent.id }, { runAt: new Date(created + MOVE_GRACE_MS), maxAttempts: 10 });
    await setRefChangeIntentJob(c.db, intent.id, jobId);
    return;
  }
  const happened = changes.filter(moved);
  if (happened.length === 0) return void (await discardRefChangeIntent(c.db, intent.id, nowIso()));
  c.log.warn({ projectId: project.id, intentId: intent.id, refs: happened.length }, 'publishing ref changes that their process did not publish');
  await publishRefChanges(c, actingAs(user), project, happened.map(published), intent.id);
}

/** The recurring job: finished intents older than a day go. */
export async function pruneRefChangeIntentsNow(c: Container): Promise<void> {
  const before = new Date(clockNow() - INTENT_RETENTION_MS).toISOString();
  while ((await pruneRefChangeIntents(c.db, before, 1000)) === 1000) { /* next batch */ }
}


const isTag = (ref: string) => ref.startsWith('refs/tags/');
const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');
const actionOf = (ch: PublishedRefChange): PushData['action'] =>
  ch.oldSha === ZERO_SHA ? 'created' : ch.newSha === ZERO_SHA ? 'removed' : 'pushed';

/** The push events of these changes, computed (git reads) before the publishing transaction. */
async function pushEvents(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<NewEvent[]> {
  const limit = Number((await getSettings(c)).push_event_activities_limit);
  const groups = new Map<string, PublishedRefChange[]>();
  for (const ch of changes) {
    const key = `${isTag(ch.ref) ? 'tag' : 'branch'}:${actionOf(ch)}`;
    const group = groups.get(key);
    if (group) group.push(ch);
    else groups.set(key, [ch]);
  }
  const out: NewEvent[] = [];
  for (const [key, group] of groups) {
    const [refType, action] = key.split(':') as [PushData['refType'], PushData['action']];
    if (group.length > limit) {
      // The reference's bulk push event: no ref, no commits, one row for the lot.
      out.push({
        action: 'pushed',
        authorId: actor.user.id,
        projectId: project.id,
        push: { commitCount: 0, action, refType, commitFrom: null, commitTo: null, ref: null, commitTitle: null },
      });
      continue;
    }
    for (const ch of group) {
      const { count, title } = await commitsOf(c, project, ch);
      out.push({
        action: 'pushed',
        authorId: actor.user.id,
        projectId: project.id,
        push: {
          commitCount: count,
          action,
          refType,
          commitFrom: ch.oldSha === ZERO_SHA ? null : ch.oldSha,
          commitTo: ch.newSha === ZERO_SHA ? null : ch.newSha,
          ref: shortRef(ch.ref),
          commitTitle: title,
        },
      });
    }
  }
  return out;
}

/**
 * commit_count and commit_title as the reference derives them: an update counts old..new; a new
 * default branch counts all its commits; another new branch the commits the default branch lacks;
 * a tag its one commit; a removal none. The title is the first line (≤ 70 characters) of the newest
 * of those commits.
 */
async function commitsOf(c: Container, project: ProjectRow, ch: PublishedRefChange): Promise<{ count: number; title: string | null }> {
  if (ch.commitCount !== undefined) return { count: ch.commitCount, title: ch.commitTitle ?? null };
  if (ch.newSha === ZERO_SHA) return { count: 0, title: null };
  const dir = repositoryDir(c, project.id);
  const rev = isTag(ch.ref) ? `${ch.newSha}^{commit}` : ch.newSha;
  let not: string | null = null;
  if (isTag(ch.ref)) not = null;
  else if (ch.oldSha !== ZERO_SHA) not = ch.oldSha;
  else {
    const defaultRef = `refs/heads/${project.default_branch ?? 'main'}`;
    if (ch.ref !== defaultRef && (await resolveRevision(dir, defaultRef))) not = defaultRef;
  }
  const count = await countCommits(dir, rev, not, isTag(ch.ref) ? 1 : undefined);
  if (count === 0) return { count, title: null };
  const message = await newestMessage(dir, rev, not);
  return { count, title: message === null ? null : commitTitle(message) };
}

/** First line, trimmed, cut to 70 characters with an ellipsis (Rails' truncate). */
export function commitTitle(message: string): string {
  const nl = message.indexOf('\n');
  const line = (nl >= 0 ? message.slice(0, nl) : message).trim();
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}

/**
 * Tells the hook deliverer that refs moved: one `repository_push` job per push (split into several
 * when a push moves many refs); the job records the hook deliveries (src/domain/hooks/events.ts).
 */
export async function announceRefChanges(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[], trx?: Kysely<DB>): Promise<void> {
  const all: AnnouncedChange[] = changes.map((ch) => ({ ref: ch.ref, before: ch.oldSha, after: ch.newSha }));
  for (let i = 0; i < all.length; i += CHANGES_PER_JOB) {
    const payload: RepositoryPushPayload = { projectId: project.id, userId: actor.user.id, changes: all.slice(i, i + CHANGES_PER_JOB) };
    await c.queue.enqueue(REPOSITORY_PUSH_JOB, payload, { trx });
  }
}

const SHA_RE = /^[0-9a-f]{40}$/;

/** A payload the hooks issue can rely on; throws on anything else. */
export function checkRepositoryPushPayload(p: unknown): RepositoryPushPayload {
  const v = p as Partial<RepositoryPushPayload> | null;
  const ok =
    v !== null &&
    typeof v === 'object' &&
    Number.isInteger(v.projectId) &&
    Number.isInteger(v.userId) &&
    Array.isArray(v.changes) &&
    v.changes.length > 0 &&
    v.changes.every((ch) => typeof ch?.ref === 'string' && ch.ref.startsWith('refs/') && SHA_RE.test(ch.before) && SHA_RE.test(ch.after));
  if (!ok) throw new Error(`invalid ${REPOSITORY_PUSH_JOB} payload`);
  return v as RepositoryPushPayload;
}

