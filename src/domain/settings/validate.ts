// Checks on application settings, in the two layers the reference has: parameter checks on the
// request itself (Grape `values:` and `given … requires`: 400 `{"error": "…"}`) and model
// validations on the values after the update (400 `{"message": {"field": ["…"]}}`).
import net from 'node:net';
import { invalidParams, validation } from '../errors.js';
import { durationSeconds, parseDuration } from '../../shared/duration.js';
import { REPOSITORY_STORAGES, SETTING_NAMES, defOf, type Bound, type SettingName, type Settings } from './definitions.js';

export type SettingsInput = Partial<Record<SettingName, unknown>>;

const isBlank = (v: unknown): boolean =>
  v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

/** Request-level checks: allowed values, and toggles whose required settings must come along. */
export function checkRequest(input: SettingsInput): void {
  const errors: string[] = [];
  for (const name of SETTING_NAMES) {
    const v = input[name];
    if (v === undefined) continue;
    const def = defOf(name);
    if (def.values) {
      const items = Array.isArray(v) ? v : [v];
      if (items.some((x) => !def.values!.includes(x as never))) errors.push(`${name} does not have a valid value`);
    }
    if (def.requires && def.requiresIn === 'request' && v === true) {
      for (const r of def.requires) if (input[r as SettingName] === undefined) errors.push(`${r} is missing`);
    }
  }
  if (errors.length) throw invalidParams(errors.join(', '));
}

// ---- model validations

function isIpOrCidr(s: string): boolean {
  const [ip, prefix, ...rest] = s.split('/');
  const family = net.isIP(ip);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

const VISIBILITY_NAMES = ['private', 'internal', 'public'];

/** Model validations over the whole object after the update; throws with every failure. */
export function checkModel(s: Settings): void {
  const errors: Record<string, string[]> = {};
  const add = (name: string, msg: string) => (errors[name] ??= []).push(msg);
  const bound = (b: Bound): number | null => (typeof b === 'number' ? b : ((s as any)[b] as number | null));

  for (const name of SETTING_NAMES) {
    const def = defOf(name);
    if (def.aliasOf || def.fixed !== undefined || def.computed) continue;
    const v = (s as any)[name];

    if (typeof v === 'number') {
      const checks: [Bound | undefined, (n: number, b: number) => boolean, string][] = [
        [def.gt, (n, b) => n > b, 'must be greater than'],
        [def.gte, (n, b) => n >= b, 'must be greater than or equal to'],
        [def.lt, (n, b) => n < b, 'must be less than'],
        [def.lte, (n, b) => n <= b, 'must be less than or equal to'],
      ];
      for (const [b, ok, msg] of checks) {
        if (b === undefined) continue;
        const limit = bound(b);
        if (limit !== null && !ok(v, limit)) add(name, `${msg} ${limit}`);
      }
      if (def.inclusion && !def.inclusion.includes(v)) add(name, 'is not included in the list');
    }

    if (typeof v === 'string' && v.trim() !== '') {
      if (def.maxLength !== undefined && v.length > def.maxLength) add(name, `is too long (maximum is ${def.maxLength} characters)`);
      switch (def.format) {
        case 'url':
          if (!isHttpUrl(v)) add(name, 'must be a valid URL');
          break;
        case 'email':
          if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) add(name, 'is invalid');
          break;
        case 'duration':
          if (parseDuration(v) === null) add(name, 'is not a correct duration');
          break;
        case 'ip_list':
          for (const ip of v.split(',').map((x) => x.trim()).filter(Boolean)) {
            if (!isIpOrCidr(ip)) add(name, `'${ip}' is not a valid IP address`);
          }
          break;
        case 'token_prefix':
          if (!/^[a-zA-Z0-9_+=/@:.-]+$/.test(v)) {
            add(name, "can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'");
          }
          break;
      }
    }

    if (def.requires && v === true) {
      for (const r of def.requires) {
        if (!isBlank((s as any)[r])) continue;
        if (name === 'domain_denylist_enabled') add(r, 'Domain denylist cannot be empty if denylist is enabled.');
        else add(r, "can't be blank");
      }
    }
  }

  // Settings that only make sense together, or have rules of their own.
  if (s.archive_builds_in_human_readable && s.archive_builds_in_human_readable.trim() !== '') {
    const secs = durationSeconds(s.archive_builds_in_human_readable); // zero is nil there: no archiving
    if (secs !== null && secs < 86400) add('archive_builds_in_human_readable', 'must be at least 1 day');
  }
  if (isBlank(s.default_artifacts_expire_in)) add('default_artifacts_expire_in', "can't be blank");
  if (isBlank(s.geo_node_allowed_ips)) add('geo_node_allowed_ips', "can't be blank");
  if (!isBlank(s.external_auth_client_cert) && isBlank(s.external_auth_client_key)) add('external_auth_client_key', "can't be blank");
  if (!isBlank(s.external_auth_client_key) && isBlank(s.external_auth_client_cert)) add('external_auth_client_cert', "can't be blank");
  if (s.delayed_project_deletion && !s.delayed_group_deletion) {
    add('delayed_project_deletion', 'can only be enabled when delayed_group_deletion is enabled');
  }
  for (const level of s.restricted_visibility_levels) {
    if (!VISIBILITY_NAMES.includes(level)) add('restricted_visibility_levels', `'${level}' is not a valid visibility level`);
  }
  const unknownStorages = s.repository_storages.filter((x) => !(REPOSITORY_STORAGES as readonly string[]).includes(x));
  if (unknownStorages.length) add('repository_storages', `can't include: ${unknownStorages.join(', ')}`);
  if (s.repository_storages.length === 0) add('repository_storages', "can't be blank");
  const weighted = s.repository_storages_weighted as Record<string, unknown>;
  const unknownWeighted = Object.keys(weighted).filter((x) => !(REPOSITORY_STORAGES as readonly string[]).includes(x));
  if (unknownWeighted.length) add('repository_storages_weighted', `can't include: ${unknownWeighted.join(', ')}`);
  for (const [storage, w] of Object.entries(weighted)) {
    if (typeof w !== 'number' || !Number.isInteger(w)) add('repository_storages_weighted', `value for '${storage}' must be an integer`);
    else if (w < 0 || w > 100) add('repository_storages_weighted', `value for '${storage}' must be between 0 and 100`);
  }
  if (s.outbound_local_requests_whitelist.length > 1000) add('outbound_local_requests_whitelist', 'is too long (maximum is 1000 entries)');

  if (Object.keys(errors).length) throw validation(errors);
}
