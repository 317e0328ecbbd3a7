import { invalidParams } from '../errors.js';

/**
 * A DateTime parameter (created_after, updated_before, released_at, …) as a stored timestamp: ISO
 * 8601, or `YYYY-MM-DD hh:mm:ss` taken as UTC, as the reference reads it. Anything else is
 * `400 {"error":"<name> is invalid"}`.
 */
export function dateTimeParam(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (!/^\d{4}-\d\d-\d\d/.test(s)) throw invalidParams(`${name} is invalid`);
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(s) || /^\d{4}-\d\d-\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`;
  const ms = Date.parse(zoned.replace(/^(\d{4}-\d\d-\d\d) /, '$1T'));
  if (Number.isNaN(ms)) throw invalidParams(`${name} is invalid`);
  return new Date(ms).toISOString();
}
