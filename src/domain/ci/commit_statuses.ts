// Commit statuses (the reference's API::CommitStatuses): what other systems report on a commit
// joins the commit's pipeline as a job of stage `external` (a new pipeline, source `external`,
// when the commit has none), and the pipeline's status follows; the list shows every job of the
// commit's pipelines, builds and bridges included.
import type { Container } from '../context.js';
import { commitStatusFields, openExternalStatus, pageCommitStatuses, saveCommitStatusFields, type CommitStatusRow } from '../../db/repos/commit_statuses.js';
import { newestPipelineOfSha, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findUsersByIds, type UserRow } from '../../db/repos/users.js';
import { readCommit } from '../../git/objects.js';
import { branchesContaining } from '../../git/refs.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound, validation } from '../errors.js';
import { findProject } from '../projects/find.js';
import { repositoryDir } from '../repository/service.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { withMillis } from '../../shared/time.js';
import { canUpdateRef, requireCiRead, requireCiWrite } from './policy.js';
import { insertExternalPipeline, setExternalStatus, type ExternalState } from './state.js';

export interface CommitStatusView {
  row: CommitStatusRow;
  author: UserRow | null;
}

export interface ListStatusesInput {
  ref?: string;
  stage?: string;
  name?: string;
  all?: boolean;
}

/**
 * GET /projects/:id/repository/commits/:sha/statuses (read_commit_status: who may read the
 * project's jobs). `sha` must name a commit; the statuses are those of pipelines at exactly it.
 */
export async function listCommitStatuses(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  sha: string,
  input: ListStatusesInput,
  page: PageRequest,
): Promise<PageResult<CommitStatusView>> {
  const found = await findProject(c, actor, idOrPath);
  await requireCiRead(c, actor, found);
  if (!(await readCommit(repositoryDir(c, found.row.id), sha))) throw notFound('Commit');
  const result = await pageCommitStatuses(c.db, found.row.id, sha, { ref: input.ref, stage: input.stage, name: input.name, all: input.all === true }, page);
  return { ...result, items: await withAuthors(c, result.items) };
}

async function withAuthors(c: Container, rows: CommitStatusRow[]): Promise<CommitStatusView[]> {
  const ids = [...new Set(rows.map((r) => r.user_id).filter((id): id is number => id !== null))];
  const users = new Map((await findUsersByIds(c.db, ids)).map((u) => [u.id, u]));
  return rows.map((row) => ({ row, author: row.user_id === null ? null : (users.get(row.user_id) ?? null) }));
}

export interface PostStatusInput {
  state: ExternalState;
  ref?: string;
  name?: string;
  context?: string;
  target_url?: string;
  description?: string;
  coverage?: number;
  pipeline_id?: number;
}

/** The reference's GenericCommitStatus validation of target_url (an http(s) address, at most 255 characters). */
function targetUrlErrors(url: string | undefined): string[] {
  if (url === undefined || url === '') return [];
  if (url.length > 255) return ['is too long (maximum is 255 characters)'];
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? [] : ['is blocked: Only allowed schemes are http, https'];
  } catch {
    return ['is blocked: URI is invalid'];
  }
}

/**
 * POST /projects/:id/statuses/:sha (create_commit_status: developers, then update_pipeline on the
 * pipeline's ref). The pipeline is the commit's newest (of `ref`, or the one `pipeline_id`
 * names); the ref is the one given, else that pipeline's, else the first branch that contains
 * the commit (404 `References for commit` when none does).
 */
export async function postCommitStatus(c: Container, actor: Actor, idOrPath: number | string, sha: string, input: PostStatusInput): Promise<CommitStatusView> {
  const found = await findProject(c, actor, idOrPath);
  const access = await requireCiWrite(c, actor, found);
  const project = found.row;
  const dir = repositoryDir(c, project.id);
  const commit = await readCommit(dir, sha);
  if (!commit) throw notFound('Commit');

  let pipeline: PipelineRow | undefined = await newestPipelineOfSha(c.db, project.id, commit.id, { ref: input.ref, id: input.pipeline_id });
  const ref = input.ref ?? pipeline?.ref ?? (await branchesContaining(dir, commit.id))[0];
  if (!ref) throw notFound('References for commit');
  const name = input.name ?? input.context ?? 'default';
  const urlErrors = targetUrlErrors(input.target_url);

  pipeline ??= await insertExternalPipeline(c, {
    project,
    ref,
    sha: commit.id,
    tag: false,
    userId: actor.user.id,
    commit: { message: commit.message, authorName: commit.authorName, authorEmail: commit.authorEmail, createdAt: withMillis(commit.committedDate) },
  });
  if (!(await canUpdateRef(c, actor, project, access, pipeline.ref, pipeline.tag === 1))) throw forbidden();
  if (urlErrors.length) throw validation({ target_url: urlErrors });

  const open = await openExternalStatus(c.db, pipeline.id, name, ref, actor.user.id);
  const job = await setExternalStatus(c, pipeline, open, { name, ref, tag: pipeline.tag === 1, userId: actor.user.id, state: input.state, coverage: input.coverage });
  // The open status keeps what it had unless the request says otherwise (the reference assigns only the given ones).
  const given = { target_url: input.target_url, description: input.description };
  const keep = open ? await currentFields(c, open.id) : { target_url: null, description: null };
  const fields = { target_url: given.target_url ?? keep.target_url, description: given.description ?? keep.description };
  await saveCommitStatusFields(c.db, job.id, fields);
  const [view] = await withAuthors(c, [{ ...job, ...fields, sha: pipeline.sha }]);
  return view!;
}

async function currentFields(c: Container, jobId: number): Promise<{ target_url: string | null; description: string | null }> {
  return (await commitStatusFields(c.db, jobId)) ?? { target_url: null, description: null };
}
