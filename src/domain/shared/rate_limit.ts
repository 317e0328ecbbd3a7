// Application rate limits (the reference's ApplicationRateLimiter): N requests per key per fixed
// window, counted in the database so that every node shares one count. Exceeding a limit is a
// 429 whose text/plain body is the instance's `rate_limiting_response_text` (the spec's rule),
// with the reference throttle's Retry-After and RateLimit-* headers.
import type { Container } from '../context.js';
import { hitRateLimit, pruneRateLimits } from '../../db/repos/rate_limits.js';
import { throttled, tooManyRequests } from '../errors.js';
import { getSettings } from '../settings/service.js';
import type { SettingName, Settings } from '../settings/definitions.js';
import { now as clockNow } from '../../shared/clock.js';

/** Longest window a limit may use; windows older than this are pruned. */
export const MAX_PERIOD_SECONDS = 3600;
/** Each node prunes ended windows at most this often. */
const PRUNE_EVERY_MS = 60_000;
/** The reference's text when `rate_limiting_response_text` is empty (a trailing newline is added). */
export const DEFAULT_RATE_LIMITING_RESPONSE_TEXT = 'Retry later';

export interface RateLimitRule {
  /** The limit's name (a setting name such as `search_rate_limit`); part of the counter key. */
  name: string;
  /** Requests allowed per window; 0 or less disables the limit. */
  threshold: number;
  periodSeconds: number;
}

/** A per-minute limit whose threshold is the instance setting of the same name. */
export async function settingRule(c: Container, name: LimitSettingName): Promise<RateLimitRule> {
  return { name, threshold: (await getSettings(c))[name], periodSeconds: 60 };
}
type LimitSettingName = {
  [K in SettingName]: Settings[K] extends number ? (K extends `${string}_limit${string}` ? K : never) : never;
}[SettingName];

const lastPrune = new WeakMap<Container, number>();

async function pruneNowAndThen(c: Container, now: number): Promise<void> {
  if (now - (lastPrune.get(c) ?? 0) < PRUNE_EVERY_MS) return;
  lastPrune.set(c, now);
  await pruneRateLimits(c.db, new Date(now - MAX_PERIOD_SECONDS * 1000).toISOString());
}

/** The body of every 429 from an application limit: the admin's text, or the reference's default. */
export async function rateLimitingResponseText(c: Container): Promise<string> {
  const text = (await getSettings(c)).rate_limiting_response_text;
  return `${text && text.trim() !== '' ? text : DEFAULT_RATE_LIMITING_RESPONSE_TEXT}\n`;
}

/**
 * Counts one request of `scope` (e.g. `user:7`, `ip:10.0.0.1`) against `rule`; throws a 429 when
 * this request goes over the threshold. A disabled rule counts nothing.
 */
export async function checkRateLimit(c: Container, rule: RateLimitRule, scope: string): Promise<void> {
  const over = await countRequest(c, rule, scope);
  if (over) throw tooManyRequests(await rateLimitingResponseText(c), over);
}

/**
 * The reference API's own limits (check_rate_limit!: exports, downloads, imports): the same
 * count, answered with its JSON 429 body and no headers.
 */
export async function checkApiRateLimit(c: Container, rule: RateLimitRule, scope: string): Promise<void> {
  if (await countRequest(c, rule, scope)) throw throttled();
}

/** Counts one request of `scope`; true when it went over the threshold (the caller answers its own way). */
export async function overRateLimit(c: Container, rule: RateLimitRule, scope: string): Promise<boolean> {
  return (await countRequest(c, rule, scope)) !== null;
}

/** Counts the request; the throttle headers when it went over the threshold, else null. */
async function countRequest(c: Container, rule: RateLimitRule, scope: string): Promise<Record<string, string> | null> {
  if (!(rule.threshold > 0)) return null;
  if (rule.periodSeconds <= 0 || rule.periodSeconds > MAX_PERIOD_SECONDS) throw new Error(`bad rate limit period ${rule.periodSeconds}`);
  const now = clockNow();
  const periodMs = rule.periodSeconds * 1000;
  const windowStart = Math.floor(now / periodMs) * periodMs;
  await pruneNowAndThen(c, now);
  const observed = await hitRateLimit(c.db, `${rule.name}:${scope}`, new Date(windowStart).toISOString());
  if (observed <= rule.threshold) return null;

  const resetAt = windowStart + periodMs;
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return {
    'RateLimit-Name': rule.name,
    'RateLimit-Limit': String(Math.ceil((rule.threshold * 60) / rule.periodSeconds)),
    'RateLimit-Observed': String(observed),
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
    'RateLimit-ResetTime': new Date(Math.ceil(resetAt / 1000) * 1000).toUTCString(),
    'Retry-After': String(retryAfter),
  };
}
