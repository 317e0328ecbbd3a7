// System hooks (admin) and what every hook has: its URL check, its delivery log and resend.
import crypto from 'node:crypto';
import type { Container } from '../context.js';
import {
  deleteHookRecords, deleteSystemHook, findHookLog, findSystemHook, insertSystemHook, pageHookLogs, pageSystemHooks, updateSystemHook,
  type HookLogRow, type SystemHookPatch, type SystemHookRow,
} from '../../db/repos/hooks.js';
import type { HookType } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { checkUrl, OutboundRefused } from '../../outbound/request.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { invalidHookUrl, notFound, recordNotFound, unprocessable } from '../errors.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { encryptSecret } from '../shared/encryption.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { deliveryHeaders, executeHook, loadHook, outboundPolicy, type AnyHook } from './delivery.js';
import { SYSTEM_HOOK_SAMPLE } from './payloads.js';

/**
 * A hook URL must be http(s), resolve, and pass the outbound rules for its kind (the reference's
 * URL validator with DNS rebinding protection refuses a host it cannot resolve); delivery checks
 * it again.
 */
export async function checkHookUrl(c: Container, type: HookType, url: string): Promise<void> {
  try {
    await checkUrl(url, await outboundPolicy(c, type));
  } catch (err) {
    if (err instanceof OutboundRefused) throw invalidHookUrl();
    throw err;
  }
}

/** A token given as '' clears it; otherwise it is stored encrypted. */
export const encryptedToken = (c: Container, token: string) => (token === '' ? null : encryptSecret(c.config.secretKey, token));

// ---- system hooks ----

export const SYSTEM_HOOK_FLAGS = ['push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events', 'enable_ssl_verification'] as const;
type SystemHookFlag = (typeof SYSTEM_HOOK_FLAGS)[number];

export type SystemHookInput = { url: string; token?: string } & { [K in SystemHookFlag]?: boolean };

function systemPatch(c: Container, input: Partial<SystemHookInput>): SystemHookPatch {
  const patch: SystemHookPatch = {};
  if (input.url !== undefined) patch.url = input.url;
  for (const k of SYSTEM_HOOK_FLAGS) if (input[k] !== undefined) patch[k] = input[k] ? 1 : 0;
  if (input.token !== undefined) patch.token_encrypted = encryptedToken(c, input.token);
  return patch;
}

async function systemHook(c: Container, id: number): Promise<SystemHookRow> {
  const hook = await findSystemHook(c.db, id);
  if (!hook) throw recordNotFound();
  return hook;
}

export async function listSystemHooks(c: Container, actor: Actor | null, page: PageRequest): Promise<PageResult<SystemHookRow>> {
  requireAdmin(actor);
  return pageSystemHooks(c.db, page);
}

export async function getSystemHook(c: Container, actor: Actor | null, id: number): Promise<SystemHookRow> {
  requireAdmin(actor);
  return systemHook(c, id);
}

export async function createSystemHook(c: Container, actor: Actor | null, input: SystemHookInput): Promise<SystemHookRow> {
  requireAdmin(actor);
  await checkHookUrl(c, 'system', input.url);
  const now = nowIso();
  return insertSystemHook(c.db, { url: input.url, token_encrypted: null, ...systemPatch(c, input), created_at: now, updated_at: now });
}

export async function updateSystemHookById(c: Container, actor: Actor | null, id: number, input: Partial<SystemHookInput>): Promise<SystemHookRow> {
  requireAdmin(actor);
  const hook = await systemHook(c, id);
  if (input.url !== undefined) await checkHookUrl(c, 'system', input.url);
  return updateSystemHook(c.db, hook.id, { ...systemPatch(c, input), updated_at: nowIso() });
}

export async function deleteSystemHookById(c: Container, actor: Actor | null, id: number, ifUnmodifiedSince: Date | null = null): Promise<SystemHookRow> {
  requireAdmin(actor);
  const hook = await findSystemHook(c.db, id);
  if (!hook) throw notFound('System hook'); // the reference's delete answers so, unlike its finders
  checkUnmodifiedSince(hook.updated_at, ifUnmodifiedSince);
  await inTransaction(c.db, async (tx) => {
    await deleteHookRecords(tx, 'system', hook.id);
    await deleteSystemHook(tx, hook.id);
  });
  return hook;
}

/** `POST /hooks/:id`: really sends the sample project creation to the hook and answers with it. */
export async function testSystemHook(c: Container, actor: Actor | null, id: number): Promise<typeof SYSTEM_HOOK_SAMPLE> {
  requireAdmin(actor);
  const hook = await systemHook(c, id);
  await sendNow(c, { type: 'system', row: hook }, 'system_hooks', 'System Hook', SYSTEM_HOOK_SAMPLE);
  return SYSTEM_HOOK_SAMPLE;
}

// ---- sending now (tests, resend) and the log ----

/** Sends a body to a hook at once (outside the queue) and returns the attempt. */
export async function sendNow(c: Container, hook: AnyHook, trigger: string, eventHeader: string, payload: object) {
  const headers = deliveryHeaders(c, { trigger, eventHeader, payload }, crypto.randomUUID(), hook.row.token_encrypted !== null);
  return executeHook(c, hook, { trigger, headers, body: JSON.stringify(payload), deliveryId: null });
}

export function listHookLogs(c: Container, type: HookType, hookId: number, page: PageRequest): Promise<PageResult<HookLogRow>> {
  return pageHookLogs(c.db, type, hookId, page);
}

export async function listSystemHookLogs(c: Container, actor: Actor | null, id: number, page: PageRequest): Promise<PageResult<HookLogRow>> {
  requireAdmin(actor);
  const hook = await systemHook(c, id);
  return listHookLogs(c, 'system', hook.id, page);
}

/** Sends a logged request again, now, with the hook's current URL and token; the reference's 422 when it fails. */
export async function resendHookLog(c: Container, type: HookType, hookId: number, logId: number): Promise<{ response_status: number }> {
  const log = await findHookLog(c.db, type, hookId, logId);
  const hook = log ? await loadHook(c, type, hookId) : null;
  if (!log || !hook) throw recordNotFound();
  const attempt = await executeHook(c, hook, { trigger: log.trigger, headers: JSON.parse(log.request_headers), body: log.request_data, deliveryId: null });
  if (attempt.status === null) throw unprocessable(attempt.log.response_body);
  return { response_status: attempt.status };
}

export async function resendSystemHookLog(c: Container, actor: Actor | null, id: number, logId: number): Promise<{ response_status: number }> {
  requireAdmin(actor);
  await systemHook(c, id);
  return resendHookLog(c, 'system', id, logId);
}
