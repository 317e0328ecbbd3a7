// THE place where ref changes are published, whatever moved the refs (git push, commits API, files
// API, branch API). Called once per operation AFTER the refs moved, with every ref it changed:
// - push events with push_data, one per ref as the reference records them; when more refs of one
//   kind (branch/tag) and action than `push_event_activities_limit` change at once, one bulk
//   event for them instead;
// - the project's last_activity_at;
// - a refresh of the cached repository figures (statistics, languages);
// - the announcement to the hook deliverer (`announceRefChanges`).
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { touchProjectActivity } from '../../db/repos/repository_statistics.js';
import { countCommits, newestMessage, resolveRevision } from '../../git/repository.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { enqueuePushPipelines } from '../ci/push_pipelines.js';
import { recordEvent, type PushData } from '../events/service.js';
import { getSettings } from '../settings/service.js';
import { nowIso } from '../shared/time.js';
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

export async function publishRefChanges(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<void> {
  if (changes.length === 0) return;
  await recordPushEvents(c, actor, project, changes);
  await touchProjectActivity(c.db, project.id, nowIso());
  await scheduleRepositoryRefresh(c, project.id);
  await announceRefChanges(c, actor, project, changes);
  await enqueuePushPipelines(c, actor, project, changes);
}

const isTag = (ref: string) => ref.startsWith('refs/tags/');
const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');
const actionOf = (ch: PublishedRefChange): PushData['action'] =>
  ch.oldSha === ZERO_SHA ? 'created' : ch.newSha === ZERO_SHA ? 'removed' : 'pushed';

async function recordPushEvents(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<void> {
  const limit = Number((await getSettings(c)).push_event_activities_limit);
  const groups = new Map<string, PublishedRefChange[]>();
  for (const ch of changes) {
    const key = `${isTag(ch.ref) ? 'tag' : 'branch'}:${actionOf(ch)}`;
    const group = groups.get(key);
    if (group) group.push(ch);
    else groups.set(key, [ch]);
  }
  for (const [key, group] of groups) {
    const [refType, action] = key.split(':') as [PushData['refType'], PushData['action']];
    if (group.length > limit) {
      // The reference's bulk push event: no ref, no commits, one row for the lot.
      await recordEvent(c, {
        action: 'pushed',
        authorId: actor.user.id,
        projectId: project.id,
        push: { commitCount: 0, action, refType, commitFrom: null, commitTo: null, ref: null, commitTitle: null },
      });
      continue;
    }
    for (const ch of group) {
      const { count, title } = await commitsOf(c, project, ch);
      await recordEvent(c, {
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
export async function announceRefChanges(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<void> {
  const all: AnnouncedChange[] = changes.map((ch) => ({ ref: ch.ref, before: ch.oldSha, after: ch.newSha }));
  for (let i = 0; i < all.length; i += CHANGES_PER_JOB) {
    const payload: RepositoryPushPayload = { projectId: project.id, userId: actor.user.id, changes: all.slice(i, i + CHANGES_PER_JOB) };
    await c.queue.enqueue(REPOSITORY_PUSH_JOB, payload);
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

