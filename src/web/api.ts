// The pages read through the public REST API, in-process: the same routes, the same permission
// checks, as the visitor (their session cookie is passed on). There is no second model of access.
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface ApiAnswer {
  status: number;
  /** Parsed JSON, or undefined for another type. */
  body: any;
  text: string;
  /** The body's bytes (a raw file, an archive). */
  bytes: Buffer;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface ApiClient {
  /** `headers`: what the request adds to the visitor's (e.g. a `range`). */
  get(path: string, headers?: Record<string, string>): Promise<ApiAnswer>;
}

export function apiClient(app: FastifyInstance, req: FastifyRequest): ApiClient {
  const cookie = req.headers.cookie;
  return {
    async get(path, headers = {}) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v4${path}`,
        headers: cookie ? { ...headers, cookie } : headers,
        remoteAddress: req.ip,
      });
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json') && res.body !== '';
      return { status: res.statusCode, body: json ? JSON.parse(res.body) : undefined, text: res.body, bytes: res.rawPayload, headers: res.headers };
    },
  };
}

/** A list page's position, from the API's pagination headers. */
export interface Pager {
  page: number;
  nextPage: number | null;
  prevPage: number | null;
  totalPages: number | null;
}

export function pagerOf(a: ApiAnswer): Pager {
  const num = (name: string): number | null => {
    const v = a.headers[name];
    return v === undefined || v === '' ? null : Number(v);
  };
  return { page: num('x-page') ?? 1, nextPage: num('x-next-page'), prevPage: num('x-prev-page'), totalPages: num('x-total-pages') };
}

