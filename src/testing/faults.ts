// Fault and latency rules (POST /-/test/faults for requests to Anvil, POST /-/test/inbox/faults
// for the delivery inbox's answers to hooks): a rule matches a request (method, path or URL
// pattern, user), for `times` requests or for ever, and answers a status with headers and a
// body, drops the connection, resets it, or only delays it (fixed or random) before the usual
// answer. The first rule that matches applies.
import { badRequest } from '../domain/errors.js';

export type FaultAction =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'drop' }
  | { kind: 'reset' }
  | { kind: 'pass' };

export interface FaultRule {
  id: number;
  method: string | null;
  /** A path (requests) or URL (inbox) pattern: `*` any characters but `/`, `**` any characters. */
  path: string | null;
  user: string | null;
  status: number | null;
  headers: Record<string, string>;
  body: string | null;
  drop: boolean;
  reset: boolean;
  /** A fixed delay in ms, or a random one between min and max. */
  delay: number | { min: number; max: number } | null;
  /** How many more requests it applies to; null: every one. */
  times: number | null;
  /** How many requests it applied to. */
  hits: number;
}

/** What a matched rule does to one request. */
export interface Fault {
  rule: FaultRule;
  delayMs: number;
  action: FaultAction;
}

const MAX_DELAY_MS = 120_000;
const MAX_RULES = 1000;

/** A pattern as a regular expression over the whole path. */
export function patternRegex(pattern: string): RegExp {
  const body = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FaultRules {
  private rules: FaultRule[] = [];
  private regexes = new Map<number, RegExp>();
  private lastId = 0;

  /** `where` is `path` (requests to Anvil) or `url` (the inbox's answers). */
  constructor(private readonly where: 'path' | 'url') {}

  /** Checks a rule as given and adds it; every error a 400 with `message`. */
  add(input: Record<string, unknown>): FaultRule {
    const str = (k: string): string | null => {
      const v = input[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string' || v === '') throw badRequest(`${k} must be a non-empty string`);
      return v;
    };
    const method = str('method')?.toUpperCase() ?? null;
    const path = str(this.where);
    const user = str('user');
    const status = input.status ?? null;
    if (status !== null && !(Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)) throw badRequest('status must be a whole number from 100 to 599');
    const headers = input.headers ?? {};
    if (!isObj(headers) || !Object.values(headers).every((v) => typeof v === 'string' || typeof v === 'number')) throw badRequest('headers must be a map of strings');
    const body = input.body === undefined || input.body === null ? null : typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    for (const k of ['drop', 'reset']) if (input[k] !== undefined && typeof input[k] !== 'boolean') throw badRequest(`${k} must be true or false`);
    const drop = input.drop === true;
    const reset = input.reset === true;
    const delay = input.delay ?? null;
    const ms = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_DELAY_MS;
    if (delay !== null && !(ms(delay) || (isObj(delay) && ms(delay.min) && ms(delay.max) && (delay.min as number) <= (delay.max as number) && Object.keys(delay).length === 2))) {
      throw badRequest(`delay must be milliseconds (0 to ${MAX_DELAY_MS}) or {"min", "max"}`);
    }
    const times = input.times ?? null;
    if (times !== null && !(Number.isInteger(times) && (times as number) >= 1)) throw badRequest('times must be a whole number of 1 or more');
    if ([status !== null, drop, reset].filter(Boolean).length > 1) throw badRequest('status, drop and reset are mutually exclusive');
    if (status === null && !drop && !reset && delay === null) throw badRequest('one of status, drop, reset, delay is needed');
    if (status === null && (body !== null || Object.keys(headers).length)) throw badRequest('headers and body go with a status');
    if (this.rules.length >= MAX_RULES) throw badRequest(`at most ${MAX_RULES} rules`);
    const rule: FaultRule = {
      id: ++this.lastId, method, path, user, status: status as number | null,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])), body, drop, reset,
      delay: delay as FaultRule['delay'], times: times as number | null, hits: 0,
    };
    this.rules.push(rule);
    if (path !== null) this.regexes.set(rule.id, patternRegex(path));
    return rule;
  }

  list(): FaultRule[] {
    return this.rules;
  }

  get size(): number {
    return this.rules.length;
  }

  /** Whether a rule names a user (then the caller finds who made the request). */
  get byUser(): boolean {
    return this.rules.some((r) => r.user !== null);
  }

  remove(id: number): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.regexes.delete(id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
    this.regexes.clear();
  }

  /** The fault for one request, counted (a rule with `times` left goes when they are used up); null when none matches. */
  take(method: string, target: string, user: string | null): Fault | null {
    const rule = this.rules.find(
      (r) => (r.method === null || r.method === method) && (r.path === null || this.regexes.get(r.id)!.test(target)) && (r.user === null || r.user === user),
    );
    if (!rule) return null;
    rule.hits += 1;
    if (rule.times !== null && --rule.times === 0) this.remove(rule.id);
    const d = rule.delay;
    const delayMs = d === null ? 0 : typeof d === 'number' ? d : d.min + Math.floor(Math.random() * (d.max - d.min + 1));
    const action: FaultAction =
      rule.status !== null ? { kind: 'answer', status: rule.status, headers: rule.headers, body: rule.body ?? '' }
      : rule.drop ? { kind: 'drop' }
      : rule.reset ? { kind: 'reset' }
      : { kind: 'pass' };
    return { rule, delayMs, action };
  }
}

/** A rule as the endpoints show it. */
export function presentRule(r: FaultRule, where: 'path' | 'url'): Record<string, unknown> {
  return {
    id: r.id, method: r.method, [where]: r.path, ...(where === 'path' ? { user: r.user } : {}), status: r.status, headers: r.headers,
    body: r.body, drop: r.drop, reset: r.reset, delay: r.delay, times: r.times, hits: r.hits,
  };
}
