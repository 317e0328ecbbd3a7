// What of a request never reaches a log line or test mode's request journal: secret query values,
// credential headers, secret fields of a body.

// Query keys whose values are secrets (private_token, access_token, job_token, password, …), matched after
// decoding, since the query parser also accepts `private%5Ftoken=…` or `private_token[]=…`.
export const SECRET_QUERY_KEY = /token|password|secret/i;

export const REDACTED = '[REDACTED]';

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    let key = pair.slice(0, eq);
    try {
      key = decodeURIComponent(key.replace(/\+/g, ' '));
    } catch {
      // undecodable: test the raw key
    }
    return SECRET_QUERY_KEY.test(key) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

/** Headers that carry credentials. */
export const SECRET_HEADERS = new Set(['private-token', 'authorization', 'job-token', 'cookie', 'set-cookie', 'x-csrf-token', 'x-gitlab-token', 'sudo']);

/** Body fields whose values are secrets: `token`, `private_token`, `runners_token`, `password…`, `client_secret`. */
const SECRET_FIELD = /(^|_)(token|secret)$|password/i;

/** `value` with the string values of its secret fields masked (and, with `values`, every `value` field too: CI variables). */
export function maskSecrets(value: unknown, values = false): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, values));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && (SECRET_FIELD.test(k) || (values && k === 'value')) ? REDACTED : maskSecrets(v, values)]),
  );
}
