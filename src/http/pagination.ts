// Page parameters in, x-* and Link headers out: one implementation for every list route.
import { Type as T } from '@sinclair/typebox';
import { exactError } from '../domain/errors.js';
import type { PageRequest, PageResult } from '../shared/page.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

/** Parameters every paginated route accepts (merged into its own schema). */
// int32: a page number the reference's Integer parameter and the database's offset both hold;
// anything larger is `{"error":"page is invalid"}` (params.ts), never a float offset in SQL.
export const PAGE_PARAMS = {
  page: T.Optional(T.Integer({ format: 'int32' })),
  per_page: T.Optional(T.Integer({ format: 'int32' })),
  pagination: T.Optional(T.String()),
  id_after: T.Optional(T.Integer()),
  id_before: T.Optional(T.Integer()),
  cursor: T.Optional(T.String()),
};

export interface PageInput {
  page?: number;
  per_page?: number;
  pagination?: string;
  order_by?: string;
  sort?: string;
  id_after?: number;
  id_before?: number;
  cursor?: string;
}

export type KeysetSupport = (input: PageInput) => boolean;

export function pageRequest(input: PageInput, keyset: KeysetSupport | null): PageRequest {
  const perPage = Math.min(Math.max(input.per_page ?? DEFAULT_PER_PAGE, 1), MAX_PER_PAGE);
  if (input.pagination === 'keyset') {
    if (!keyset || !keyset(input)) {
      throw exactError(405, { error: 'Keyset pagination is not yet available for this type of request' });
    }
    return {
      kind: 'keyset',
      perPage,
      sort: input.sort === 'asc' ? 'asc' : 'desc',
      idAfter: input.id_after ?? null,
      idBefore: input.id_before ?? null,
      cursor: input.cursor ?? null,
    };
  }
  return { kind: 'offset', page: Math.max(input.page ?? 1, 1), perPage };
}

const SECRET_PARAMS = ['private_token', 'access_token', 'job_token'];

function linkTo(base: string, query: URLSearchParams, set: Record<string, string>, drop: string[] = []): string {
  const q = new URLSearchParams(query);
  for (const k of [...SECRET_PARAMS, ...drop]) q.delete(k);
  for (const [k, v] of Object.entries(set)) q.set(k, v);
  return `${base}?${q.toString()}`;
}

/**
 * Headers for one page. `base` is the external URL of the request path, `query` its
 * query string. The last item's id drives the keyset `next` link.
 */
export function pageHeaders(
  req: PageRequest,
  result: PageResult<{ id?: unknown }>,
  base: string,
  query: URLSearchParams,
): Record<string, string> {
  const pp = String(req.perPage);
  if (req.kind === 'keyset') {
    if (result.nextCursor) {
      return { link: `<${linkTo(base, query, { cursor: result.nextCursor, per_page: pp }, ['id_after', 'id_before', 'page'])}>; rel="next"` };
    }
    const last = result.items[result.items.length - 1] as { id?: number } | undefined;
    if (!result.hasNext || !last || typeof last.id !== 'number') return {};
    const cursor: Record<string, string> = req.sort === 'asc' ? { id_after: String(last.id) } : { id_before: String(last.id) };
    return { link: `<${linkTo(base, query, { ...cursor, per_page: pp }, ['id_after', 'id_before', 'page'])}>; rel="next"` };
  }
  const page = req.page;
  const headers: Record<string, string> = {
    'x-page': String(page),
    'x-per-page': pp,
    'x-prev-page': page > 1 ? String(page - 1) : '',
    'x-next-page': result.hasNext ? String(page + 1) : '',
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${linkTo(base, query, { page: String(page - 1), per_page: pp })}>; rel="prev"`);
  if (result.hasNext) links.push(`<${linkTo(base, query, { page: String(page + 1), per_page: pp })}>; rel="next"`);
  links.push(`<${linkTo(base, query, { page: '1', per_page: pp })}>; rel="first"`);
  if (result.total !== null) {
    const pages = Math.max(1, Math.ceil(result.total / req.perPage));
    headers['x-total'] = String(result.total);
    headers['x-total-pages'] = String(pages);
    links.push(`<${linkTo(base, query, { page: String(pages), per_page: pp })}>; rel="last"`);
  }
  headers.link = links.join(', ');
  return headers;
}
