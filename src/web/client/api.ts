// The browser's calls to the REST API: the session cookie goes along by itself; a write carries
// the page's CSRF token, without which the API treats the request as anonymous.

const csrfToken = (): string => document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';

export interface Answer {
  ok: boolean;
  status: number;
  body: any;
}

/** A FormData body goes as multipart (the browser sets its boundary); anything else as JSON. */
export async function apiFetch(method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  const multipart = body instanceof FormData;
  if (body !== undefined && !multipart) headers['content-type'] = 'application/json';
  const res = await fetch(`/api/v4${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : multipart ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // Only a JSON answer is parsed: a plain-text one (a job log that reads "42") stays text.
  let parsed: any = text;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // a broken body stays text
    }
  }
  return { ok: res.ok, status: res.status, body: parsed };
}

/** Every page of a list (a pipeline's jobs), as the server reads it; null when one cannot be read. */
export async function allPages(path: string): Promise<any[] | null> {
  const out: any[] = [];
  for (let page = 1; page <= 50; page++) {
    const a = await apiFetch('GET', `${path}?per_page=100&page=${page}`);
    if (!a.ok || !Array.isArray(a.body)) return null;
    out.push(...a.body);
    if (a.body.length < 100) break;
  }
  return out;
}

/** The API's error body in words: `message` (a string or a field → messages object) or `error`. */
export function errorText(a: Answer): string {
  const b = a.body;
  if (b && typeof b === 'object') {
    const m = b.message ?? b.error;
    // the API's bare refusal, in words a visitor can act on
    if (m === '403 Forbidden') return 'You are not allowed to do this: your role in this project is too low (403 Forbidden).';
    if (typeof m === 'string') return m;
    if (m && typeof m === 'object') {
      return Object.entries(m)
        .map(([k, v]) => (k === 'base' ? '' : `${k} `) + (Array.isArray(v) ? v.join(', ') : String(v)))
        .join('; ');
    }
  }
  return typeof b === 'string' && b ? b : `Request failed (${a.status})`;
}
