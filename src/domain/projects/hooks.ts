// Project hooks: the URLs a project's events go to (delivery: src/domain/hooks/). Maintainers
// manage them, read their delivery log and test them; the secret token is stored encrypted and
// never shown again.
import type { Container } from '../context.js';
import {
  deleteProjectHook,
  findProjectHook,
  insertProjectHook,
  pageProjectHooks,
  updateProjectHook,
  type ProjectHookPatch,
  type ProjectHookRow,
} from '../../db/repos/project_hooks.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, recordNotFound, unprocessable } from '../errors.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { inTransaction } from '../../db/transaction.js';
import { deleteHookRecords, type HookLogRow } from '../../db/repos/hooks.js';
import { checkHookUrl, encryptedToken, listHookLogs, resendHookLog, sendNow } from '../hooks/service.js';
import { sampleEvent } from '../hooks/samples.js';
import { canAdminProject } from './policy.js';
import { findProject } from './find.js';

/** The event switches a hook has, with the reference's defaults (push on, the rest off). */
export const HOOK_EVENTS = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  repository_update_events: false,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  confidential_note_events: false,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  job_events: false,
  releases_events: false,
} as const;

export type HookEvent = keyof typeof HOOK_EVENTS;

export type HookInput = { url: string; token?: string; push_events_branch_filter?: string; enable_ssl_verification?: boolean } & {
  [K in HookEvent]?: boolean;
};

async function maintainedProject(c: Container, actor: Actor, idOrPath: number | string) {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  return row;
}

/** A hook of the project, or the reference's record-lookup 404. */
async function projectHook(c: Container, projectId: number, hookId: number): Promise<ProjectHookRow> {
  const hook = await findProjectHook(c.db, projectId, hookId);
  if (!hook) throw recordNotFound();
  return hook;
}

/** The columns an input sets: given switches only (creation fills the rest from the defaults). */
function patchOf(c: Container, input: Partial<HookInput>): ProjectHookPatch {
  const patch: ProjectHookPatch = {};
  if (input.url !== undefined) patch.url = input.url;
  for (const k of Object.keys(HOOK_EVENTS) as HookEvent[]) if (input[k] !== undefined) patch[k] = input[k] ? 1 : 0;
  if (input.enable_ssl_verification !== undefined) patch.enable_ssl_verification = input.enable_ssl_verification ? 1 : 0;
  if (input.push_events_branch_filter !== undefined) patch.push_events_branch_filter = input.push_events_branch_filter || null;
  if (input.token !== undefined) patch.token_encrypted = encryptedToken(c, input.token);
  return patch;
}

export async function listHooks(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<ProjectHookRow>> {
  const project = await maintainedProject(c, actor, idOrPath);
  return pageProjectHooks(c.db, project.id, page);
}

export async function getHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  return projectHook(c, project.id, hookId);
}

export async function createHook(c: Container, actor: Actor, idOrPath: number | string, input: HookInput): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  await checkHookUrl(c, 'project', input.url);
  const now = nowIso();
  return insertProjectHook(c.db, { project_id: project.id, url: input.url, token_encrypted: null, ...patchOf(c, input), created_at: now, updated_at: now });
}

export async function updateHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number, input: HookInput): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await projectHook(c, project.id, hookId);
  await checkHookUrl(c, 'project', input.url);
  return updateProjectHook(c.db, hook.id, { ...patchOf(c, input), updated_at: nowIso() });
}

export async function deleteHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number): Promise<void> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await projectHook(c, project.id, hookId);
  await inTransaction(c.db, async (tx) => {
    await deleteHookRecords(tx, 'project', hook.id);
    await deleteProjectHook(tx, hook.id);
  });
}

// ---- test, log, resend ----

/** The triggers `POST …/hooks/:hook_id/test/:trigger` accepts (the reference's list). */
export const TEST_TRIGGERS = [
  'push_events', 'tag_push_events', 'merge_requests_events', 'issues_events', 'confidential_issues_events', 'note_events',
  'confidential_note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'releases_events', 'emoji_events',
  'resource_access_token_events',
] as const;
export type TestTrigger = (typeof TEST_TRIGGERS)[number];

/**
 * Sends a sample of the trigger's event to the hook now (even a disabled one; a success enables
 * it again). 2xx → `201 Created`; otherwise the reference's 422 with the receiver's answer.
 */
export async function testHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number, trigger: TestTrigger): Promise<void> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await projectHook(c, project.id, hookId);
  const sample = await sampleEvent(c, project, trigger, actor.user.id);
  if (typeof sample === 'string') throw unprocessable(sample);
  const attempt = await sendNow(c, { type: 'project', row: hook }, sample.trigger, sample.eventHeader, sample.payload);
  if (attempt.status === null || attempt.status < 200 || attempt.status >= 300) throw unprocessable(attempt.log.response_body);
}

export async function listHookEvents(c: Container, actor: Actor, idOrPath: number | string, hookId: number, page: PageRequest): Promise<PageResult<HookLogRow>> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await projectHook(c, project.id, hookId);
  return listHookLogs(c, 'project', hook.id, page);
}

export async function resendHookEvent(c: Container, actor: Actor, idOrPath: number | string, hookId: number, logId: number): Promise<{ response_status: number }> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await projectHook(c, project.id, hookId);
  return resendHookLog(c, 'project', hook.id, logId);
}
