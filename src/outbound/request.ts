// THE one way Anvil sends HTTP to a URL a user gave (hook deliveries; export upload and remote
// import next). The host is resolved once, every address is checked, and the connection goes to
// the checked address (no second lookup, so DNS rebinding cannot slip a local address through).
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { addressAllowed, addressKind, hostAllowed, parseAllowList, type AddressKind } from './address.js';
import { isInboxUrl, type OutboundRecorder } from './record.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. Injectable: a test resolver maps names wherever it likes. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** The instance settings that decide what a request may reach (the caller picks the "allow local" setting for its kind). */
export interface OutboundPolicy {
  /** `allow_local_requests_from_system_hooks` or `allow_local_requests_from_web_hooks_and_services`. */
  allowLocal: boolean;
  /** `outbound_local_requests_whitelist`. */
  allowList: readonly string[];
  /** `dns_rebinding_protection_enabled`: connect to the checked address, not to a second lookup's. */
  pinAddress: boolean;
  resolver?: Resolver;
  /** Test mode: every request is recorded, and the inbox host answered without a connection. */
  recorder?: OutboundRecorder;
}

export type RefusalReason = 'invalid' | 'scheme' | 'unresolvable' | Exclude<AddressKind, null>;

/** A URL the rules refuse; the message is the reference's. */
export class OutboundRefused extends Error {
  constructor(readonly reason: RefusalReason, message: string) {
    super(message);
  }
}

export interface CheckedTarget {
  /** The URL without its user info. */
  url: URL;
  /** `Basic …` made from the URL's user info, or null. */
  authorization: string | null;
  host: string;
  port: number;
  /** The checked address to connect to; null when pinning is off. */
  pinned: ResolvedAddress | null;
}

const REFUSAL: Record<Exclude<AddressKind, null>, string> = {
  localhost: 'Requests to localhost are not allowed',
  local_network: 'Requests to the local network are not allowed',
  link_local: 'Requests to the link local network are not allowed',
  multicast: 'Requests to multicast addresses are not allowed',
  broadcast: 'Requests to the limited broadcast address are not allowed',
};
/** Refused even when local requests are allowed, unless the allow list names them. */
const NEVER_LOCAL = new Set<AddressKind>(['multicast', 'broadcast']);

/** Shows a URL without its credentials (for logs and delivery records). */
export function redactedUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username || u.password) {
      u.username = '*****';
      u.password = u.password ? '*****' : '';
    }
    return u.toString();
  } catch {
    return raw.replace(/\/\/[^/@]*@/, '//*****@');
  }
}

/** Parses and checks a URL against the policy; resolves the host once. Throws OutboundRefused. */
export async function checkUrl(raw: string, policy: OutboundPolicy): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused('invalid', 'URI is invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused('scheme', 'Only allowed schemes are http, https');
  if (!url.hostname) throw new OutboundRefused('invalid', 'URI is invalid');
  const authorization = url.username || url.password
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : null;
  url.username = '';
  url.password = '';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;

  let addresses: ResolvedAddress[];
  if (policy.recorder && isInboxUrl(url)) return { url, authorization, host, port, pinned: null };
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIPv6(host) ? 6 : 4 }];
  else {
    try {
      addresses = await (policy.resolver ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new OutboundRefused('unresolvable', 'Host cannot be resolved or invalid');
  }

  const allowList = parseAllowList(policy.allowList);
  // A host name on the allow list is trusted whatever it resolves to, as the reference does.
  if (!hostAllowed(allowList, host, port)) {
    for (const a of addresses) {
      const kind = addressKind(a.address);
      if (kind === null || addressAllowed(allowList, a.address, port)) continue;
      if (policy.allowLocal && !NEVER_LOCAL.has(kind)) continue;
      throw new OutboundRefused(kind, REFUSAL[kind]);
    }
  }
  return { url, authorization, host, port, pinned: policy.pinAddress ? addresses[0] : null };
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** `enable_ssl_verification`. */
  verifySsl?: boolean;
  connectTimeoutMs?: number;
  /** The whole exchange, body included. */
  timeoutMs?: number;
  /** Bytes of the response body kept; the rest is not read. */
  maxBodyBytes?: number;
  /** Redirects followed, each hop checked again; 0 (hooks) answers the redirect itself. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** What sends it, for the test-mode record (a hook's id and type). */
  origin?: Record<string, unknown>;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body was longer than maxBodyBytes. */
  truncated: boolean;
  durationMs: number;
}

/** A request that did not get a response (refused, unreachable, timed out). */
export class OutboundFailed extends Error {
  constructor(message: string, readonly timeout = false) {
    super(message);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The client module of a URL's scheme. TLS is loaded at the first https call: loading it was part of every start. */
export async function clientFor(url: URL): Promise<typeof http> {
  return url.protocol === 'https:' ? ((await import('node:https')).default as unknown as typeof http) : http;
}

/** Sends one request (following redirects only when asked, re-checking every hop). */
export async function send(raw: string, policy: OutboundPolicy, opts: SendOptions = {}): Promise<OutboundResponse> {
  if (!policy.recorder) return sendChecked(raw, policy, opts);
  const recorder = policy.recorder;
  const entry = {
    method: opts.method ?? 'GET', url: raw, headers: { ...(opts.headers ?? {}) },
    body: opts.body === undefined ? null : opts.body.toString(), origin: opts.origin ?? null,
  };
  let inbox = false;
  try {
    inbox = isInboxUrl(new URL(raw));
  } catch {
    // an invalid URL is refused below, and recorded so
  }
  if (inbox) {
    const started = Date.now();
    const answer = (await recorder.answerInbox?.(entry.method, raw, opts.timeoutMs ?? 10_000)) ?? { status: 200, headers: {}, body: '' };
    if ('error' in answer) {
      recorder.record({ ...entry, response: null, error: answer.error });
      throw new OutboundFailed(answer.error, answer.timeout);
    }
    recorder.record({ ...entry, response: answer, error: null });
    return { ...answer, truncated: false, durationMs: Date.now() - started };
  }
  try {
    const res = await sendChecked(raw, policy, opts);
    recorder.record({ ...entry, response: { status: res.status, headers: res.headers, body: res.body }, error: null });
    return res;
  } catch (err) {
    recorder.record({ ...entry, response: null, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}

async function sendChecked(raw: string, policy: OutboundPolicy, opts: SendOptions): Promise<OutboundResponse> {
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 10_000);
  let target = raw;
  let method = opts.method ?? 'GET';
  let body = opts.body;
  for (let hop = 0; ; hop++) {
    const checked = await checkUrl(target, policy);
    const res = await once(checked, { ...opts, method, body }, deadline);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || hop >= (opts.maxRedirects ?? 0)) {
      return { ...res, durationMs: Date.now() - started };
    }
    target = new URL(location, checked.url).toString();
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
  }
}

async function once(t: CheckedTarget, opts: SendOptions, deadline: number): Promise<Omit<OutboundResponse, 'durationMs'>> {
  const maxBody = opts.maxBodyBytes ?? 64 * 1024;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (t.authorization) headers.Authorization = t.authorization;
  if (opts.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  const pinned = t.pinned;
  const lookup = pinned
    ? (_host: string, o: { all?: boolean }, cb: (...args: any[]) => void) =>
        o?.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family)
    : undefined;
  const isHttps = t.url.protocol === 'https:';
  const client = await clientFor(t.url);
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (err: OutboundFailed) => {
      if (done) return;
      done = true;
      clearTimeout(total);
      req.destroy();
      reject(err);
    };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new OutboundFailed('execution expired', true));
    const total = setTimeout(() => fail(new OutboundFailed('execution expired', true)), remaining);
    const req = client.request(
      {
        protocol: t.url.protocol,
        host: t.host,
        port: t.port,
        path: `${t.url.pathname}${t.url.search}`,
        method: opts.method,
        headers,
        lookup: lookup as any,
        agent: false,
        ...(isHttps ? { servername: net.isIP(t.host) ? undefined : t.host, rejectUnauthorized: opts.verifySsl ?? true } : {}),
        signal: opts.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(total);
          const headersOut: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headersOut[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: headersOut, body: Buffer.concat(chunks).toString('utf8'), truncated });
          if (truncated) res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (size + chunk.length > maxBody) {
            chunks.push(chunk.subarray(0, maxBody - size));
            size = maxBody;
            truncated = true;
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', finish);
        res.on('error', (err) => fail(new OutboundFailed(err.message)));
      },
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(() => fail(new OutboundFailed('Failed to open TCP connection: execution expired', true)), opts.connectTimeoutMs ?? 5000);
      socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => fail(new OutboundFailed(err.message)));
    req.end(opts.body);
  });
}
