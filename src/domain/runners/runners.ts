// Registered runners: registration (a registration token, or a runner created by a user and then
// verified), their authentication by runner token, contact, unregistering and token resets.
// Runner tokens are random secrets shown once; only their SHA-256 is stored.
import type { Container } from '../context.js';
import {
  deleteManager, deleteRunner, findRunnerByTokenDigest, groupByRunnersTokenDigest, insertRunner, projectByRunnersTokenDigest, recordContact,
  assignRunnerProject, updateRunner, type RunnerRow,
} from '../../db/repos/runners.js';
import { forbidden, invalidParams, validation } from '../errors.js';
import { digest, randomToken } from '../shared/secrets.js';
import { nowIso } from '../../shared/time.js';
import { now as clockNow } from '../../shared/clock.js';
import { inTransaction } from '../../db/transaction.js';
import { BUILT_IN_RUNNER_ID } from '../ci/built_in_runner.js';
import { ANVIL_REVISION } from '../../version.js';

export const RUNNER_TOKEN_PREFIX = 'glrt-';
export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export type RunnerType = (typeof RUNNER_TYPES)[number];
export const ACCESS_LEVELS = ['not_protected', 'ref_protected'] as const;
/** Contact is written at most this often per runner (each poll would otherwise write). */
const CONTACT_EVERY_MS = 15_000;

/** What the runner says about itself (`info` of every runner request). */
export interface RunnerInfo {
  name?: string;
  version?: string;
  revision?: string;
  platform?: string;
  architecture?: string;
  executor?: string;
}

/** Routing settings given at registration or through the REST API. */
export interface RunnerSettingsInput {
  description?: string;
  paused?: boolean;
  /** Comma-separated (the runner's form) or a list. */
  tag_list?: string | string[];
  run_untagged?: boolean;
  locked?: boolean;
  access_level?: string;
  maximum_timeout?: number;
  maintenance_note?: string;
}

export const tagsOf = (r: Pick<RunnerRow, 'tag_list'>): string[] => JSON.parse(r.tag_list) as string[];

function parseTags(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = (Array.isArray(v) ? v : v.split(',')).map((t) => String(t).trim()).filter((t) => t !== '');
  return [...new Set(list)];
}

/** The columns of the settings given (absent ones untouched); 400 for a bad value. */
export function settingsPatch(s: RunnerSettingsInput): Partial<RunnerRow> {
  const patch: Partial<RunnerRow> = {};
  if (s.description !== undefined) patch.description = s.description;
  if (s.paused !== undefined) patch.paused = s.paused ? 1 : 0;
  const tags = parseTags(s.tag_list);
  if (tags) patch.tag_list = JSON.stringify(tags);
  if (s.run_untagged !== undefined) patch.run_untagged = s.run_untagged ? 1 : 0;
  if (s.locked !== undefined) patch.locked = s.locked ? 1 : 0;
  if (s.access_level !== undefined) {
    if (!(ACCESS_LEVELS as readonly string[]).includes(s.access_level)) throw invalidParams('access_level does not have a valid value');
    patch.access_level = s.access_level;
  }
  if (s.maximum_timeout !== undefined) {
    if (s.maximum_timeout < 600) throw validation({ maximum_timeout: ['needs to be at least 10 minutes'] });
    patch.maximum_timeout = s.maximum_timeout;
  }
  if (s.maintenance_note !== undefined) patch.maintenance_note = s.maintenance_note;
  if (patch.run_untagged === 0 && (tags ?? []).length === 0 && s.tag_list !== undefined) {
    throw validation({ tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] });
  }
  return patch;
}

const newRunnerToken = (): { token: string; digest: string } => {
  const token = randomToken(RUNNER_TOKEN_PREFIX, 20);
  return { token, digest: digest(token) };
};

/** The runner of a runner token; 403 for an unknown or expired one (the reference's `authenticate_runner!`). */
export async function authenticateRunner(c: Container, token: unknown): Promise<RunnerRow> {
  if (typeof token !== 'string' || token === '') throw forbidden();
  const runner = await findRunnerByTokenDigest(c.db, digest(token));
  if (!runner || (runner.token_expires_at && Date.parse(runner.token_expires_at) <= clockNow())) throw forbidden();
  return runner;
}

const contacts = new WeakMap<Container, Map<string, number>>();
/** When this process last recorded each runner's (manager's, address's) contact. */
function lastContact(c: Container): Map<string, number> {
  let m = contacts.get(c);
  if (!m) contacts.set(c, (m = new Map()));
  return m;
}

/** Records that the runner (and its manager `systemId`) made contact, from `ip`, at most every CONTACT_EVERY_MS. */
export async function touchRunner(c: Container, runner: RunnerRow, info: RunnerInfo | undefined, systemId: string | null, ip: string | null): Promise<void> {
  const seen = lastContact(c);
  const key = `${runner.id}\0${systemId ?? ''}\0${ip ?? ''}`;
  if (Date.now() - (seen.get(key) ?? 0) < CONTACT_EVERY_MS) return;
  if (seen.size > 10_000) seen.clear();
  seen.set(key, Date.now());
  const now = nowIso();
  runner.contacted_at = now;
  runner.ip_address = ip;
  if (info?.name && info.name !== runner.name) await updateRunner(c.db, runner.id, { name: info.name });
  await recordContact(c.db, runner.id, systemId, {
    contacted_at: now,
    ip_address: ip,
    version: info?.version ?? runner.version,
    revision: info?.revision ?? runner.revision,
    platform: info?.platform ?? runner.platform,
    architecture: info?.architecture ?? runner.architecture,
  });
}

export interface Registered {
  runner: RunnerRow;
  token: string;
}

interface RegisterScope {
  type: RunnerType;
  groupId: number | null;
  projectId: number | null;
}

/** The scope a registration token gives: the instance's, a group's or a project's; 403 for none. */
async function scopeOfRegistrationToken(c: Container, token: unknown): Promise<RegisterScope> {
  if (typeof token !== 'string' || token === '') throw forbidden();
  if (c.config.runnerRegistrationToken && token === c.config.runnerRegistrationToken) return { type: 'instance_type', groupId: null, projectId: null };
  const project = await projectByRunnersTokenDigest(c.db, digest(token));
  if (project) return { type: 'project_type', groupId: null, projectId: project.id };
  const group = await groupByRunnersTokenDigest(c.db, digest(token));
  if (group) return { type: 'group_type', groupId: group.id, projectId: null };
  throw forbidden();
}

/** Creates a runner of a scope with its settings; a project runner is assigned to its project. */
export async function createRunnerRecord(
  c: Container,
  scope: RegisterScope,
  settings: RunnerSettingsInput,
  opts: { registrationType: 'registration_token' | 'authenticated_user'; creatorId: number | null; info?: RunnerInfo },
): Promise<Registered> {
  const patch = settingsPatch(settings);
  const { token, digest: tokenDigest } = newRunnerToken();
  const now = nowIso();
  const runner = await inTransaction(c.db, async (tx) => {
    const row = await insertRunner(tx, {
      runner_type: scope.type,
      group_id: scope.groupId,
      token_digest: tokenDigest,
      registration_type: opts.registrationType,
      creator_id: opts.creatorId,
      created_at: now,
      updated_at: now,
      name: opts.info?.name ?? null,
      version: opts.info?.version ?? null,
      revision: opts.info?.revision ?? null,
      platform: opts.info?.platform ?? null,
      architecture: opts.info?.architecture ?? null,
      ...patch,
    });
    if (scope.projectId !== null) await assignRunnerProject(tx, row.id, scope.projectId, now);
    return row;
  });
  return { runner, token };
}

/** `POST /runners` with a registration token (the legacy flow). */
export async function registerRunner(c: Container, input: RunnerSettingsInput & { token?: string; info?: RunnerInfo }): Promise<Registered> {
  const scope = await scopeOfRegistrationToken(c, input.token);
  return createRunnerRecord(c, scope, input, { registrationType: 'registration_token', creatorId: null, info: input.info });
}

/** `POST /runners/verify`: the runner of the token, its manager recorded. */
export async function verifyRunner(c: Container, input: { token?: string; system_id?: string; info?: RunnerInfo }, ip: string | null): Promise<RunnerRow> {
  const runner = await authenticateRunner(c, input.token);
  await touchRunner(c, runner, input.info, input.system_id ?? null, ip);
  return runner;
}

/** `DELETE /runners`: the runner of the token is gone, with its managers. */
export async function unregisterRunner(c: Container, token: unknown): Promise<void> {
  const runner = await authenticateRunner(c, token);
  await deleteRunner(c.db, runner.id);
}

/** `DELETE /runners/managers`: one manager of the runner is gone; 404 when it has none of that system id. */
export async function unregisterManager(c: Container, token: unknown, systemId: unknown): Promise<boolean> {
  const runner = await authenticateRunner(c, token);
  if (typeof systemId !== 'string' || systemId === '') throw invalidParams('system_id is missing');
  return deleteManager(c.db, runner.id, systemId);
}

/** A fresh token for the runner; the old one stops working at once. */
export async function resetRunnerToken(c: Container, runner: RunnerRow): Promise<Registered> {
  const { token, digest: tokenDigest } = newRunnerToken();
  const updated = await updateRunner(c.db, runner.id, { token_digest: tokenDigest, token_expires_at: null, updated_at: nowIso() });
  return { runner: updated ?? runner, token };
}

/** The built-in runner's row shows this node's settings and contact (GET /runners/all lists it). */
export async function recordBuiltInRunner(c: Container): Promise<void> {
  const now = nowIso();
  await updateRunner(c.db, BUILT_IN_RUNNER_ID, {
    tag_list: JSON.stringify(c.config.runnerTags),
    run_untagged: c.config.runnerRunUntagged ? 1 : 0,
    contacted_at: now,
    updated_at: now,
    version: ANVIL_REVISION,
    platform: process.platform,
    architecture: process.arch,
  });
}

/** Contact within this long: online (the reference's ONLINE_CONTACT_TIMEOUT). */
export const ONLINE_CONTACT_MS = 2 * 3600_000;
/** No contact for this long (or never, created this long ago): stale (the reference's STALE_TIMEOUT). */
export const STALE_MS = 7 * 24 * 3600_000;

/** online / offline / stale / never_contacted, as the reference derives it. The built-in runner is online where it runs. */
export function runnerStatus(c: Container, r: Pick<RunnerRow, 'id' | 'contacted_at' | 'created_at'>, now = clockNow()): string {
  if (r.id === BUILT_IN_RUNNER_ID) return c.config.runnerEnabled ? 'online' : 'offline';
  if (!r.contacted_at) return now - Date.parse(r.created_at) > STALE_MS ? 'stale' : 'never_contacted';
  const since = now - Date.parse(r.contacted_at);
  if (since <= ONLINE_CONTACT_MS) return 'online';
  return since > STALE_MS ? 'stale' : 'offline';
}
