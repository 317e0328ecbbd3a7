// The request journal (GET /-/test/requests): every request made to Anvil in test mode but the
// test endpoints' own, so a test can check what the code under test sent. Secrets are masked
// (credential headers, secret query values, secret fields of a body); bodies are kept up to a
// size, and only the newest entries: the journal's memory is bounded whatever the suite does.
import { maskSecrets, redactUrl, REDACTED, SECRET_HEADERS } from '../http/redact.js';
import { nowIso } from '../shared/time.js';
import { patternRegex } from './faults.js';

/** The newest this many requests are kept. */
export const JOURNAL_KEEP = 1000;
/** A body is kept up to this many characters (then cut, `…_truncated: true`). */
export const JOURNAL_BODY_CHARS = 8 * 1024;

export interface JournalEntry {
  id: number;
  created_at: string;
  method: string;
  /** The path and query as sent, secret query values masked. */
  url: string;
  path: string;
  /** null when no answer went out (a fault dropped or reset the connection). */
  status: number | null;
  /** The user the credential names (before sudo); null for none or a credential that is not valid. */
  user: string | null;
  duration_ms: number;
  /** The fault rule that applied, if one did. */
  fault_id: number | null;
  request: { headers: Record<string, string>; body: string | null; body_truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; body_truncated: boolean };
}

export interface JournalFilter {
  method?: string;
  path?: string;
  user?: string;
  status?: string;
  since?: number;
}

export function maskHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? REDACTED : Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

/** A body as kept: JSON with its secrets masked (CI variables' values too), text as is; cut to size. */
export function keptBody(raw: unknown, path: string, contentType: string): { body: string | null; body_truncated: boolean } {
  let text: string | null = null;
  const variables = /\/variables(\/|$)/.test(path);
  if (typeof raw === 'string' || Buffer.isBuffer(raw)) {
    const s = raw.toString();
    if (/json/.test(contentType)) {
      try {
        text = JSON.stringify(maskSecrets(JSON.parse(s), variables));
      } catch {
        text = s;
      }
    } else if (/^(text\/|application\/(x-www-form-urlencoded|xml|javascript))/.test(contentType)) {
      text = /form-urlencoded/.test(contentType) ? redactUrl(`?${s}`).slice(1) : s;
    }
  } else if (raw !== null && typeof raw === 'object' && !isStream(raw)) {
    text = JSON.stringify(maskSecrets(raw, variables));
  }
  if (text === null) return { body: null, body_truncated: false };
  return text.length > JOURNAL_BODY_CHARS ? { body: text.slice(0, JOURNAL_BODY_CHARS), body_truncated: true } : { body: text, body_truncated: false };
}

const isStream = (v: object): boolean => typeof (v as { pipe?: unknown }).pipe === 'function';

const statusMatches = (want: string, status: number | null): boolean => {
  if (status === null) return want === 'none';
  if (/^\dxx$/i.test(want)) return Math.floor(status / 100) === Number(want[0]);
  return String(status) === want;
};

export class RequestJournal {
  private entries: JournalEntry[] = [];
  private lastId = 0;

  record(e: Omit<JournalEntry, 'id' | 'created_at'>): void {
    this.entries.push({ id: ++this.lastId, created_at: nowIso(), ...e });
    if (this.entries.length > JOURNAL_KEEP) this.entries.splice(0, this.entries.length - JOURNAL_KEEP);
  }

  /** The entries a filter selects, oldest first. */
  find(f: JournalFilter): JournalEntry[] {
    const path = f.path ? patternRegex(f.path) : null;
    const method = f.method?.toUpperCase();
    return this.entries.filter(
      (e) =>
        e.id > (f.since ?? 0) &&
        (!method || e.method === method) &&
        (!path || path.test(e.path)) &&
        (f.user === undefined || e.user === f.user) &&
        (f.status === undefined || statusMatches(f.status, e.status)),
    );
  }

  /** Forgets every entry (a reset); ids keep counting. */
  clear(): void {
    this.entries = [];
  }
}
