// Hook delivery. An event becomes one delivery row per hook, written in the transaction of the
// change that caused it, with a queue job that carries only the row id; the job sends it through
// src/outbound/, logs the attempt, and retries network errors, timeouts and 5xx with exponential
// back-off and jitter (never a 4xx), up to MAX_DELIVERY_ATTEMPTS. Deliveries run only in queue
// workers, at most PER_HOOK_CONCURRENCY at once per hook in a process.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import {
  findDelivery, findSystemHook, insertDeliveries, insertHookLog, pruneDeliveries, pruneHookLogs, settleDelivery,
  type HookDeliveryRow, type HookLogRow, type SystemHookRow,
} from '../../db/repos/hooks.js';
import { findProjectHookById, updateProjectHook, type ProjectHookRow } from '../../db/repos/project_hooks.js';
import type { DB, HookType } from '../../db/schema.js';
import { OutboundRefused, redactedUrl, send, type OutboundPolicy } from '../../outbound/request.js';
import { ANVIL_VERSION } from '../../version.js';
import { decryptSecret } from '../shared/encryption.js';
import { nowIso } from '../../shared/time.js';
import { getSettings } from '../settings/service.js';
import { failureState, isExecutable, successState } from './policy.js';
import { now as clockNow, nowDate } from '../../shared/clock.js';

export const HOOK_DELIVERY_JOB = 'hook_delivery';
export const HOOK_LOG_PRUNE_JOB = 'hook_log_prune';
export const MAX_DELIVERY_ATTEMPTS = 5;
/** Log entries and finished deliveries are kept this long. */
export const HOOK_LOG_RETENTION_MS = 30 * 24 * 3600_000;
export const PER_HOOK_CONCURRENCY = 2;
/** A delivery that found its hook's slots taken tries again this much later. */
const BUSY_DELAY_MS = 200;
const DELIVERY_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** Bytes of a receiver's answer that are read and logged. */
const RESPONSE_BODY_CAP = 16 * 1024;
const REDACTED = '[REDACTED]';
export const TOKEN_HEADER = 'X-Service-Token';

/** What one event sends: the reference's trigger name (log), its `X-Service-Event` value and its body. */
export interface HookEvent {
  trigger: string;
  eventHeader: string;
  payload: object;
}

export interface HookTarget {
  id: number;
  token_encrypted: string | null;
}

export interface HookAttempt {
  /** The response status, or null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Worth another try: network errors, timeouts and 5xx. */
  retryable: boolean;
  log: HookLogRow;
}

/** The headers of a delivery as stored and logged: the token, when the hook has one, is redacted. */
export function deliveryHeaders(c: Container, ev: HookEvent, eventUuid: string, hasToken: boolean): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `Anvil/${ANVIL_VERSION}`,
    'X-Service-Event': ev.eventHeader,
    'X-Service-Event-UUID': eventUuid,
    'X-Service-Instance': c.config.externalUrl,
    ...(hasToken ? { [TOKEN_HEADER]: REDACTED } : {}),
  };
}

/**
 * Records the deliveries of one event to these hooks in the caller's transaction `tx` and queues a
 * job for each, so the event is sent if and only if the change commits.
 */
export async function enqueueDeliveries(
  c: Container,
  tx: Kysely<DB>,
  hookType: HookType,
  hooks: HookTarget[],
  ev: HookEvent,
  eventUuid: string = crypto.randomUUID(),
): Promise<void> {
  if (hooks.length === 0) return;
  const now = nowIso();
  const body = JSON.stringify(ev.payload);
  const ids = await insertDeliveries(
    tx,
    hooks.map((h) => ({
      hook_type: hookType,
      hook_id: h.id,
      trigger: ev.trigger,
      event_uuid: eventUuid,
      request_headers: JSON.stringify(deliveryHeaders(c, ev, eventUuid, h.token_encrypted !== null)),
      request_data: body,
      state: 'pending' as const,
      attempts: 0,
      created_at: now,
      updated_at: now,
    })),
  );
  for (const id of ids) await c.queue.enqueue(HOOK_DELIVERY_JOB, { deliveryId: id, attempt: 1 }, { trx: tx, maxAttempts: 3 });
}

/** A hook of either kind, with its row. */
export type AnyHook = { type: 'system'; row: SystemHookRow } | { type: 'project'; row: ProjectHookRow };

/** A hook by kind and id; null when it was deleted. */
export async function loadHook(c: Container, type: HookType, id: number): Promise<AnyHook | null> {
  if (type === 'system') {
    const row = await findSystemHook(c.db, id);
    return row ? { type, row } : null;
  }
  const row = await findProjectHookById(c.db, id);
  return row ? { type, row } : null;
}

/** The instance settings that decide what a hook of this kind may reach. */
export async function outboundPolicy(c: Container, type: HookType): Promise<OutboundPolicy> {
  const s = await getSettings(c);
  return {
    allowLocal: Boolean(type === 'system' ? s.allow_local_requests_from_system_hooks : s.allow_local_requests_from_web_hooks_and_services),
    allowList: s.outbound_local_requests_whitelist as string[],
    pinAddress: Boolean(s.dns_rebinding_protection_enabled),
    resolver: c.resolver,
    recorder: c.outboundRecorder,
  };
}

/**
 * Sends one request to a hook now, logs it and, for a project hook, moves its failure state.
 * Used by the queue worker, the test endpoints and resend.
 */
export async function executeHook(
  c: Container,
  hook: AnyHook,
  req: { trigger: string; headers: Record<string, string>; body: string; deliveryId: number | null },
): Promise<HookAttempt> {
  const headers = { ...req.headers };
  if (hook.row.token_encrypted) headers[TOKEN_HEADER] = decryptSecret(c.config.secretKey, hook.row.token_encrypted);
  else delete headers[TOKEN_HEADER];
  const started = Date.now();
  let status: number | null = null;
  let responseHeaders: Record<string, string> = {};
  let responseBody: string;
  let retryable = false;
  try {
    const res = await send(hook.row.url, await outboundPolicy(c, hook.type), {
      method: 'POST',
      headers,
      body: req.body,
      verifySsl: hook.row.enable_ssl_verification === 1,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBodyBytes: RESPONSE_BODY_CAP,
      origin: { hook_id: hook.row.id, hook_type: hook.type },
    });
    status = res.status;
    responseHeaders = res.headers;
    responseBody = res.body;
    retryable = status >= 500;
  } catch (err) {
    // As the reference logs it: no status, the error as the body. A refused URL stays refused.
    responseBody = err instanceof Error ? err.message : String(err);
    retryable = !(err instanceof OutboundRefused);
  }
  const ok = status !== null && status >= 200 && status < 300;
  const at = nowIso();
  const log = await insertHookLog(c.db, {
    hook_type: hook.type,
    hook_id: hook.row.id,
    delivery_id: req.deliveryId,
    url: redactedUrl(hook.row.url),
    trigger: req.trigger,
    request_headers: JSON.stringify(req.headers),
    request_data: req.body,
    response_status: status === null ? 'internal error' : String(status),
    response_headers: JSON.stringify(responseHeaders),
    response_body: responseBody,
    execution_duration: (Date.now() - started) / 1000,
    created_at: at,
  });
  if (hook.type === 'project') {
    const patch = ok ? successState(hook.row) : failureState(hook.row, nowDate());
    if (patch) await updateProjectHook(c.db, hook.row.id, patch);
  }
  return { status, retryable, log };
}

/** Delay before attempt n+1 after n failed ones: base × 2^(n-1), plus up to 50 % jitter. */
export function retryDelayMs(c: Container, failedAttempts: number): number {
  const base = c.config.hookRetryBaseMs * 2 ** (failedAttempts - 1);
  return Math.round(base * (1 + Math.random() * 0.5));
}

const busy = new Map<string, number>();

/** The queue job: sends one delivery attempt. Idempotent: a delivery that moved on is left alone. */
export async function runDelivery(c: Container, payload: { deliveryId: number; attempt: number }): Promise<void> {
  const d = await findDelivery(c.db, payload.deliveryId);
  if (!d || d.state !== 'pending' || d.attempts !== payload.attempt - 1) return;
  const hook = await loadHook(c, d.hook_type, d.hook_id);
  if (!hook || (hook.type === 'project' && !isExecutable(hook.row, nowDate()))) {
    await settleDelivery(c.db, d.id, d.attempts, { state: 'failed', attempts: d.attempts, updated_at: nowIso() });
    return;
  }
  const key = `${d.hook_type}:${d.hook_id}`;
  const taken = busy.get(key) ?? 0;
  if (taken >= PER_HOOK_CONCURRENCY) {
    await c.queue.enqueue(HOOK_DELIVERY_JOB, payload, { runAt: new Date(clockNow() + BUSY_DELAY_MS), maxAttempts: 3 });
    return;
  }
  busy.set(key, taken + 1);
  let attempt: HookAttempt;
  try {
    attempt = await executeHook(c, hook, { trigger: d.trigger, headers: JSON.parse(d.request_headers), body: d.request_data, deliveryId: d.id });
  } finally {
    const left = (busy.get(key) ?? 1) - 1;
    if (left > 0) busy.set(key, left);
    else busy.delete(key);
  }
  await settle(c, d, attempt);
}

async function settle(c: Container, d: HookDeliveryRow, attempt: HookAttempt): Promise<void> {
  const attempts = d.attempts + 1;
  const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
  const again = !ok && attempt.retryable && attempts < MAX_DELIVERY_ATTEMPTS;
  const state = ok ? 'delivered' : again ? 'pending' : 'failed';
  if (!(await settleDelivery(c.db, d.id, d.attempts, { state, attempts, updated_at: nowIso() }))) return;
  if (again) {
    await c.queue.enqueue(HOOK_DELIVERY_JOB, { deliveryId: d.id, attempt: attempts + 1 }, {
      runAt: new Date(clockNow() + retryDelayMs(c, attempts)),
      maxAttempts: 3,
    });
  }
}

export async function pruneHookRecords(c: Container, now = clockNow()): Promise<number> {
  const before = new Date(now - HOOK_LOG_RETENTION_MS).toISOString();
  let total = 0;
  for (const prune of [pruneHookLogs, pruneDeliveries]) {
    for (;;) {
      const n = await prune(c.db, before);
      total += n;
      if (n < 1000) break;
    }
  }
  return total;
}

/** The prune of old log entries and finished deliveries runs daily. */
export const HOOK_LOG_PRUNE_EVERY_MS = 24 * 3600_000;

