// Instance application settings: read (cached per process) and update (admin only).
//
// Caching: every node keeps the decoded settings in memory. A node that writes refreshes its own
// copy at once; every node re-checks the row's `version` (one tiny query) at most every
// `recheckMs` (default 5 s) and re-reads the row only when it changed. So a change made on one
// node is seen by the others well within the spec's 60 seconds, at the cost of one indexed
// single-column read per node every few seconds.
import type { Container } from '../context.js';
import { ensureSettingsRow, findSettingsRow, findSettingsVersion, writeSettingsRow, type SettingsRow } from '../../db/repos/settings.js';
import type { Actor } from '../auth/actor.js';
import { conflict } from '../errors.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import { nowIso } from '../../shared/time.js';
import {
  SETTING_NAMES,
  STORED_NAMES,
  defOf,
  defaultOf,
  type DefaultsContext,
  type SettingName,
  type Settings,
} from './definitions.js';
import { assertCanManageSettings } from './policy.js';
import { checkModel, checkRequest, type SettingsInput } from './validate.js';

export type { Settings, SettingName } from './definitions.js';
export type { SettingsInput } from './validate.js';

/** What a response shows of a secret that is set (the clear value never leaves the server). */
export const SECRET_MASK = '********';

export const DEFAULT_RECHECK_MS = 5_000;

export interface SettingsSnapshot {
  settings: Readonly<Settings>;
  id: number;
  createdAt: string;
  updatedAt: string;
  version: number;
}

interface CacheEntry {
  snap: SettingsSnapshot | null;
  checkedAt: number;
  recheckMs: number;
  inflight: Promise<SettingsSnapshot> | null;
}

const caches = new WeakMap<Container, CacheEntry>();

function cacheOf(c: Container): CacheEntry {
  let e = caches.get(c);
  if (!e) caches.set(c, (e = { snap: null, checkedAt: 0, recheckMs: DEFAULT_RECHECK_MS, inflight: null }));
  return e;
}

/** How often this process re-checks for changes made by other nodes (tests shorten it). */
export function setSettingsRecheckInterval(c: Container, ms: number): void {
  cacheOf(c).recheckMs = ms;
}

/** Reads the settings again at the next ask (test mode's reset put other rows in place). */
export function forgetSettings(c: Container): void {
  cacheOf(c).snap = null;
}

function defaultsContext(c: Container): DefaultsContext {
  return { host: new URL(c.config.externalUrl).hostname };
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o as object)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Stored JSON → every setting's current value (defaults filled in, secrets decrypted, aliases mirrored). */
function decode(c: Container, row: SettingsRow): SettingsSnapshot {
  const stored = JSON.parse(row.data) as Record<string, unknown>;
  const ctx = defaultsContext(c);
  const s: Record<string, unknown> = {};
  for (const name of STORED_NAMES) {
    const def = defOf(name);
    let v = Object.hasOwn(stored, name) ? stored[name] : defaultOf(name, ctx);
    if (def.secret && typeof v === 'string') {
      try {
        v = decryptSecret(c.config.secretKey, v);
      } catch {
        // Encrypted with another instance key: unreadable, so treated as not set.
        c.log.warn({ setting: name }, 'cannot decrypt application setting; treating it as unset');
        v = null;
      }
    }
    s[name] = v;
  }
  for (const name of SETTING_NAMES) {
    const def = defOf(name);
    if (def.fixed !== undefined) s[name] = def.fixed;
    else if (def.aliasOf) s[name] = s[def.aliasOf];
  }
  s.performance_bar_enabled = s.performance_bar_allowed_group_path != null || s.performance_bar_allowed_group_id != null;
  return {
    settings: deepFreeze(s as unknown as Settings),
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

async function readRow(c: Container): Promise<SettingsRow> {
  let row = await findSettingsRow(c.db);
  if (!row) {
    await ensureSettingsRow(c.db, nowIso());
    row = await findSettingsRow(c.db);
  }
  return row!;
}

async function refresh(c: Container, e: CacheEntry): Promise<SettingsSnapshot> {
  const started = Date.now();
  if (e.snap) {
    const version = await findSettingsVersion(c.db);
    if (version === e.snap.version) {
      e.checkedAt = started;
      return e.snap;
    }
  }
  const snap = decode(c, await readRow(c));
  remember(e, snap, started);
  return snap;
}

function remember(e: CacheEntry, snap: SettingsSnapshot, at: number): void {
  // Never replace a newer snapshot with an older one (a slow read racing a write).
  if (!e.snap || snap.version >= e.snap.version) e.snap = snap;
  e.checkedAt = at;
}

async function currentSnapshot(c: Container): Promise<SettingsSnapshot> {
  const e = cacheOf(c);
  if (e.snap && Date.now() - e.checkedAt < e.recheckMs) return e.snap;
  e.inflight ??= refresh(c, e).finally(() => {
    e.inflight = null;
  });
  return e.inflight;
}

/**
 * The current settings, for any area that needs them (secrets in clear). Cached: a change on
 * this node is visible at once, one made on another node within a few seconds.
 */
export async function getSettings(c: Container): Promise<Readonly<Settings>> {
  return (await currentSnapshot(c)).settings;
}

/** GET /application/settings: always read from the database, as the reference does for the API. */
export async function showSettings(c: Container, actor: Actor | null): Promise<SettingsSnapshot> {
  assertCanManageSettings(actor);
  const snap = decode(c, await readRow(c));
  remember(cacheOf(c), snap, Date.now());
  return snap;
}

/** The request's values turned into changes of stored settings (legacy names, normalisations). */
function changesFrom(c: Container, input: SettingsInput, current: Settings): Partial<Record<SettingName, unknown>> {
  const changes: Partial<Record<SettingName, unknown>> = {};
  const given = SETTING_NAMES.filter((n) => input[n] !== undefined);
  // A legacy field that also writes its replacement goes first, so the replacement given
  // explicitly in the same request wins; a deprecated alias goes last, as the reference's
  // `attrs[new] = attrs.delete(old)` makes it win.
  for (const name of given) for (const other of defOf(name).alsoSets ?? []) changes[other as SettingName] = input[name];
  for (const name of given) {
    const def = defOf(name);
    if (def.aliasOf || def.fixed !== undefined || def.computed) continue;
    changes[name] = input[name];
  }
  for (const name of given) {
    const target = defOf(name).aliasOf;
    if (target) changes[target as SettingName] = input[name];
  }
  // Deprecated: turning the performance bar off clears the group allowed to use it.
  if (input.performance_bar_enabled === false) {
    changes.performance_bar_allowed_group_path = null;
    changes.performance_bar_allowed_group_id = null;
  }

  if (changes.enabled_git_access_protocol === 'nil' || changes.enabled_git_access_protocol === '') changes.enabled_git_access_protocol = null;
  if (Array.isArray(changes.restricted_visibility_levels)) {
    const byLevel: Record<string, string> = { '0': 'private', '10': 'internal', '20': 'public' };
    changes.restricted_visibility_levels = (changes.restricted_visibility_levels as unknown[]).map((l) => byLevel[String(l)] ?? String(l));
  }
  if (changes.repository_storages_weighted && typeof changes.repository_storages_weighted === 'object') {
    // Weights arrive as text from a query string or form (the reference coerces them to integers).
    const weights = changes.repository_storages_weighted as Record<string, unknown>;
    changes.repository_storages_weighted = Object.fromEntries(
      Object.entries(weights).map(([k, w]) => [k, typeof w === 'string' && /^\s*-?\d+\s*$/.test(w) ? Number(w) : w]),
    );
  }
  if (Array.isArray(changes.asset_proxy_allowlist)) {
    const host = defaultsContext(c).host;
    const list = (changes.asset_proxy_allowlist as string[]).map((x) => x.trim()).filter(Boolean);
    changes.asset_proxy_allowlist = list.includes(host) ? list : [...list, host];
  }
  for (const name of Object.keys(changes) as SettingName[]) {
    const def = defOf(name);
    // A client that writes back what it read must not replace a secret with its mask.
    if (def.secret && changes[name] === SECRET_MASK && current[name] !== null) delete changes[name];
    if (def.type === 'strings' && changes[name] === null) changes[name] = [];
  }
  return changes;
}

function encode(c: Container, row: SettingsRow, changes: Partial<Record<SettingName, unknown>>): string {
  const stored = JSON.parse(row.data) as Record<string, unknown>;
  for (const [name, v] of Object.entries(changes)) {
    stored[name] = defOf(name as SettingName).secret && typeof v === 'string' ? encryptSecret(c.config.secretKey, v) : v;
  }
  return JSON.stringify(stored);
}

/**
 * A lost race means another write committed, so retrying always makes progress; the bound is time,
 * not a count (a count smaller than the number of concurrent writers would refuse one of them).
 */
const WRITE_DEADLINE_MS = 10_000;

/** PUT /application/settings. All or nothing: an invalid request changes nothing. */
export async function updateSettings(c: Container, actor: Actor | null, input: SettingsInput): Promise<SettingsSnapshot> {
  assertCanManageSettings(actor);
  checkRequest(input);

  const deadline = Date.now() + WRITE_DEADLINE_MS;
  while (Date.now() < deadline) {
    const row = await readRow(c);
    const current = decode(c, row).settings;
    const changes = changesFrom(c, input, current);
    const next = { ...current, ...changes } as Settings;
    checkModel(next);
    const now = nowIso();
    const data = encode(c, row, changes);
    if (await writeSettingsRow(c.db, row.version, data, now)) {
      const snap = decode(c, { ...row, data, version: row.version + 1, updated_at: now });
      remember(cacheOf(c), snap, Date.now());
      return snap;
    }
    // Another node wrote in between: re-read, re-apply and re-validate against its values,
    // after a short random pause so that racing writers spread out.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 10));
  }
  throw conflict('Application settings are being changed concurrently; try again');
}
