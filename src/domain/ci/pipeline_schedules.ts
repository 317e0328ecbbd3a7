// Pipeline schedules: list, get, create, update, delete, take ownership, play, their pipelines and
// variables (the reference's Ci::PipelineSchedule, its policy and services); and the runs.
//
// Runs: every node with queue workers ticks at each minute of the worker's cron
// (ANVIL_PIPELINE_SCHEDULE_WORKER_CRON, default every minute). A tick claims each due schedule
// with one conditional update (next_run_at moves from the due time to the next one only if it is
// still the due time), and queues the run in the same transaction: of several nodes on one
// database exactly one wins a due time. The run creates the pipeline as the schedule's owner
// (source `schedule`, the schedule's variables as pipeline variables), as the reference's
// RunPipelineScheduleWorker does: an owner who may no longer create pipelines on the ref (left
// the project, lost the role, a protected ref) gets no pipeline, the refusal is logged, and the
// schedule still moves on to its next time.
import type { Container } from '../context.js';
import {
  claimDueRun, deleteSchedule, deleteScheduleVariable, dueSchedules, findProjectSchedule, findSchedule, findScheduleVariable,
  insertSchedule, insertScheduleVariable, lastPipelineIdOf, pageSchedules, scheduleVariableRows, schedulePipelineSince,
  updateSchedule, updateScheduleVariable, type ScheduleRow, type ScheduleVariableRow,
} from '../../db/repos/ci_pipeline_schedules.js';
import { findBackgroundJob } from '../../db/repos/background_jobs.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { clockTimer, nowDate } from '../../shared/clock.js';
import type { JobInfo } from '../../queue/queue.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { apiError, forbidden, notFound, validation, type ValidationMessages } from '../errors.js';
import { findProject, type FoundProject } from '../projects/find.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { nowIso } from '../../shared/time.js';
import { cronMatches, nextCronTime, parseCron, validTimeZone } from './cron.js';
import { listPipelines, planAndCreate, resolveRef, type ListPipelinesInput, type PipelineListItem } from './pipelines.js';
import { ACCESS } from '../members/policy.js';
import { canUpdateRef, ciAccess, type CiAccess } from './policy.js';

export const PIPELINE_SCHEDULE_RUN_JOB = 'ci_pipeline_schedule_run';
/** Due schedules one tick claims at most (the rest are claimed by the next tick). */
const TICK_BATCH = 500;

export interface ScheduleView {
  project: ProjectRow;
  row: ScheduleRow;
  owner: UserRow | null;
}

export interface ScheduleDetailsView extends ScheduleView {
  lastPipeline: PipelineRow | null;
  /** null when the actor may not read them (read_pipeline_schedule_variables): the field is left out. */
  variables: ScheduleVariable[] | null;
}

export interface ScheduleVariable {
  key: string;
  value: string;
  variable_type: string;
}

// ---- next run ----

/**
 * next_run_at as the reference's CalculateNextRunService has it without plan limits: the schedule's
 * next cron time after now when the worker runs at that minute, else the worker's first run after it.
 */
export function nextRunAt(c: Container, cron: string, timezone: string, from: Date = nowDate()): string | null {
  const schedule = parseCron(cron);
  const worker = parseCron(c.config.pipelineScheduleWorkerCron);
  if (!schedule || !validTimeZone(timezone)) return null;
  const ideal = nextCronTime(schedule, timezone, from);
  if (!ideal) return null;
  if (!worker || cronMatches(worker, 'UTC', ideal)) return ideal.toISOString();
  return nextCronTime(worker, 'UTC', ideal)?.toISOString() ?? null;
}

// ---- abilities ----

interface ScheduleAccess {
  found: FoundProject;
  a: CiAccess;
}

/**
 * read_pipeline_schedule: reporters and above where the CI feature is on for them (404 for a project
 * the actor cannot see). Not public: `public_jobs` lets others read jobs, not schedules.
 */
async function readable(c: Container, actor: Actor, idOrPath: number | string): Promise<ScheduleAccess> {
  const found = await findProject(c, actor, idOrPath);
  const a = await ciAccess(c, actor, found);
  if (!a.read || !(a.admin || a.level >= ACCESS.REPORTER)) throw forbidden();
  return { found, a };
}

async function scheduleIn(c: Container, project: ProjectRow, id: number): Promise<ScheduleRow> {
  const row = await findProjectSchedule(c.db, project.id, id);
  if (!row) throw notFound('Pipeline Schedule');
  return row;
}

const ownedBy = (row: ScheduleRow, actor: Actor) => row.owner_id === actor.user.id;
/** admin_pipeline_schedule: maintainers (admin_pipeline), or the owner who may still update builds. */
const canAdminSchedule = (a: CiAccess, row: ScheduleRow, actor: Actor) => a.manage || (a.update && ownedBy(row, actor));
/**
 * read_pipeline_schedule_variables: as admin_pipeline_schedule. Others who may read the schedule
 * get it without its variables, as the reference's PipelineScheduleDetails leaves them out.
 */
const canReadScheduleVariables = canAdminSchedule;
/** update_pipeline_schedule: administrators, or the owner who may still update builds. */
const canUpdateSchedule = (a: CiAccess, row: ScheduleRow, actor: Actor) => (a.update && a.admin) || (a.update && ownedBy(row, actor));

// ---- views ----

async function viewsOf(c: Container, project: ProjectRow, rows: ScheduleRow[]): Promise<ScheduleView[]> {
  const owners = new Map<number, UserRow>();
  for (const id of new Set(rows.flatMap((r) => (r.owner_id !== null ? [r.owner_id] : [])))) {
    const u = await findUserById(c.db, id);
    if (u) owners.set(id, u);
  }
  return rows.map((row) => ({ project, row, owner: row.owner_id !== null ? (owners.get(row.owner_id) ?? null) : null }));
}

const variableOf = (c: Container, r: ScheduleVariableRow): ScheduleVariable => ({
  key: r.key,
  value: decryptSecret(c.config.secretKey, r.encrypted_value),
  variable_type: r.variable_type,
});

/** The schedule as `actor` may see it: its variables only for those who may read them. */
async function detailsOf(c: Container, { found, a }: ScheduleAccess, actor: Actor, row: ScheduleRow): Promise<ScheduleDetailsView> {
  const [view] = await viewsOf(c, found.row, [row]);
  const lastId = await lastPipelineIdOf(c.db, row.id);
  return {
    ...view,
    lastPipeline: lastId !== null ? ((await findPipeline(c.db, lastId)) ?? null) : null,
    variables: canReadScheduleVariables(a, row, actor) ? (await scheduleVariableRows(c.db, [row.id])).map((v) => variableOf(c, v)) : null,
  };
}

// ---- operations ----

export async function listSchedules(c: Container, actor: Actor, idOrPath: number | string, scope: 'active' | 'inactive' | undefined, page: PageRequest): Promise<PageResult<ScheduleView>> {
  const { found } = await readable(c, actor, idOrPath);
  const result = await pageSchedules(c.db, found.row.id, scope === undefined ? undefined : scope === 'active', page);
  return { ...result, items: await viewsOf(c, found.row, result.items) };
}

export async function getSchedule(c: Container, actor: Actor, idOrPath: number | string, id: number): Promise<ScheduleDetailsView> {
  const access = await readable(c, actor, idOrPath);
  return detailsOf(c, access, actor, await scheduleIn(c, access.found.row, id));
}

/** GET …/pipeline_schedules/:id/pipelines: the schedule's pipelines, oldest first unless `sort` says otherwise. */
export async function schedulePipelines(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  id: number,
  input: ListPipelinesInput,
  page: PageRequest,
): Promise<PageResult<PipelineListItem>> {
  const { found } = await readable(c, actor, idOrPath);
  const row = await scheduleIn(c, found.row, id);
  return listPipelines(c, actor, found.row.id, { ...input, sort: input.sort ?? 'asc', pipeline_schedule_id: row.id }, page);
}

export interface ScheduleInput {
  description?: string;
  ref?: string;
  cron?: string;
  cron_timezone?: string;
  active?: boolean;
}

/** The model's validations, in the reference's order (cron, cron_timezone, ref, description). */
function validate(v: { description: string; ref: string; cron: string; cron_timezone: string }): void {
  const errors: ValidationMessages = {};
  const add = (k: string, m: string) => ((errors[k] as string[] | undefined) ?? (errors[k] = [])).push(m);
  if (v.cron.trim() === '') add('cron', "can't be blank");
  if (!parseCron(v.cron)) add('cron', ' is invalid syntax');
  if (v.cron_timezone === '') add('cron_timezone', "can't be blank");
  if (!validTimeZone(v.cron_timezone)) add('cron_timezone', ' is invalid syntax');
  if (v.ref.trim() === '') add('ref', "can't be blank");
  if (v.description.trim() === '') add('description', "can't be blank");
  if (Object.keys(errors).length) throw validation(errors);
}

/** POST /projects/:id/pipeline_schedules: create_pipeline_schedule (developers and above); the creator owns it. */
export async function createSchedule(c: Container, actor: Actor, idOrPath: number | string, input: Required<Pick<ScheduleInput, 'description' | 'ref' | 'cron'>> & ScheduleInput): Promise<ScheduleDetailsView> {
  const access = await readable(c, actor, idOrPath);
  const { found, a } = access;
  if (!a.update) throw forbidden();
  const v = { description: input.description, ref: input.ref, cron: input.cron.trim(), cron_timezone: input.cron_timezone ?? 'UTC' };
  validate(v);
  const now = nowIso();
  const row = await insertSchedule(c.db, {
    project_id: found.row.id,
    owner_id: actor.user.id,
    ...v,
    next_run_at: nextRunAt(c, v.cron, v.cron_timezone),
    active: input.active === false ? 0 : 1,
    created_at: now,
    updated_at: now,
  });
  return detailsOf(c, access, actor, row);
}

/** PUT …/:id: update_pipeline_schedule; next_run_at is computed again (the reference's before_save). */
export async function editSchedule(c: Container, actor: Actor, idOrPath: number | string, id: number, input: ScheduleInput): Promise<ScheduleDetailsView> {
  const access = await readable(c, actor, idOrPath);
  const { found, a } = access;
  const row = await scheduleIn(c, found.row, id);
  if (!canUpdateSchedule(a, row, actor)) throw forbidden();
  const v = {
    description: input.description ?? row.description,
    ref: input.ref ?? row.ref,
    cron: (input.cron ?? row.cron).trim(),
    cron_timezone: input.cron_timezone ?? row.cron_timezone,
  };
  validate(v);
  const active = input.active === undefined ? row.active : input.active ? 1 : 0;
  const updated = await updateSchedule(c.db, row.id, { ...v, active, next_run_at: nextRunAt(c, v.cron, v.cron_timezone), updated_at: nowIso() });
  return detailsOf(c, access, actor, updated);
}

/** POST …/:id/take_ownership: admin_pipeline_schedule; 200 when the caller owns it already, else 201. */
export async function takeOwnership(c: Container, actor: Actor, idOrPath: number | string, id: number): Promise<{ view: ScheduleDetailsView; changed: boolean }> {
  const access = await readable(c, actor, idOrPath);
  const { found, a } = access;
  const row = await scheduleIn(c, found.row, id);
  if (!canAdminSchedule(a, row, actor)) throw forbidden();
  if (ownedBy(row, actor)) return { view: await detailsOf(c, access, actor, row), changed: false };
  const updated = await updateSchedule(c.db, row.id, { owner_id: actor.user.id, next_run_at: nextRunAt(c, row.cron, row.cron_timezone), updated_at: nowIso() });
  return { view: await detailsOf(c, access, actor, updated), changed: true };
}

/** DELETE …/:id: admin_pipeline_schedule (If-Unmodified-Since against updated_at). */
export async function removeSchedule(c: Container, actor: Actor, idOrPath: number | string, id: number, ifUnmodifiedSince: Date | null): Promise<void> {
  const { found, a } = await readable(c, actor, idOrPath);
  const row = await scheduleIn(c, found.row, id);
  if (!canAdminSchedule(a, row, actor)) throw forbidden();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  await deleteSchedule(c.db, row.id);
}

/**
 * POST …/:id/play: play_pipeline_schedule (create_pipeline, and not a protected ref the caller
 * may not update); the run is queued as the caller, and the next scheduled run stays as it was.
 */
export async function playSchedule(c: Container, actor: Actor, idOrPath: number | string, id: number): Promise<void> {
  const { found, a } = await readable(c, actor, idOrPath);
  const row = await scheduleIn(c, found.row, id);
  const ref = await resolveRef(c, found.row, row.ref);
  if (!a.update || (ref && !(await canUpdateRef(c, actor, found.row, a, ref.ref, ref.tag)))) throw forbidden();
  if (found.row.archived === 1) throw apiError('Failed to schedule pipeline.');
  await c.queue.enqueue(PIPELINE_SCHEDULE_RUN_JOB, { scheduleId: row.id, userId: actor.user.id } satisfies RunPayload);
}

// ---- variables ----

const KEY_RE = /^[a-zA-Z0-9_]+$/;

function validateKey(key: string): void {
  if (key === '') throw validation({ key: ["can't be blank"] });
  if (key.length > 255) throw validation({ key: ['is too long (maximum is 255 characters)'] });
  if (!KEY_RE.test(key)) throw validation({ key: ["can contain only letters, digits and '_'."] });
}

async function variableTarget(c: Container, actor: Actor, idOrPath: number | string, id: number, need: 'update' | 'admin'): Promise<ScheduleRow> {
  const { found, a } = await readable(c, actor, idOrPath);
  const row = await scheduleIn(c, found.row, id);
  // set_pipeline_variables (developers), then the schedule's own ability
  if (!a.update || !(need === 'update' ? canUpdateSchedule(a, row, actor) : canAdminSchedule(a, row, actor))) throw forbidden();
  return row;
}

async function variableIn(c: Container, row: ScheduleRow, key: string): Promise<ScheduleVariableRow> {
  const v = await findScheduleVariable(c.db, row.id, key);
  if (!v) throw notFound('Pipeline Schedule Variable');
  return v;
}

export interface VariableInput {
  key: string;
  value?: string;
  variable_type?: 'env_var' | 'file';
}

export async function createScheduleVariable(c: Container, actor: Actor, idOrPath: number | string, id: number, input: VariableInput): Promise<ScheduleVariable> {
  const row = await variableTarget(c, actor, idOrPath, id, 'update');
  validateKey(input.key);
  const now = nowIso();
  const made = await insertScheduleVariable(c.db, {
    pipeline_schedule_id: row.id,
    key: input.key,
    encrypted_value: encryptSecret(c.config.secretKey, input.value ?? ''),
    variable_type: input.variable_type ?? 'env_var',
    created_at: now,
    updated_at: now,
  });
  if (!made) throw validation({ key: [`(${input.key}) has already been taken`] });
  return variableOf(c, made);
}

export async function updateScheduleVariableValue(c: Container, actor: Actor, idOrPath: number | string, id: number, input: VariableInput): Promise<ScheduleVariable> {
  const row = await variableTarget(c, actor, idOrPath, id, 'update');
  const v = await variableIn(c, row, input.key);
  const patch: { encrypted_value?: string; variable_type?: string; updated_at: string } = { updated_at: nowIso() };
  if (input.value !== undefined) patch.encrypted_value = encryptSecret(c.config.secretKey, input.value);
  if (input.variable_type !== undefined) patch.variable_type = input.variable_type;
  return variableOf(c, await updateScheduleVariable(c.db, v.id, patch));
}

/** DELETE …/variables/:key: 202 with the removed variable, as the reference answers. */
export async function deleteScheduleVariableByKey(c: Container, actor: Actor, idOrPath: number | string, id: number, key: string): Promise<ScheduleVariable> {
  const row = await variableTarget(c, actor, idOrPath, id, 'admin');
  const v = await variableIn(c, row, key);
  await deleteScheduleVariable(c.db, v.id);
  return variableOf(c, v);
}

// ---- runs ----

interface RunPayload {
  scheduleId: number;
  userId: number | null;
}

/**
 * One tick: claims every due active schedule (exactly once per due time across nodes) and queues
 * its run as the owner. Returns how many this node claimed.
 */
export async function claimDueSchedules(c: Container): Promise<number> {
  const now = nowDate();
  let claimed = 0;
  for (const row of await dueSchedules(c.db, now.toISOString(), TICK_BATCH)) {
    const won = await claimDueRun(c.db, row.id, row.next_run_at!, nextRunAt(c, row.cron, row.cron_timezone, now), async (tx) => {
      await c.queue.enqueue(PIPELINE_SCHEDULE_RUN_JOB, { scheduleId: row.id, userId: row.owner_id } satisfies RunPayload, { trx: tx });
    });
    if (won) claimed += 1;
  }
  return claimed;
}

/**
 * The run job: the pipeline, as the user, unless this job made it already (at-least-once
 * delivery). What the reference refuses (no user, no right to create pipelines on the ref, no CI
 * file, an unusable plan) makes no pipeline and is logged.
 */
export async function runSchedule(c: Container, payload: RunPayload, job: Pick<JobInfo, 'id'>): Promise<void> {
  const row = await findSchedule(c.db, Number(payload.scheduleId));
  const project = row ? await findProjectById(c.db, row.project_id) : undefined;
  const user = payload.userId !== null ? await findUserById(c.db, Number(payload.userId)) : undefined;
  if (!row || !project || !user) return;
  const since = (await findBackgroundJob(c.db, job.id))?.created_at ?? nowIso();
  if (await schedulePipelineSince(c.db, row.id, since)) return;
  const log = (reason: string) => c.log.warn({ scheduleId: row.id, projectId: project.id, reason }, 'scheduled pipeline not created');
  const actor = actingAs(user);
  const a = await ciAccess(c, actor, project);
  const ref = await resolveRef(c, project, row.ref);
  if (!a.update) return log('Insufficient permissions to create a new pipeline');
  if (!ref) return log('Reference not found');
  if (!(await canUpdateRef(c, actor, project, a, ref.ref, ref.tag))) return log(`Insufficient permissions for protected ref '${ref.ref}'`);
  const outcome = await planAndCreate(c, {
    project,
    ref,
    beforeSha: '0'.repeat(40),
    source: 'schedule',
    user,
    variables: (await scheduleVariableRows(c.db, [row.id])).map((v) => ({ ...variableOf(c, v), variable_type: v.variable_type as 'env_var' | 'file' })),
    changedPaths: null,
    saveOnErrors: false,
    pipelineScheduleId: row.id,
  });
  if (outcome.kind === 'refused') log(outcome.message);
}

/**
 * The worker's tick on this node: at each time of the worker's cron (UTC) it claims the due
 * schedules. Every node may run one; the claims keep each due time to one run.
 */
export function startScheduleTicker(c: Container): { stop(): void } {
  const worker = parseCron(c.config.pipelineScheduleWorkerCron) ?? parseCron('* * * * *')!;
  let timer: { clear(): void } | null = null;
  let stopped = false;
  const arm = () => {
    const at = nextCronTime(worker, 'UTC', nowDate());
    if (stopped || !at) return;
    timer = clockTimer(at.getTime(), () => {
      claimDueSchedules(c)
        .catch((err: unknown) => c.log.error({ err }, 'pipeline schedules could not be claimed'))
        .finally(arm);
    });
  };
  arm();
  return {
    stop() {
      stopped = true;
      timer?.clear();
    },
  };
}
