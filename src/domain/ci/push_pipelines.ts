// Push pipelines: every branch or tag that a push (or the commits, files or branch API) created or
// moved gets a pipeline with source `push` when its commit has a CI file, planned in the
// background. The queue job carries ids and shas only; it is idempotent: a job that runs again
// finds the pipelines of its first run (same project, ref, shas, created since it was queued).
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import type { DB } from '../../db/schema.js';
import { findBackgroundJob } from '../../db/repos/background_jobs.js';
import { pushPipelineSince } from '../../db/repos/ci_pipeline_lists.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import { newestMessage, resolveRevision } from '../../git/repository.js';
import type { JobInfo } from '../../queue/queue.js';
import type { Actor } from '../auth/actor.js';
import { nowIso } from '../../shared/time.js';
import { createPipelineRecords } from './state.js';
import { changedPathsBetween, findCiFile, planAndCreate, type ResolvedRef } from './pipelines.js';
import { repositoryDir } from '../repository/service.js';

export const PUSH_PIPELINE_JOB = 'ci_push_pipelines';

const ZERO = '0'.repeat(40);
const SHA_RE = /^[0-9a-f]{40}$/;
/** Ref changes per queue job, so a payload stays well under the queue's 8 KiB. */
const CHANGES_PER_JOB = 40;

export interface PushedRef {
  ref: string;
  before: string;
  after: string;
}

export interface PushPipelinePayload {
  projectId: number;
  userId: number;
  changes: PushedRef[];
}

/** `[ci skip]` / `[skip ci]` in the commit message: the reference saves a skipped pipeline. */
const SKIP_CI_RE = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

/**
 * Queues the push pipelines of these ref changes (called once per operation by
 * publishRefChanges). Removed refs and refs outside heads/tags make none.
 */
export async function enqueuePushPipelines(
  c: Container, actor: Actor, project: ProjectRow, changes: { ref: string; oldSha: string; newSha: string }[], trx?: Kysely<DB>,
): Promise<void> {
  if (project.builds_access_level === 'disabled') return;
  const wanted: PushedRef[] = changes
    .filter((ch) => ch.newSha !== ZERO && (ch.ref.startsWith('refs/heads/') || ch.ref.startsWith('refs/tags/')))
    .map((ch) => ({ ref: ch.ref, before: ch.oldSha, after: ch.newSha }));
  for (let i = 0; i < wanted.length; i += CHANGES_PER_JOB) {
    const payload: PushPipelinePayload = { projectId: project.id, userId: actor.user.id, changes: wanted.slice(i, i + CHANGES_PER_JOB) };
    await c.queue.enqueue(PUSH_PIPELINE_JOB, payload, { trx });
  }
}

function checkPayload(p: unknown): PushPipelinePayload {
  const v = p as Partial<PushPipelinePayload> | null;
  const ok =
    !!v &&
    Number.isInteger(v.projectId) &&
    Number.isInteger(v.userId) &&
    Array.isArray(v.changes) &&
    v.changes.every((ch) => typeof ch?.ref === 'string' && SHA_RE.test(ch.before) && SHA_RE.test(ch.after));
  if (!ok) throw new Error(`invalid ${PUSH_PIPELINE_JOB} payload`);
  return v as PushPipelinePayload;
}

/** The commit a pushed sha names (an annotated tag is peeled); null when it is gone. */
async function commitOf(c: Container, project: ProjectRow, sha: string): Promise<string | null> {
  return resolveRevision(repositoryDir(c, project.id), sha);
}

/** Creates the pipeline of one pushed ref, unless it exists already (a re-run) or there is no CI file. */
async function pipelineForPush(c: Container, project: ProjectRow, userId: number, ch: PushedRef, since: string): Promise<void> {
  const tag = ch.ref.startsWith('refs/tags/');
  const name = ch.ref.replace(/^refs\/(heads|tags)\//, '');
  const sha = await commitOf(c, project, ch.after);
  if (!sha) return;
  if (await pushPipelineSince(c.db, project.id, name, sha, ch.before, since)) return;
  const file = await findCiFile(c, project, sha);
  if (!file) return;
  const user = (await findUserById(c.db, userId)) ?? null;
  const ref: ResolvedRef = { ref: name, tag, sha };
  const message = (await newestMessage(repositoryDir(c, project.id), sha)) ?? '';
  if (SKIP_CI_RE.test(message)) {
    // A skipped pipeline without jobs, as the reference records a `[ci skip]` push.
    await createPipelineRecords(c, {
      project, ref: name, sha, beforeSha: ch.before, tag, source: 'push', userId: user?.id ?? null,
      commit: null, variables: [], plan: { stages: [], variables: {}, jobs: [] },
    });
    return;
  }
  await planAndCreate(c, {
    project,
    ref,
    beforeSha: ch.before,
    source: 'push',
    user,
    variables: [],
    changedPaths: await changedPathsBetween(c, project, ch.before, sha),
    config: file,
    saveOnErrors: true,
  });
}

export async function runPushPipelines(c: Container, payload: unknown, job: Pick<JobInfo, 'id'>): Promise<void> {
  const p = checkPayload(payload);
  const project = await findProjectById(c.db, p.projectId);
  if (!project || project.builds_access_level === 'disabled' || project.archived === 1) return;
  const since = (await findBackgroundJob(c.db, job.id))?.created_at ?? nowIso();
  for (const ch of p.changes) await pipelineForPush(c, project, p.userId, ch, since);
}

