// Streaming exchanges through the same checks as send(): a large body streamed up (export
// upload) or down (remote import), with bounded memory. No redirects: each hop would need its
// own check and a re-sent body. In test mode each exchange is recorded as send() records a
// request (the streamed bodies are not kept: the body is null, its length in the headers), and
// the inbox host takes an upload and answers 200 with no body, without a connection.
import http from 'node:http';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { checkUrl, clientFor, OutboundFailed, type OutboundPolicy } from './request.js';
import { isInboxUrl } from './record.js';

export interface StreamOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A body of known length, streamed as it is read. */
  body?: { stream: Readable; length: number };
  verifySsl?: boolean;
  connectTimeoutMs?: number;
  /** No byte either way for this long ends the exchange. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  /** The response body, to be read (or destroyed) by the caller. */
  body: http.IncomingMessage;
}

/** Sends one checked request and answers once the response headers are in. Throws OutboundRefused or OutboundFailed. */
export async function openStream(raw: string, policy: OutboundPolicy, opts: StreamOptions = {}): Promise<StreamResponse> {
  const recorder = policy.recorder;
  if (!recorder) return openChecked(raw, policy, opts);
  const entry = {
    method: opts.method ?? 'GET', url: raw, body: null, origin: null,
    headers: { ...(opts.headers ?? {}), ...(opts.body ? { 'Content-Length': String(opts.body.length) } : {}) },
  };
  let inbox = false;
  try {
    inbox = isInboxUrl(new URL(raw));
  } catch {
    // an invalid URL is refused below, and recorded so
  }
  if (inbox) {
    opts.body?.stream.resume(); // read to its end, as a receiver would
    recorder.record({ ...entry, response: { status: 200, headers: {}, body: '' }, error: null });
    const body = new http.IncomingMessage(new net.Socket());
    body.statusCode = 200;
    body.statusMessage = 'OK';
    body.push(null);
    return { status: 200, headers: {}, body };
  }
  try {
    const res = await openChecked(raw, policy, opts);
    recorder.record({ ...entry, response: { status: res.status, headers: res.headers, body: '' }, error: null });
    return res;
  } catch (err) {
    recorder.record({ ...entry, response: null, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}

async function openChecked(raw: string, policy: OutboundPolicy, opts: StreamOptions): Promise<StreamResponse> {
  const t = await checkUrl(raw, policy);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (t.authorization) headers.Authorization = t.authorization;
  if (opts.body) headers['Content-Length'] = String(opts.body.length);
  const pinned = t.pinned;
  const lookup = pinned
    ? (_host: string, o: { all?: boolean }, cb: (...args: any[]) => void) => (o?.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family))
    : undefined;
  const isHttps = t.url.protocol === 'https:';
  const client = await clientFor(t.url);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: OutboundFailed) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };
    const req = client.request(
      {
        protocol: t.url.protocol, host: t.host, port: t.port, path: `${t.url.pathname}${t.url.search}`, method: opts.method ?? 'GET',
        headers, lookup: lookup as any, agent: false, signal: opts.signal,
        ...(isHttps ? { servername: net.isIP(t.host) ? undefined : t.host, rejectUnauthorized: opts.verifySsl ?? true } : {}),
      },
      (res) => {
        if (settled) return res.destroy();
        settled = true;
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: out, body: res });
      },
    );
    req.setTimeout(opts.idleTimeoutMs ?? 60_000, () => fail(new OutboundFailed('execution expired', true)));
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => fail(new OutboundFailed('Failed to open TCP connection: execution expired', true)), opts.connectTimeoutMs ?? 5000);
      socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.on('error', (err) => fail(new OutboundFailed(err.message)));
    if (opts.body) {
      opts.body.stream.on('error', (err) => fail(new OutboundFailed(err.message)));
      opts.body.stream.pipe(req);
    } else req.end();
  });
}
