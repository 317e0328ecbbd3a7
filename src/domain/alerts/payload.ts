// An HTTP endpoint alert payload read as the spec's table has it (the reference's generic
// payload). Pure.
import crypto from 'node:crypto';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;
export const DEFAULT_TITLE = 'New: Alert';
/** The reference's limits on a payload (Gitlab::Utils::DeepSize): 1 MB of JSON, 100 levels deep. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const MAX_PAYLOAD_DEPTH = 100;

/** The fields the spec names; everything else in a payload is a custom field, kept as sent. */
export const STANDARD_FIELDS = [
  'title',
  'description',
  'start_time',
  'end_time',
  'service',
  'monitoring_tool',
  'hosts',
  'severity',
  'fingerprint',
  'service_environment_name',
] as const;

// Left out of the default fingerprint: an identical alert at another time or host is the same alert.
const NOT_FINGERPRINTED = new Set(['start_time', 'end_time', 'hosts']);

export interface ParsedAlert {
  title: string;
  description: string | null;
  service: string | null;
  monitoring_tool: string | null;
  environment_name: string | null;
  hosts: string[];
  severity: (typeof SEVERITIES)[number];
  fingerprint: string;
  startedAt: string;
  endedAt: string | null;
}

export function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let max = 0;
  for (const x of Object.values(v)) max = Math.max(max, depthOf(x));
  return max + 1;
}

const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.trim() === '' ? null : s;
};

function time(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Keys sorted at every level: equal payloads hash equally whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The fingerprint groups occurrences: the given `fingerprint` (a string, or an array flattened and
 * joined), else the whole payload without its times and hosts; stored as SHA-1.
 */
function fingerprintOf(payload: Record<string, unknown>): string {
  const given = payload.fingerprint;
  let basis: string;
  if (Array.isArray(given) && given.length > 0) basis = given.flat(Infinity).map((x) => (typeof x === 'object' ? canonical(x) : String(x))).join('');
  else if (given !== undefined && given !== null && given !== '' && !Array.isArray(given)) basis = typeof given === 'object' ? canonical(given) : String(given);
  else basis = canonical(Object.fromEntries(Object.entries(payload).filter(([k]) => !NOT_FINGERPRINTED.has(k))));
  return crypto.createHash('sha1').update(basis).digest('hex');
}

export function parseAlertPayload(payload: Record<string, unknown>, now: string): ParsedAlert {
  const severity = String(payload.severity ?? '').toLowerCase();
  const hosts = payload.hosts;
  return {
    title: text(payload.title) ?? DEFAULT_TITLE,
    description: text(payload.description),
    service: text(payload.service),
    monitoring_tool: text(payload.monitoring_tool),
    environment_name: text(payload.service_environment_name),
    hosts: (Array.isArray(hosts) ? hosts.flat(Infinity) : hosts === undefined || hosts === null ? [] : [hosts]).map((h) => (typeof h === 'object' ? JSON.stringify(h) : String(h))),
    severity: (SEVERITIES as readonly string[]).includes(severity) ? (severity as ParsedAlert['severity']) : 'critical',
    fingerprint: fingerprintOf(payload),
    startedAt: time(payload.start_time) ?? now,
    endedAt: time(payload.end_time),
  };
}

/** The custom fields of a payload: everything the spec's table does not name. */
export const customFields = (payload: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(payload).filter(([k]) => !(STANDARD_FIELDS as readonly string[]).includes(k)));
