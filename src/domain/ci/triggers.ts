// Pipeline trigger tokens of a project (maintainers manage them; the token is shown in full
// only to its owner, as the reference's TriggerPresenter does) and the pipelines they start:
// POST /projects/:id/trigger/pipeline with a trigger token (source `trigger`, run as the
// token's owner) or a running job's CI_JOB_TOKEN (source `pipeline`, run as the job's user).
import type { Container } from '../context.js';
import { jobByTokenDigest } from '../../db/repos/ci_jobs.js';
import {
  deleteTrigger, findTriggerByDigest, findTriggerOf, insertTrigger, pageTriggers, updateTrigger, type CiTriggerRow,
} from '../../db/repos/ci_variables.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { apiError, notFound } from '../errors.js';
import { findProject, findProjectRow } from '../projects/find.js';
import { projectAccess } from '../projects/policy.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { digest, randomToken } from '../shared/secrets.js';
import { nowIso } from '../../shared/time.js';
import { isJobTokenShaped } from './job_token.js';
import { MESSAGES, createRequestedPipeline, parseVariables, pipelineError, type PipelineView } from './pipelines.js';
import { ciAccess, ciAccessFrom, requireCiSettings } from './policy.js';

/** Trigger tokens are recognisable by their prefix (the reference's `glptt-`). */
export const TRIGGER_TOKEN_PREFIX = 'anvptt-';

export interface TriggerView {
  row: CiTriggerRow;
  /** In full for its owner; else its first four characters after the prefix. */
  token: string;
  owner: UserRow | null;
}

async function viewOf(c: Container, actor: Actor, row: CiTriggerRow): Promise<TriggerView> {
  const token = decryptSecret(c.config.secretKey, row.encrypted_token);
  const mine = row.owner_id === actor.user.id;
  return {
    row,
    token: mine ? token : token.slice(0, TRIGGER_TOKEN_PREFIX.length + 4),
    owner: row.owner_id !== null ? ((await findUserById(c.db, row.owner_id)) ?? null) : null,
  };
}

async function managedProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectRow> {
  const found = await findProject(c, actor, idOrPath);
  await requireCiSettings(c, actor, found);
  return found.row;
}

async function managedTrigger(c: Container, actor: Actor, idOrPath: number | string, triggerId: number): Promise<CiTriggerRow> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findTriggerOf(c.db, project.id, triggerId);
  if (!row) throw notFound('Trigger');
  return row;
}

export async function listTriggers(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<TriggerView>> {
  const project = await managedProject(c, actor, idOrPath);
  const result = await pageTriggers(c.db, project.id, page);
  return { ...result, items: await Promise.all(result.items.map((r) => viewOf(c, actor, r))) };
}

export async function getTrigger(c: Container, actor: Actor, idOrPath: number | string, triggerId: number): Promise<TriggerView> {
  return viewOf(c, actor, await managedTrigger(c, actor, idOrPath, triggerId));
}

export async function createTrigger(c: Container, actor: Actor, idOrPath: number | string, description: string): Promise<TriggerView> {
  const project = await managedProject(c, actor, idOrPath);
  const token = randomToken(TRIGGER_TOKEN_PREFIX, 20);
  const now = nowIso();
  const row = await insertTrigger(c.db, {
    project_id: project.id,
    owner_id: actor.user.id,
    description,
    token_digest: digest(token),
    encrypted_token: encryptSecret(c.config.secretKey, token),
    last_used: null,
    created_at: now,
    updated_at: now,
  });
  return viewOf(c, actor, row);
}

export async function changeTrigger(c: Container, actor: Actor, idOrPath: number | string, triggerId: number, description?: string): Promise<TriggerView> {
  const row = await managedTrigger(c, actor, idOrPath, triggerId);
  const updated = description === undefined ? row : await updateTrigger(c.db, row.id, { description, updated_at: nowIso() });
  return viewOf(c, actor, updated);
}

export async function removeTrigger(c: Container, actor: Actor, idOrPath: number | string, triggerId: number): Promise<void> {
  await deleteTrigger(c.db, (await managedTrigger(c, actor, idOrPath, triggerId)).id);
}

export interface TriggerPipelineInput {
  token: string;
  ref: string;
  /** `variables[KEY]=value`: a map of strings. */
  variables?: unknown;
}

/** The reference's TRIGGER_PAYLOAD: the request's parameters but the token, as a file variable. */
const PAYLOAD_KEY = 'TRIGGER_PAYLOAD';

/**
 * POST /projects/:id/trigger/pipeline. An unknown token, or one of another project, is 404
 * (nothing tells whether the project exists); the pipeline is then created as the reference's
 * chain creates it, as the token's owner or the job's user.
 */
export async function triggerPipeline(c: Container, idOrPath: number | string, input: TriggerPipelineInput): Promise<PipelineView> {
  const raw = input.variables ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw) || Object.values(raw).some((v) => typeof v !== 'string')) {
    throw apiError('variables needs to be a map of key-valued strings', 400);
  }
  const project = await findProjectRow(c, idOrPath).catch(() => null);
  if (!project) throw notFound();
  const given = Object.entries(raw as Record<string, string>).map(([key, value]) => ({ key, value }));
  const payload = JSON.stringify({ ref: input.ref, ...(input.variables !== undefined ? { variables: raw } : {}), id: String(idOrPath) });
  const { variables, invalid } = parseVariables([...given, { key: PAYLOAD_KEY, value: payload, variable_type: 'file' }]);

  if (isJobTokenShaped(input.token)) {
    const job = await jobByTokenDigest(c.db, digest(input.token));
    if (!job || job.status !== 'running' || job.user_id === null) throw notFound();
    const user = await findUserById(c.db, job.user_id);
    if (!user) throw notFound();
    const actor = actingAs(user);
    const access = await projectAccess(c, actor, project);
    if (!access.canRead) throw notFound();
    return createRequestedPipeline(c, actor, project, ciAccessFrom(project, access), { ref: input.ref, source: 'pipeline', variables, invalid });
  }

  const trigger = await findTriggerByDigest(c.db, digest(input.token));
  if (!trigger || trigger.project_id !== project.id) throw notFound();
  const owner = trigger.owner_id !== null ? await findUserById(c.db, trigger.owner_id) : undefined;
  if (!owner) throw pipelineError(MESSAGES.noPermission);
  const actor = actingAs(owner);
  const view = await createRequestedPipeline(c, actor, project, await ciAccess(c, actor, project), { ref: input.ref, source: 'trigger', variables, invalid });
  await updateTrigger(c.db, trigger.id, { last_used: view.pipeline.created_at });
  return view;
}
